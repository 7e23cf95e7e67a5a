#include "bench_setup.h"

#include <limits>

#include <fmt/format.h>

#include "repeated_cohorts.h"

namespace gpusweep::bench {
namespace {

SchedulerConfig ConfigFor(const Row& row, int max_resource) {
  SchedulerConfig config;
  config.kind = row.kind;
  config.min_resource = 1;
  config.max_resource = max_resource;  // the median rule makes no decision there
  config.reduction_factor = 3;
  config.grace_steps = 3;
  config.min_trials = 3;
  return config;
}

SimResult Failed(const SimOptions& sim, const std::string& message) {
  SimResult failed;
  failed.best_at_budget.assign(sim.budgets.size(), std::numeric_limits<double>::quiet_NaN());
  failed.problems.push_back("MakeScheduler failed: " + message);
  return failed;
}

}  // namespace

const std::vector<Row>& FinitePoolRows() {
  static const std::vector<Row> rows = {
      {"none", SchedulerKind::kNone, TrialStyle::kIterative},
      {"median", SchedulerKind::kMedian, TrialStyle::kIterative},
      {"successive_halving (sync, budgeted)", SchedulerKind::kSuccessiveHalving,
       TrialStyle::kBudgeted},
      {"asha", SchedulerKind::kAsha, TrialStyle::kIterative},
      {"asha (budgeted)", SchedulerKind::kAsha, TrialStyle::kBudgeted},
      {"hyperband", SchedulerKind::kHyperband, TrialStyle::kIterative},
  };
  return rows;
}

std::vector<Row> HorizonRows(const std::vector<int>& cohorts) {
  std::vector<Row> rows;
  for (const Row& row : FinitePoolRows()) {
    if (row.kind != SchedulerKind::kSuccessiveHalving) {
      rows.push_back(row);
      continue;
    }
    for (int size : cohorts) {
      rows.push_back(Row{fmt::format("successive_halving (sync, budgeted), cohorts of {}", size),
                         row.kind, row.style, size});
    }
  }
  return rows;
}

WorkloadSpec SpecFor(int configurations, int max_resource, int seed) {
  WorkloadSpec spec;
  spec.configurations = configurations;
  spec.max_steps = max_resource;
  spec.seed = static_cast<std::uint64_t>(seed);
  return spec;
}

SimResult RunRow(const Row& row, const Workload& workload, const SimOptions& sim,
                 int max_resource) {
  const int configurations = workload.configurations();
  if (row.kind == SchedulerKind::kNone) {
    auto none = MakeRunEveryTrialToEnd(configurations, max_resource);
    return Simulate(*none, workload, sim);
  }
  const SchedulerConfig config = ConfigFor(row, max_resource);
  const int first_size = row.cohort > 0 ? row.cohort : configurations;
  auto made = MakeScheduler(config, Mode::kMax, first_size, row.style);
  if (!made) return Failed(sim, made.error().message);
  std::unique_ptr<Scheduler> scheduler = std::move(*made);
  if (row.cohort > 0) {
    auto factory = [config, style = row.style](int size) {
      return std::move(*MakeScheduler(config, Mode::kMax, size, style));
    };
    scheduler = MakeRepeatedCohorts(factory, row.cohort, configurations);
  }
  return Simulate(*scheduler, workload, sim);
}

}  // namespace gpusweep::bench
