// problems.h — the multi-objective test problems of bench/multiobjective (bench/README.md,
// "multiobjective"), written from their papers; run_optuna.py has the same in Python and
// `gs_bench_mo points` lets run.sh check that both agree.
//
// Every variable lies in [0, 1]; every objective is minimised.
// - ZDT1, ZDT2, ZDT3 (Zitzler, Deb & Thiele, "Comparison of multiobjective evolutionary
//   algorithms: empirical results", Evolutionary Computation 8(2), 2000), 30 variables:
//   f1 = x1, g = 1 + 9/(n-1) sum_{i>=2} x_i, f2 = g h(f1, g) with h = 1 - sqrt(f1/g)
//   (ZDT1), 1 - (f1/g)^2 (ZDT2), 1 - sqrt(f1/g) - (f1/g) sin(10 pi f1) (ZDT3).
//   Exact hypervolume of the true front at reference (11, 11): 120 + 2/3, 120 + 1/3,
//   128.77811613069076.
// - DTLZ2 (Deb, Thiele, Laumanns & Zitzler, "Scalable test problems for evolutionary
//   multiobjective optimization", 2005), 3 objectives, 12 variables (k = 10):
//   g = sum over the last k of (x_i - 0.5)^2, f1 = (1+g) cos(x1 pi/2) cos(x2 pi/2),
//   f2 = (1+g) cos(x1 pi/2) sin(x2 pi/2), f3 = (1+g) sin(x1 pi/2). The front is the unit
//   sphere's positive octant: hypervolume at (1.1, 1.1, 1.1) is 1.1^3 - pi/6.
// - C2-DTLZ2 (Jain & Deb, "An evolutionary many-objective optimization algorithm using
//   reference-point based nondominated sorting approach, part II", IEEE TEC 18(4),
//   2014): DTLZ2 with feasible regions only near the front's corners and centre, r = 0.4:
//   c = min(min_i[(f_i - 1)^2 + sum_{j != i} f_j^2 - r^2], sum_i (f_i - 1/sqrt(3))^2 - r^2);
//   feasible when c <= 0, violation max(c, 0). No closed-form best hypervolume: the
//   benchmark reports it raw.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpusweep::bench {

struct MoProblem {
  std::string name;
  int variables = 0;
  int objectives = 0;
  bool constrained = false;
  std::vector<double> reference;       // the hypervolume reference point
  std::optional<double> best_hypervolume;  // of the true (feasible) front, when known
};

struct MoValue {
  std::vector<double> f;  // objectives, minimised
  double violation = 0;   // 0: feasible
};

const std::vector<MoProblem>& MoProblems();
MoValue Evaluate(const MoProblem& problem, const std::vector<double>& x);

}  // namespace gpusweep::bench
