// The BOHB benchmark's workload (see workload.h).
#include "workload.h"

#include <cassert>
#include <cmath>
#include <random>

#include "bench/samplers/functions.h"

namespace gpusweep::bench {
namespace {

const TestFunction& Hartmann6() {
  const TestFunction* function = FindTestFunction("hartmann6");
  assert(function != nullptr);
  return *function;
}

}  // namespace

MultiFidelityWorkload::MultiFidelityWorkload() : space(Hartmann6().space) {}

double MultiFidelityWorkload::Final(const Params& params) const {
  return Hartmann6().evaluate(params) / Hartmann6().minimum;
}

double MultiFidelityWorkload::Value(const Params& params, double steps, std::uint64_t seed,
                                    int trial) const {
  const double x1 = params.at("x1").get<double>(), x4 = params.at("x4").get<double>();
  const double speed = 0.05 + 0.15 * (1 + std::sin(7 * x1 + 3 * x4)) / 2;
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(trial),
                    static_cast<std::uint32_t>(std::lround(steps * 1000))};
  std::mt19937_64 rng(seq);
  std::normal_distribution<double> noise(0, 0.01);
  return Final(params) - speed * (1 / std::sqrt(steps) - 1 / std::sqrt(max_resource)) + noise(rng);
}

}  // namespace gpusweep::bench
