#include "learning_curves.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace gpusweep::bench {
namespace {

double Beta(std::mt19937_64& rng, double alpha, double beta) {
  const double x = std::gamma_distribution<double>(alpha, 1.0)(rng);
  const double y = std::gamma_distribution<double>(beta, 1.0)(rng);
  return x / (x + y);
}

struct Curve {
  double a, b, c;
  bool diverges;
};

Curve DrawCurve(std::mt19937_64& rng, const WorkloadSpec& spec) {
  Curve curve;
  curve.a = 0.60 + 0.35 * Beta(rng, 3.0, 1.5);
  curve.b = std::uniform_real_distribution<double>(0.1, 0.5)(rng);
  curve.c = std::uniform_real_distribution<double>(0.3, 1.2)(rng);
  curve.diverges = std::uniform_real_distribution<double>(0, 1)(rng) < spec.diverge_fraction;
  return curve;
}

}  // namespace

int Workload::CountWithin(double fraction) const {
  return CountAtLeast(best_final_ * (1 - fraction));
}

int Workload::CountAtLeast(double value) const {
  int count = 0;
  for (int config = 0; config < configurations_; ++config) {
    if (Value(config, max_steps_) >= value) ++count;  // false for NaN (crashed)
  }
  return count;
}

double Workload::BestFinalOfFirst(int first) const {
  double best = -std::numeric_limits<double>::infinity();
  for (int config = 0; config < std::min(first, configurations_); ++config) {
    const double final_value = Value(config, max_steps_);
    if (!std::isnan(final_value)) best = std::max(best, final_value);
  }
  return best;
}

Workload MakeWorkload(const WorkloadSpec& spec) {
  Workload w;
  w.configurations_ = spec.configurations;
  w.max_steps_ = spec.max_steps;
  const std::size_t cells = static_cast<std::size_t>(spec.configurations) * spec.max_steps;
  w.values_.resize(cells);
  w.seconds_.resize(cells);
  w.crash_step_.assign(spec.configurations, 0);
  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<double> noise(0.0, spec.noise_sd);
  std::normal_distribution<double> speed(0.0, spec.step_sigma);
  std::normal_distribution<double> jitter(0.0, spec.jitter_sigma);
  std::uniform_real_distribution<double> unit(0, 1);
  std::uniform_int_distribution<int> any_step(1, spec.max_steps);
  w.best_final_ = -std::numeric_limits<double>::infinity();
  for (int config = 0; config < spec.configurations; ++config) {
    const Curve curve = DrawCurve(rng, spec);
    const double step_seconds = spec.median_step_seconds * std::exp(speed(rng));
    if (unit(rng) < spec.fail_fraction) w.crash_step_[config] = any_step(rng);
    for (int step = 1; step <= spec.max_steps; ++step) {
      const double mean = curve.diverges ? 0.10 : curve.a - curve.b * std::pow(step, -curve.c);
      double value = std::clamp(mean + noise(rng), 0.0, 1.0);
      const int crash = w.crash_step_[config];
      if (crash != 0 && step >= crash) value = std::numeric_limits<double>::quiet_NaN();
      w.values_[w.Index(config, step)] = value;
      w.seconds_[w.Index(config, step)] = step_seconds * std::exp(jitter(rng));
    }
    const double final_value = w.Value(config, spec.max_steps);
    if (!std::isnan(final_value)) w.best_final_ = std::max(w.best_final_, final_value);
  }
  return w;
}

}  // namespace gpusweep::bench
