// pbt_check.h — what population-based training (scheduler: {type: pbt}) needs from the
// rest of the config, checked once every section is parsed.
//
// Contract: Error{kInvalidConfig} at the offending key's line, saying why PBT cannot use
// it and what to write instead, when: cv: is set (folds share no checkpoint lineage); the
// sampler is not one that draws the initial population from the space alone (random,
// sobol); the sampler's trials differ from scheduler.population; warm_start: is set;
// resources.gpus_per_trial is a per-trial list; a mutations: name is not a search-space
// parameter, or is a constant; nothing in the space can vary. NAS (which refuses
// scheduler:) and several objectives (objective_parser.cc) are refused where those are
// parsed.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

Status CheckPbtFits(const Mapping& top, const ExperimentConfig& config);

}  // namespace gpusweep::config_detail
