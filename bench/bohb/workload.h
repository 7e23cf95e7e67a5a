// workload.h — a multi-fidelity workload whose results depend on the params, for the
// BOHB benchmark (bench/README.md, "bohb/run.sh").
//
// Six params x0..x5, uniform on [0, 1]. A configuration's final accuracy is the
// Hartmann-6 function of bench/samplers/functions.h, scaled so the best is 1:
// a(x) = H6(x) / H6_min (H6_min = -3.32237). Its learning curve
// over t = 1..R steps is
//   value(x, t) = a(x) - s(x) (t^-1/2 - R^-1/2) + N(0, 0.01^2),
// with a speed s(x) = 0.05 + 0.15 (1 + sin(7 x1 + 3 x4)) / 2 that depends on other
// params than a(x) does most, so low budgets rank configurations only roughly (the
// Spearman correlation between value at t = 1 and a(x) is printed by the benchmark).
// The noise is a fixed function of (seed, trial, t): the same evaluation gives the same
// value in every method's run.
#pragma once

#include <cstdint>

#include "gpusweep/config.h"
#include "gpusweep/json.h"

namespace gpusweep::bench {

struct MultiFidelityWorkload {
  double max_resource = 27;  // R
  SearchSpace space;         // x0..x5

  MultiFidelityWorkload();
  // a(x) in [0, 1]: the noise-free value at R; 1 at H6's minimiser.
  double Final(const Params& params) const;
  // The value a trial reports after `steps` steps (1 <= steps <= R).
  double Value(const Params& params, double steps, std::uint64_t seed, int trial) const;
};

}  // namespace gpusweep::bench
