// bohb_check.h — what BOHB (scheduler: {type: bohb}) needs from the sampler section,
// applied once every section is parsed.
//
// Contract: BOHB draws each configuration with the tpe sampler from the results at one
// budget (src/policy/bohb_policy.h), so Error{kInvalidConfig} at the offending key's
// line, saying what to write, when the sampler is not tpe, or when it sets
// n_startup_trials (BOHB's own rule, scheduler.min_points_in_model, says when the model
// starts). Otherwise it fills in the sampler's BOHB defaults: multivariate: true (BOHB's
// density is one joint kernel density) unless written, and n_startup_trials 1 (the policy
// passes tpe an empty history for a random configuration).
// Several objectives and constraints are refused in objective_parser.cc.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

Status ApplyBohbSampler(const Mapping& top, ExperimentConfig& config);

}  // namespace gpusweep::config_detail
