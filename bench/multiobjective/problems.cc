// The test problems of problems.h.
#include "bench/multiobjective/problems.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

namespace gpusweep::bench {
namespace {

MoValue Zdt(const std::string& name, const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  double sum = 0;
  for (std::size_t i = 1; i < x.size(); ++i) sum += x[i];
  const double f1 = x[0], g = 1 + 9 * sum / (n - 1), ratio = f1 / g;
  double h = 1 - std::sqrt(ratio);
  if (name == "zdt2") h = 1 - ratio * ratio;
  if (name == "zdt3") h = 1 - std::sqrt(ratio) - ratio * std::sin(10 * std::numbers::pi * f1);
  return {{f1, g * h}, 0};
}

MoValue Dtlz2(const std::vector<double>& x) {
  double g = 0;
  for (std::size_t i = 2; i < x.size(); ++i) g += (x[i] - 0.5) * (x[i] - 0.5);
  const double a = x[0] * std::numbers::pi / 2, b = x[1] * std::numbers::pi / 2;
  return {{(1 + g) * std::cos(a) * std::cos(b), (1 + g) * std::cos(a) * std::sin(b), (1 + g) * std::sin(a)}, 0};
}

double C2Dtlz2Violation(const std::vector<double>& f) {
  constexpr double r = 0.4;
  double corner = INFINITY, centre = 0;
  double squares = 0;
  for (double v : f) squares += v * v;
  for (double v : f) {
    corner = std::min(corner, (v - 1) * (v - 1) + squares - v * v - r * r);
    const double d = v - 1 / std::sqrt(static_cast<double>(f.size()));
    centre += d * d;
  }
  return std::max(0.0, std::min(corner, centre - r * r));
}

}  // namespace

const std::vector<MoProblem>& MoProblems() {
  static const std::vector<MoProblem> kProblems{
      {"zdt1", 30, 2, false, {11, 11}, 120 + 2.0 / 3},
      {"zdt2", 30, 2, false, {11, 11}, 120 + 1.0 / 3},
      {"zdt3", 30, 2, false, {11, 11}, 128.77811613069076},
      {"dtlz2", 12, 3, false, {1.1, 1.1, 1.1}, 1.1 * 1.1 * 1.1 - std::numbers::pi / 6},
      {"c2dtlz2", 12, 3, true, {1.1, 1.1, 1.1}, std::nullopt},
  };
  return kProblems;
}

MoValue Evaluate(const MoProblem& problem, const std::vector<double>& x) {
  assert(static_cast<int>(x.size()) == problem.variables);
  if (problem.name.starts_with("zdt")) return Zdt(problem.name, x);
  MoValue value = Dtlz2(x);
  if (problem.constrained) value.violation = C2Dtlz2Violation(value.f);
  return value;
}

}  // namespace gpusweep::bench
