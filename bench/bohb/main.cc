// bohb_bench — BOHB against Hyperband, ASHA and TPE on a multi-fidelity workload whose
// results depend on the params (bench/README.md, "bohb/run.sh"; workload.h, simulate.h).
//
// For each method and seed: one simulated run of the policy gpusweep's run loop would
// build (the same Make* calls as src/run/run_plan.cc), cut at the horizon. Prints, per
// method, the median over seeds of the incumbent's regret at three times, the median
// time to reach a regret target, and in how many seeds BOHB's regret at the horizon is
// no worse than the method's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpusweep/policy.h"
#include "gpusweep/sampler.h"
#include "gpusweep/scheduler.h"
#include "simulate.h"
#include "workload.h"

namespace gpusweep::bench {
namespace {

struct Options {
  int seeds = 20;
  int workers = 8;
  double horizon_trainings = 40;  // virtual time, in full trainings (R steps)
  double target = 0.05;           // regret target
  int trials = 6000;              // sampler pool; no method should use it up
};

using PolicyMaker = std::function<std::unique_ptr<SearchPolicy>(std::uint64_t seed)>;

struct Method {
  std::string name;
  PolicyMaker make;
};

SchedulerConfig Rungs(SchedulerKind kind, const MultiFidelityWorkload& workload) {
  SchedulerConfig config;
  config.kind = kind;
  config.resource = "epoch";
  config.min_resource = 1;
  config.max_resource = workload.max_resource;
  config.reduction_factor = 3;
  return config;
}

std::unique_ptr<Sampler> SamplerOf(SamplerKind kind, const Options& options,
                                   const MultiFidelityWorkload& workload, std::uint64_t seed,
                                   bool bohb_tpe = false) {
  SamplerConfig config;
  config.kind = kind;
  config.trials = options.trials;
  config.seed = seed;
  if (bohb_tpe) {  // as config/bohb_check.cc sets tpe up under bohb
    config.tpe.n_startup_trials = 1;
    config.tpe.multivariate = true;
  }
  auto sampler = MakeSampler(config, workload.space, Mode::kMax);
  if (!sampler) throw std::runtime_error(sampler.error().message);
  return std::move(*sampler);
}

std::unique_ptr<Scheduler> SchedulerOf(const SchedulerConfig& config, const Options& options) {
  auto scheduler = MakeScheduler(config, Mode::kMax, options.trials, TrialStyle::kBudgeted);
  if (!scheduler) throw std::runtime_error(scheduler.error().message);
  return std::move(*scheduler);
}

std::vector<Method> Methods(const Options& o, const MultiFidelityWorkload& w) {
  auto scheduled = [&o, &w](SchedulerKind scheduler, SamplerKind sampler) -> PolicyMaker {
    return [&o, &w, scheduler, sampler](std::uint64_t seed) {
      return MakeScheduledPolicy(SamplerOf(sampler, o, w, seed), SchedulerOf(Rungs(scheduler, w), o));
    };
  };
  return {
      {"bohb (tpe)",
       [&o, &w](std::uint64_t seed) {
         const SchedulerConfig config = Rungs(SchedulerKind::kBohb, w);
         return MakeBohbPolicy(SamplerOf(SamplerKind::kTpe, o, w, seed, true), SchedulerOf(config, o),
                               TrialStyle::kBudgeted, config, w.space, seed);
       }},
      {"hyperband + random", scheduled(SchedulerKind::kHyperband, SamplerKind::kRandom)},
      {"hyperband + tpe", scheduled(SchedulerKind::kHyperband, SamplerKind::kTpe)},
      {"asha + random", scheduled(SchedulerKind::kAsha, SamplerKind::kRandom)},
      {"asha + tpe", scheduled(SchedulerKind::kAsha, SamplerKind::kTpe)},
      {"tpe, full budget", [&o, &w](std::uint64_t seed) {
         return MakeSweepPolicy(SamplerOf(SamplerKind::kTpe, o, w, seed));
       }},
      {"random, full budget", [&o, &w](std::uint64_t seed) {
         return MakeSweepPolicy(SamplerOf(SamplerKind::kRandom, o, w, seed));
       }},
  };
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double TimeToTarget(const SimulationResult& result, double target) {
  for (const Incumbent& incumbent : result.incumbents)
    if (incumbent.regret <= target) return incumbent.time;
  return std::numeric_limits<double>::infinity();
}

// Spearman correlation of the value after one step with a(x), over random configurations.
double LowFidelityRankCorrelation(const MultiFidelityWorkload& w, const Options& o) {
  auto sampler = SamplerOf(SamplerKind::kRandom, o, w, 99);
  const int n = 2000;
  std::vector<double> low, high;
  for (int k = 0; k < n; ++k) {
    const Params p = sampler->Suggest(k, {}).params;
    low.push_back(w.Value(p, 1, 99, k));
    high.push_back(w.Final(p));
  }
  auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size(); ++i) r[order[i]] = static_cast<double>(i);
    return r;
  };
  const std::vector<double> a = ranks(low), b = ranks(high);
  double d2 = 0;
  for (int i = 0; i < n; ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  return 1 - 6 * d2 / (static_cast<double>(n) * (static_cast<double>(n) * n - 1));
}

std::string Hours(double t, const MultiFidelityWorkload& w) {
  return std::isfinite(t) ? fmt::format("{:.1f}", t / w.max_resource) : "not reached";
}

int Run(const Options& o) {
  const MultiFidelityWorkload w;
  const double horizon = o.horizon_trainings * w.max_resource;
  const std::vector<double> at = {horizon / 9, horizon / 3, horizon};
  std::printf("workload: Hartmann-6 learning curves, R = %g, eta = 3; Spearman(value at 1 step, a(x)) = %.2f\n",
              w.max_resource, LowFidelityRankCorrelation(w, o));
  std::printf("%d workers, horizon %g full trainings, %d seeds; regret = 1 - a(incumbent)\n\n",
              o.workers, o.horizon_trainings, o.seeds);
  std::printf("| method | regret @ %.1f | regret @ %.1f | regret @ %.1f | mean regret @ %.1f | time to regret <= %g | reached | BOHB no worse @ %.1f | configurations | ran out |\n",
              at[0] / w.max_resource, at[1] / w.max_resource, at[2] / w.max_resource,
              at[2] / w.max_resource, o.target, at[2] / w.max_resource);
  std::printf("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
  const std::vector<Method> methods = Methods(o, w);
  std::vector<double> bohb_final;
  for (const Method& method : methods) {
    std::vector<std::vector<double>> regrets(at.size());
    std::vector<double> times, configurations;
    int reached = 0, ran_out = 0, bohb_no_worse = 0;
    for (int s = 0; s < o.seeds; ++s) {
      const std::uint64_t seed = 1000 + s;
      auto policy = method.make(seed);
      const SimulationResult result = Simulate(*policy, w, seed, o.workers, horizon);
      for (std::size_t i = 0; i < at.size(); ++i) regrets[i].push_back(RegretAt(result, at[i]));
      const double t = TimeToTarget(result, o.target);
      times.push_back(t);
      reached += std::isfinite(t) ? 1 : 0;
      ran_out += result.ran_out ? 1 : 0;
      configurations.push_back(result.started);
      if (&method == &methods.front()) bohb_final.push_back(regrets.back().back());
      bohb_no_worse += bohb_final[s] <= regrets.back().back() + 1e-12 ? 1 : 0;
    }
    double mean = 0;
    for (double r : regrets.back()) mean += r / o.seeds;
    std::printf("| %s | %.4f | %.4f | %.4f | %.4f | %s | %d/%d | %d/%d | %.0f | %d |\n", method.name.c_str(),
                Median(regrets[0]), Median(regrets[1]), Median(regrets[2]), mean,
                Hours(Median(times), w).c_str(), reached, o.seeds, bohb_no_worse, o.seeds,
                Median(configurations), ran_out);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace gpusweep::bench

int main(int argc, char** argv) {
  gpusweep::bench::Options o;
  CLI::App app{"BOHB against Hyperband, ASHA and TPE on simulated multi-fidelity trials"};
  app.add_option("--seeds", o.seeds, "runs per method")->check(CLI::PositiveNumber);
  app.add_option("--workers", o.workers, "parallel workers")->check(CLI::PositiveNumber);
  app.add_option("--horizon", o.horizon_trainings, "virtual time, in full trainings")
      ->check(CLI::PositiveNumber);
  app.add_option("--target", o.target, "regret target for the time-to-target column");
  app.add_option("--trials", o.trials, "sampler pool per run")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  return gpusweep::bench::Run(o);
}
