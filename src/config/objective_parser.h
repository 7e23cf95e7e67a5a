// objective_parser.h — the objective: `metric:` (one), `metrics:` (2 to 8) and
// `constraints:` (docs/config.md, "Several objectives and constraints").
//
// Contract: ParseObjective fills ExperimentConfig's metric, metrics and constraints or
// returns a located Error{kInvalidConfig}: neither or both of metric/metrics, fewer than
// 2 or more than kMaxObjectives entries, a metric named twice, a name or mode missing, a
// constraint without a metric or without a bound, min > max, a non-finite bound;
// `hypervolume_reference` without several metrics, not a mapping of every objective's
// name to a finite number, or naming a metric that is not an objective.
// CheckObjectiveSupport runs once every section is parsed and refuses, at the key that
// asks for it, a search that cannot honour the objective: several metrics or
// constraints with a sampler, scheduler (median, pbt; asha, hyperband and
// successive_halving rank by Pareto ranking), cv or nas that would rank by the primary
// metric alone.
#pragma once

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

Status ParseObjective(const Mapping& top, ExperimentConfig& config);
Status CheckObjectiveSupport(const Mapping& top, const ExperimentConfig& config);

}  // namespace gpusweep::config_detail
