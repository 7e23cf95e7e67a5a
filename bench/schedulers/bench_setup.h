// bench_setup.h — what the scheduler benchmark compares: its options, the scheduler
// rows, their configs, and running one row on one workload.
#pragma once

#include <string>
#include <vector>

#include "event_sim.h"
#include "gpusweep/scheduler.h"
#include "learning_curves.h"

namespace gpusweep::bench {

struct Options {
  int configurations = 729;  // finite pool of the main table
  int seeds = 10;
  std::vector<int> workers = {4, 16, 64};
  std::vector<int> sweep_sizes = {243, 729, 2187, 6561, 19683};
  int sweep_workers = 16;
  int max_resource = 81;
  // Time-bounded measurement: a pool that never runs out, cut at a fixed virtual time.
  int pool = 20000;
  double horizon_hours = 10;
  std::vector<int> cohorts = {729, 81};  // successive halving's cohort sizes there
};

struct Row {
  std::string name;
  SchedulerKind kind;
  TrialStyle style;
  // > 0: run as consecutive cohorts of this many configurations (repeated_cohorts.h);
  // 0: one scheduler over all the configurations.
  int cohort = 0;
};

// none, median, synchronous SH, ASHA (both styles), Hyperband: each over the whole pool.
const std::vector<Row>& FinitePoolRows();
// The same for the time-bounded measurement, with SH as repeated cohorts of each size.
std::vector<Row> HorizonRows(const std::vector<int>& cohorts);

WorkloadSpec SpecFor(int configurations, int max_resource, int seed);

// Runs `row` on `workload`; a scheduler that cannot be built is reported as a problem.
SimResult RunRow(const Row& row, const Workload& workload, const SimOptions& sim,
                 int max_resource);

}  // namespace gpusweep::bench
