// scheduler_journal.h — journaling the calls made to a Scheduler, and replaying them.
//
// A scheduler's state is a function of the calls made to it (see scheduler.h), so the
// run loop journals each call (job_started, report, job_finished, job_interrupted) in
// the same transaction as the trial change it goes with, and a resumed run replays them
// into a fresh scheduler: same state, same decisions, no finished evaluation repeated.
// Event detail fields: "job" {kind, trial, bracket, rung, budget}; "resource", "value"
// (null when missing); "decision" {bracket, rung, resource, value, verdict, reason}.
#pragma once

#include <optional>
#include <vector>

#include "gpusweep/journal.h"
#include "gpusweep/scheduler.h"
#include "gpusweep/status.h"

namespace gpusweep {

SchedulerEventRecord JobStartedEvent(const Job& job, double time);
SchedulerEventRecord ReportEvent(int trial, double resource, std::optional<double> value,
                                 const std::optional<Decision>& decision, double time);
SchedulerEventRecord JobFinishedEvent(const Job& job, std::optional<double> value,
                                      const Decision& decision, double time);
SchedulerEventRecord JobInterruptedEvent(const Job& job, double time);
// Not a scheduler call: how a run that ended settled a trial the scheduler left paused
// (it ends pruned). Replay skips it; `show` lists it.
SchedulerEventRecord TrialEndedEvent(int trial, const std::string& reason, double time);

// Replays `events` (in journal order) into `scheduler`. Jobs started but neither
// finished nor interrupted (gpusweep was killed while they ran) are then interrupted;
// the returned events record that and must be journaled by the caller.
// Error{kJournal} when an event's detail is malformed.
Expected<std::vector<SchedulerEventRecord>> ReplaySchedulerEvents(
    Scheduler& scheduler, const std::vector<SchedulerEventRecord>& events, double now);

// The decision in an event's detail, if it holds one (for `show`).
std::optional<Decision> DecisionOf(const SchedulerEventRecord& event);

}  // namespace gpusweep
