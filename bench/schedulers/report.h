// report.h — medians over seeds and the Markdown tables the scheduler benchmark prints.
#pragma once

#include <string>
#include <vector>

#include "event_sim.h"

namespace gpusweep::bench {

// One simulated run, with what is needed to judge it against its workload.
struct RunRecord {
  SimResult result;
  double best_final = 0;  // Workload::BestFinal() of the run's seed
};

// All seeds of one (scheduler row, worker count).
struct Cell {
  std::string row;  // e.g. "asha (iterative)"
  int workers = 0;
  std::vector<RunRecord> runs;  // one per seed, in seed order
};

double Median(std::vector<double> values);

// The main table: one line per cell; `reference` holds, per worker count, the cell of
// scheduler none (the speed-up column divides by its time to target, seed by seed).
// `budget_labels` name SimOptions::budgets for the column headers.
std::string MainTable(const std::vector<Cell>& cells, const std::vector<Cell>& reference,
                      const std::vector<std::string>& budget_labels);

// The time-bounded table: like MainTable, with utilisation over [0, horizon] (busy
// worker-time ÷ (N × horizon)) and the regret of the best value reported at
// max_resource by the horizon. A seed where none never reaches the target counts its
// time as the horizon, so the speed-up there is a lower bound (marked "≥").
std::string HorizonTable(const std::vector<Cell>& cells, const std::vector<Cell>& reference,
                         double horizon_seconds);

// The utilisation-versus-size table: one line per cell (Cell::row names the size too).
std::string UtilisationTable(const std::vector<Cell>& cells);

// The problems seen, one line per cell that had any: how many, in how many seeds, and
// the first one ("" if none).
std::string Problems(const std::vector<Cell>& cells);

}  // namespace gpusweep::bench
