// reattach.h — on resume, jobs a dead controller left running on a cluster are
// followed again instead of being stopped and run twice.
#pragma once

#include <optional>
#include <vector>

#include "gpusweep/scheduler.h"
#include "gpusweep/trial.h"
#include "process/process_runner.h"

namespace gpusweep {

// A trial whose job the process runner follows again: the journal's record (still
// kRunning, same attempt) and the id Wait reports its end under.
struct AttachedJob {
  ProcessId id = 0;
  TrialRecord record;
  bool ended = false;  // finished while nobody watched; its end comes at the first Wait
  // With a scheduler: the job it still counts as running (ReplaySchedulerEvents), and
  // its stop decision when the dead run had already pruned the trial.
  std::optional<Job> job;
  std::optional<Decision> stopped;
};

// Asks `runner` to re-attach every trial of `recorded` left kRunning (ProcessRunner::
// Reattach); those it follows are moved out of `recorded` into the result, the rest stay
// for RecoverAbandonedTrials. The local runner re-attaches nothing.
std::vector<AttachedJob> ReattachJobs(ProcessRunner& runner, std::vector<TrialRecord>& recorded);

}  // namespace gpusweep
