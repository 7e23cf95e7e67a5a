// metric.h — the objective metric of an experiment: the reported key and whether lower
// or higher is better.
//
// Contract: plain data (set by the config parser from `metric:`, `metrics:` and
// `constraints:`, docs/config.md); every layer that ranks results reads it, so it lives
// in common, below them all.
#pragma once

#include <optional>
#include <string>

namespace gpusweep {

enum class Mode { kMin, kMax };

struct MetricSpec {
  std::string name;  // key in the trial's reported JSON lines, e.g. "val_acc"
  Mode mode = Mode::kMax;
};

// One entry of `constraints:`: the reported metric must be >= min and/or <= max (at
// least one bound; min <= max when both are given). A trial that breaks one is
// infeasible (objective.h says how that ranks).
struct ConstraintSpec {
  std::string metric;  // key in the trial's reported JSON lines, e.g. "latency_ms"
  std::optional<double> min;
  std::optional<double> max;
};

}  // namespace gpusweep
