// simulate.h — one run of a search policy on the BOHB benchmark's workload, on a virtual
// clock with a fixed number of workers (bench/README.md, "bohb/run.sh").
//
// A free worker asks NextJob(); kStart (params from Suggest(k, history), history being
// every trial started so far as the journal would hold it) or kPromote → JobStarted and
// the worker is busy for the job's budget minus the steps the trial already trained (a
// promotion resumes from the trial's checkpoint; a policy without budgets trains R
// steps); kWait/kDone → the worker idles until the next job ends. When a job ends, the
// policy gets OnJobFinished with the workload's value at the job's budget. The run stops
// at `horizon` (virtual time, in steps) or when nothing is left to run.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpusweep/policy.h"
#include "workload.h"

namespace gpusweep::bench {

struct Incumbent {
  double time = 0;    // when it became the incumbent (steps of virtual time)
  double regret = 1;  // 1 - a(x) of the trial with the best value reported at R so far
};

struct SimulationResult {
  // In time order. The incumbent is chosen by its noisy value, so a new one can have a
  // larger regret than the last.
  std::vector<Incumbent> incumbents;
  int started = 0;                    // configurations started
  bool ran_out = false;               // the policy had nothing left before the horizon
  double busy = 0;                    // worker-steps spent
};

SimulationResult Simulate(SearchPolicy& policy, const MultiFidelityWorkload& workload,
                          std::uint64_t seed, int workers, double horizon);

// The regret of `result` at virtual time `t` (1 before any trial reached R).
double RegretAt(const SimulationResult& result, double t);

}  // namespace gpusweep::bench
