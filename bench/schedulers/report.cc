#include "report.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace gpusweep::bench {
namespace {

constexpr double kHour = 3600;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class F>
double MedianOf(const Cell& cell, F metric) {
  std::vector<double> values;
  for (const RunRecord& run : cell.runs) values.push_back(metric(run));
  return Median(values);
}

// Percent below the best reachable value (regret); +inf when no value.
double RegretPercent(double value, double best) {
  if (std::isnan(value)) return kInf;
  return 100.0 * (best - value) / best;
}

std::string Hours(double seconds) {
  return std::isinf(seconds) ? "never" : fmt::format("{:.1f}", seconds / kHour);
}

std::string Regret(double percent) {
  return std::isinf(percent) ? "none done" : fmt::format("{:.2f}%", percent);
}

const Cell* ReferenceFor(const std::vector<Cell>& reference, int workers) {
  for (const Cell& cell : reference) {
    if (cell.workers == workers) return &cell;
  }
  return nullptr;
}

// Median over seeds of none's time to target divided by this cell's: 0 in a seed where
// only none found it. `censor` (a horizon) stands for none's time where it never found
// it: the ratio is then a lower bound, and 1 if neither found it.
double MedianSpeedUp(const Cell& cell, const Cell& none, double censor = kInf) {
  std::vector<double> ratios;
  for (std::size_t s = 0; s < cell.runs.size() && s < none.runs.size(); ++s) {
    const double mine = cell.runs[s].result.time_to_target;
    const double theirs = none.runs[s].result.time_to_target;
    if (std::isinf(mine)) {
      ratios.push_back(std::isinf(theirs) && !std::isinf(censor) ? 1.0 : 0.0);
    } else {
      ratios.push_back(std::min(theirs, censor) / mine);
    }
  }
  return Median(ratios);
}

// The speed-up column: "≥" when none missed the target in at least one seed.
std::string SpeedUpText(const Cell& cell, const Cell* none, double horizon) {
  if (!none) return "—";
  bool censored = false;
  for (const RunRecord& run : none->runs) censored |= std::isinf(run.result.time_to_target);
  return fmt::format("{}{:.1f}×", censored ? "≥ " : "", MedianSpeedUp(cell, *none, horizon));
}

int SeedsFound(const Cell& cell) {
  int found = 0;
  for (const RunRecord& run : cell.runs) found += !std::isinf(run.result.time_to_target);
  return found;
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  if (values.size() % 2 == 1) return values[mid];
  if (std::isinf(values[mid])) return values[mid];
  return (values[mid - 1] + values[mid]) / 2;
}

std::string MainTable(const std::vector<Cell>& cells, const std::vector<Cell>& reference,
                      const std::vector<std::string>& budget_labels) {
  std::string out = "| scheduler | N | utilisation | util. until last launch | "
                    "time to target (h) | speed-up vs none | found | ";
  std::string rule = "|---|--:|--:|--:|--:|--:|--:|";
  for (const std::string& label : budget_labels) {
    out += fmt::format("regret @ {} | ", label);
    rule += "--:|";
  }
  out += "last launch (h) | makespan (h) | worker-h | started | complete / stopped / paused |\n";
  out += rule + "--:|--:|--:|--:|--:|\n";
  for (const Cell& cell : cells) {
    const int n = cell.workers;
    const Cell* none = ReferenceFor(reference, n);
    out += fmt::format(
        "| {} | {} | {:.1f}% | {:.1f}% | {} | {} | {}/{} | ", cell.row, n,
        100 * MedianOf(cell, [n](const RunRecord& r) { return r.result.Utilisation(n); }),
        100 * MedianOf(cell, [n](const RunRecord& r) {
          return r.result.UtilisationUntilLastLaunch(n);
        }),
        Hours(MedianOf(cell, [](const RunRecord& r) { return r.result.time_to_target; })),
        none ? fmt::format("{:.1f}×", MedianSpeedUp(cell, *none)) : "—", SeedsFound(cell),
        cell.runs.size());
    for (std::size_t k = 0; k < budget_labels.size(); ++k) {
      out += Regret(MedianOf(cell, [k](const RunRecord& r) {
               return RegretPercent(r.result.best_at_budget[k], r.best_final);
             })) + " | ";
    }
    out += fmt::format(
        "{:.1f} | {:.1f} | {:.0f} | {:.0f} | {:.0f} / {:.0f} / {:.0f} |\n",
        MedianOf(cell, [](const RunRecord& r) { return r.result.last_launch; }) / kHour,
        MedianOf(cell, [](const RunRecord& r) { return r.result.makespan; }) / kHour,
        MedianOf(cell, [](const RunRecord& r) { return r.result.busy; }) / kHour,
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.started; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.completed; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.stopped; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.paused; }));
  }
  return out;
}

