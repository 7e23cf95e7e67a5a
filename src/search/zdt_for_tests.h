// zdt_for_tests.h — ZDT1 (Zitzler, Deb & Thiele, "Comparison of multiobjective
// evolutionary algorithms: empirical results", Evolutionary Computation 2000) for the
// multi-objective samplers' tests: `dims` uniform parameters x0.. in [0, 1], objectives
// f1 and f2 (both min). The front is f2 = 1 - sqrt(f1), where x1.. = 0.
#pragma once

#include <cmath>
#include <string>

#include "gpusweep/objective.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep::test_support {

inline const Objective kZdtObjective({{"f1", Mode::kMin}, {"f2", Mode::kMin}});

inline SearchSpace ZdtSpace(int dims) {
  SearchSpace space;
  for (int i = 0; i < dims; ++i) space.params.push_back(Real("x" + std::to_string(i), ParamKind::kUniform, 0, 1));
  return space;
}

inline Json Zdt1(const Params& params, int dims) {
  const double f1 = params["x0"].get<double>();
  double g = 0;
  for (int i = 1; i < dims; ++i) g += params["x" + std::to_string(i)].get<double>();
  g = 1 + 9 * g / (dims - 1);
  return Json{{"f1", f1}, {"f2", g * (1 - std::sqrt(f1 / g))}};
}

}  // namespace gpusweep::test_support
