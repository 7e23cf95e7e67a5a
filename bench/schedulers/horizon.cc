#include "horizon.h"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "report.h"

namespace gpusweep::bench {

void PrintHorizonTable(const Options& options) {
  const double horizon = options.horizon_hours * 3600;
  const std::vector<Row> rows = HorizonRows(options.cohorts);
  std::vector<Cell> cells;
  for (int n : options.workers) {
    for (const Row& row : rows) cells.push_back(Cell{row.name, n, {}});
  }
  double reaching_target = 0;
  int ended_early = 0;  // runs that stopped before the horizon: the pool ran out
  for (int seed = 1; seed <= options.seeds; ++seed) {
    const Workload workload = MakeWorkload(SpecFor(options.pool, options.max_resource, seed));
    // The main table's target: the finite pool is this pool's prefix (same seed).
    const double reference = workload.BestFinalOfFirst(options.configurations);
    reaching_target += workload.CountAtLeast(reference * (1 - 0.01));
    std::size_t c = 0;
    for (int n : options.workers) {
      SimOptions sim{n, 0.01, {}, horizon, reference};
      for (const Row& row : rows) {
        SimResult result = RunRow(row, workload, sim, options.max_resource);
        ended_early += !result.cut_at_horizon;
        cells[c++].runs.push_back(RunRecord{std::move(result), workload.BestFinal()});
      }
    }
  }
  std::vector<Cell> reference;
  for (const Cell& cell : cells) {
    if (cell.row == "none") reference.push_back(cell);
  }
  fmt::print("Time-bounded: pool of {} configurations, every run cut at {:g} h, {} seeds; "
             "target as in the finite-pool table (within 1% of the best of the first {}), "
             "reached by a mean {:.1f} configurations of the pool; runs that ran out of "
             "configurations before the horizon: {}\n\n",
             options.pool, options.horizon_hours, options.seeds, options.configurations,
             reaching_target / options.seeds, ended_early);
  fmt::print("{}\n", HorizonTable(cells, reference, horizon));
  const std::string problems = Problems(cells);
  fmt::print("Problems seen: {}\n", problems.empty() ? "none\n" : "\n" + problems);
}

}  // namespace gpusweep::bench
