// scheduler_bench — simulates a search under each scheduler on a virtual clock and
// prints Markdown tables (bench/README.md, "schedulers"): a finite pool run to its end,
// the same at growing pool sizes, and a time-bounded run on a pool that never runs out.
// Every scheduler sees the same workloads (same seeds); the real scheduler code comes
// from MakeScheduler.
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_setup.h"
#include "horizon.h"
#include "report.h"

namespace gpusweep::bench {
namespace {

void PrintMainTable(const Options& options) {
  const WorkloadSpec base = SpecFor(options.configurations, options.max_resource, 1);
  // Budgets: the worker-time to train C/27 and C/9 configurations fully at the median
  // step time.
  const double full_run = base.median_step_seconds * options.max_resource;
  const std::vector<double> budgets = {options.configurations / 27.0 * full_run,
                                       options.configurations / 9.0 * full_run};
  const std::vector<std::string> labels = {fmt::format("{:.0f} worker-h", budgets[0] / 3600),
                                           fmt::format("{:.0f} worker-h", budgets[1] / 3600)};
  std::vector<Cell> cells, reference;
  for (int n : options.workers) {
    for (const Row& row : FinitePoolRows()) cells.push_back(Cell{row.name, n, {}});
  }
  double within = 0;
  for (int seed = 1; seed <= options.seeds; ++seed) {
    const Workload workload =
        MakeWorkload(SpecFor(options.configurations, options.max_resource, seed));
    within += workload.CountWithin(0.01);
    std::size_t c = 0;
    for (int n : options.workers) {
      SimOptions sim{n, 0.01, budgets};
      for (const Row& row : FinitePoolRows()) {
        cells[c++].runs.push_back(
            RunRecord{RunRow(row, workload, sim, options.max_resource), workload.BestFinal()});
      }
    }
  }
  for (const Cell& cell : cells) {
    if (cell.row == "none") reference.push_back(cell);
  }
  fmt::print("{} configurations, max_resource {} steps, eta 3, {} seeds "
             "(mean {:.1f} configurations per seed end within 1% of the best)\n\n",
             options.configurations, options.max_resource, options.seeds,
             within / options.seeds);
  fmt::print("{}\n", MainTable(cells, reference, labels));
  const std::string problems = Problems(cells);
  fmt::print("Problems seen: {}\n", problems.empty() ? "none\n" : "\n" + problems);
}

void PrintSweep(const Options& options) {
  std::vector<Cell> cells;
  const int n = options.sweep_workers;
  for (int size : options.sweep_sizes) {
    const std::size_t first = cells.size();
    for (const Row& row : FinitePoolRows()) {
      if (row.kind == SchedulerKind::kMedian) continue;  // its cost grows with size²
      cells.push_back(Cell{fmt::format("{}, {}", row.name, size), n, {}});
    }
    for (int seed = 1; seed <= options.seeds; ++seed) {
      const Workload workload = MakeWorkload(SpecFor(size, options.max_resource, seed));
      SimOptions sim{n, 0.01, {}};
      std::size_t c = first;
      for (const Row& row : FinitePoolRows()) {
        if (row.kind == SchedulerKind::kMedian) continue;
        cells[c++].runs.push_back(
            RunRecord{RunRow(row, workload, sim, options.max_resource), workload.BestFinal()});
      }
    }
  }
  fmt::print("Utilisation against the number of configurations, N = {}:\n\n{}\n", n,
             UtilisationTable(cells));
  const std::string problems = Problems(cells);
  if (!problems.empty()) fmt::print("Problems seen:\n{}\n", problems);
}

}  // namespace
}  // namespace gpusweep::bench

int main(int argc, char** argv) {
  gpusweep::bench::Options options;
  bool no_sweep = false;
  bool no_horizon = false;
  CLI::App app{"Simulated comparison of gpusweep's schedulers (virtual clock)"};
  app.add_option("--configurations", options.configurations, "configurations per seed");
  app.add_option("--seeds", options.seeds, "seeds (workloads) per cell");
  app.add_option("--workers", options.workers, "worker counts")->delimiter(',');
  app.add_option("--sweep-sizes", options.sweep_sizes, "sizes for the utilisation table")
      ->delimiter(',');
  app.add_flag("--no-sweep", no_sweep, "skip the utilisation-versus-size table");
  app.add_option("--pool", options.pool, "configurations of the time-bounded runs");
  app.add_option("--horizon-hours", options.horizon_hours,
                 "virtual time at which the time-bounded runs are cut");
  app.add_option("--cohorts", options.cohorts,
                 "successive halving's cohort sizes in the time-bounded runs")
      ->delimiter(',');
  app.add_flag("--no-horizon", no_horizon, "skip the time-bounded table");
  CLI11_PARSE(app, argc, argv);
  gpusweep::bench::PrintMainTable(options);
  if (!no_sweep) gpusweep::bench::PrintSweep(options);
  if (!no_horizon) gpusweep::bench::PrintHorizonTable(options);
  return 0;
}
