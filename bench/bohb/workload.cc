// The BOHB benchmark's workload (see workload.h).
#include "workload.h"

#include <array>
#include <cmath>
#include <random>

namespace gpusweep::bench {
namespace {

// Hartmann-6 (Dixon & Szegő, "The global optimization problem: an introduction", 1978):
// minimum -3.32237 at (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573).
double Hartmann6(const std::array<double, 6>& x) {
  static constexpr double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
  static constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                      {0.05, 10, 17, 0.1, 8, 14},
                                      {3, 3.5, 1.7, 10, 17, 8},
                                      {17, 8, 0.05, 10, 0.1, 14}};
  static constexpr double kP[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                      {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                      {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                      {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) inner += kA[i][j] * (x[j] - kP[i][j]) * (x[j] - kP[i][j]);
    sum += kAlpha[i] * std::exp(-inner);
  }
  return -sum;
}

std::array<double, 6> Coordinates(const Params& params) {
  std::array<double, 6> x{};
  for (int j = 0; j < 6; ++j) x[j] = params.at("x" + std::to_string(j)).get<double>();
  return x;
}

}  // namespace

MultiFidelityWorkload::MultiFidelityWorkload() {
  for (int j = 0; j < 6; ++j) {
    ParamSpec p;
    p.name = "x" + std::to_string(j);
    p.kind = ParamKind::kUniform;
    p.low = 0;
    p.high = 1;
    space.params.push_back(p);
  }
}

double MultiFidelityWorkload::Final(const Params& params) const {
  return -Hartmann6(Coordinates(params)) / 3.32237;
}

double MultiFidelityWorkload::Value(const Params& params, double steps, std::uint64_t seed,
                                    int trial) const {
  const std::array<double, 6> x = Coordinates(params);
  const double speed = 0.05 + 0.15 * (1 + std::sin(7 * x[1] + 3 * x[4])) / 2;
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(trial),
                    static_cast<std::uint32_t>(std::lround(steps * 1000))};
  std::mt19937_64 rng(seq);
  std::normal_distribution<double> noise(0, 0.01);
  return Final(params) - speed * (1 / std::sqrt(steps) - 1 / std::sqrt(max_resource)) + noise(rng);
}

}  // namespace gpusweep::bench
