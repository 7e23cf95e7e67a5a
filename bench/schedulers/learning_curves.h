// learning_curves.h — the synthetic search the scheduler benchmark simulates.
//
// Contract: MakeWorkload(spec) is a pure function of `spec` (same seed → the same
// configurations, curves and step durations, bit for bit, on one standard library), so
// every scheduler is compared on exactly the same search.
//
// Model (the metric is an accuracy, maximised):
//  - configuration i has a learning curve value(t) = a − b·t^(−c) + N(0, noise_sd²) for
//    steps t = 1..max_steps, with a = 0.60 + 0.35·Beta(3, 1.5) (final accuracy, a few
//    configurations near the top), b ~ U(0.1, 0.5), c ~ U(0.3, 1.2): curves cross, so
//    the rank at step 1 is a noisy guess of the final rank (Spearman ≈ 0.6; ≈ 0.85 at
//    step 3, ≈ 0.95 at step 9);
//  - diverge_fraction of configurations never learn (value 0.10 + noise: e.g. a learning
//    rate that is too high), and fail_fraction crash at a uniformly drawn step (their
//    report there has no value and the process exits);
//  - a step of configuration i lasts median_step_seconds · LogNormal(0, step_sigma)
//    (model size, batch size) times a per-step LogNormal(0, jitter_sigma) jitter.
#pragma once

#include <cstdint>
#include <vector>

namespace gpusweep::bench {

struct WorkloadSpec {
  int configurations = 729;
  int max_steps = 81;
  std::uint64_t seed = 1;
  double median_step_seconds = 60;
  double step_sigma = 0.5;
  double jitter_sigma = 0.1;
  double noise_sd = 0.005;
  double diverge_fraction = 0.05;
  double fail_fraction = 0.02;
};

class Workload {
 public:
  int configurations() const { return configurations_; }
  int max_steps() const { return max_steps_; }
  // Value reported after step `step` (1..max_steps) of `config`; NaN from the step at
  // which the configuration crashes on.
  double Value(int config, int step) const { return values_[Index(config, step)]; }
  // Seconds that step `step` of `config` takes.
  double StepSeconds(int config, int step) const { return seconds_[Index(config, step)]; }
  // Step at which `config`'s process crashes (reporting no value); 0 = never.
  int CrashStep(int config) const { return crash_step_[config]; }
  // The best value at max_steps over all configurations: the best reachable value.
  double BestFinal() const { return best_final_; }
  // The best value at max_steps over configurations 0..first − 1 (a smaller pool drawn
  // with the same seed is exactly this prefix).
  double BestFinalOfFirst(int first) const;
  // How many configurations end within `fraction` (e.g. 0.01) of BestFinal().
  int CountWithin(double fraction) const;
  // How many configurations end at a value >= `value` at max_steps.
  int CountAtLeast(double value) const;

  friend Workload MakeWorkload(const WorkloadSpec& spec);

 private:
  std::size_t Index(int config, int step) const {
    return static_cast<std::size_t>(config) * max_steps_ + (step - 1);
  }
  int configurations_ = 0;
  int max_steps_ = 0;
  std::vector<double> values_;
  std::vector<double> seconds_;
  std::vector<int> crash_step_;
  double best_final_ = 0;
};

Workload MakeWorkload(const WorkloadSpec& spec);

}  // namespace gpusweep::bench
