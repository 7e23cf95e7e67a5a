// horizon.h — the time-bounded measurement (as in the ASHA paper, Li et al., MLSys 2020):
// a pool of configurations that never runs out, every run cut at the same virtual time.
#pragma once

#include "bench_setup.h"

namespace gpusweep::bench {

// Simulates HorizonRows(options.cohorts) × options.workers × options.seeds on pools of
// options.pool configurations cut at options.horizon_hours; prints the Markdown table.
void PrintHorizonTable(const Options& options);

}  // namespace gpusweep::bench
