// metric.h — the objective metric of an experiment: the reported key and whether lower
// or higher is better.
//
// Contract: plain data (set by the config parser from `metric:`, docs/config.md); every
// layer that ranks results reads it, so it lives in common, below them all.
#pragma once

#include <string>

namespace gpusweep {

enum class Mode { kMin, kMax };

struct MetricSpec {
  std::string name;  // key in the trial's reported JSON lines, e.g. "val_acc"
  Mode mode = Mode::kMax;
};

}  // namespace gpusweep