std::string HorizonTable(const std::vector<Cell>& cells, const std::vector<Cell>& reference,
                         double horizon_seconds) {
  const std::string hours = fmt::format("{:g} h", horizon_seconds / kHour);
  std::string out = fmt::format(
      "| scheduler | N | utilisation over [0, {0}] | time to target (h) | speed-up vs none "
      "| found | regret @ {0} | worker-h | started | complete / stopped / paused |\n"
      "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", hours);
  for (const Cell& cell : cells) {
    const int n = cell.workers;
    const double h = horizon_seconds;
    out += fmt::format(
        "| {} | {} | {:.1f}% | {} | {} | {}/{} | {} | {:.0f} | {:.0f} | "
        "{:.0f} / {:.0f} / {:.0f} |\n",
        cell.row, n,
        100 * MedianOf(cell, [n, h](const RunRecord& r) { return r.result.UtilisationOver(n, h); }),
        Hours(MedianOf(cell, [](const RunRecord& r) { return r.result.time_to_target; })),
        SpeedUpText(cell, ReferenceFor(reference, n), h), SeedsFound(cell), cell.runs.size(),
        Regret(MedianOf(cell, [](const RunRecord& r) {
          return RegretPercent(r.result.best_value, r.best_final);
        })),
        MedianOf(cell, [](const RunRecord& r) { return r.result.busy; }) / kHour,
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.started; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.completed; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.stopped; }),
        MedianOf(cell, [](const RunRecord& r) { return 1.0 * r.result.paused; }));
  }
  return out;
}

std::string UtilisationTable(const std::vector<Cell>& cells) {
  std::string out = "| scheduler, configurations | N | utilisation | "
                    "util. until last launch | makespan (h) |\n|---|--:|--:|--:|--:|\n";
  for (const Cell& cell : cells) {
    const int n = cell.workers;
    out += fmt::format(
        "| {} | {} | {:.1f}% | {:.1f}% | {:.1f} |\n", cell.row, n,
        100 * MedianOf(cell, [n](const RunRecord& r) { return r.result.Utilisation(n); }),
        100 * MedianOf(cell, [n](const RunRecord& r) {
          return r.result.UtilisationUntilLastLaunch(n);
        }),
        MedianOf(cell, [](const RunRecord& r) { return r.result.makespan; }) / kHour);
  }
  return out;
}

std::string Problems(const std::vector<Cell>& cells) {
  std::string out;
  for (const Cell& cell : cells) {
    std::size_t count = 0, seeds = 0;
    std::string example;
    for (std::size_t s = 0; s < cell.runs.size(); ++s) {
      const auto& problems = cell.runs[s].result.problems;
      if (problems.empty()) continue;
      count += problems.size();
      ++seeds;
      if (example.empty()) example = fmt::format("seed {}, {}", s + 1, problems.front());
    }
    if (count == 0) continue;
    out += fmt::format("- {}, N={}: {} in {} of {} seeds; first: {}\n", cell.row,
                       cell.workers, count, seeds, cell.runs.size(), example);
  }
  return out;
}

}  // namespace gpusweep::bench
