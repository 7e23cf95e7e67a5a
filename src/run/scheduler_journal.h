// scheduler_journal.h — journaling the calls made to a Scheduler, and replaying them.
//
// A scheduler's state is a function of the calls made to it (see scheduler.h), so the
// run loop journals each call (job_started, report, job_finished, job_interrupted) in
// the same transaction as the trial change it goes with, and a resumed run replays them
// into a fresh scheduler: same state, same decisions, no finished evaluation repeated.
// Event detail fields: "job" {kind, trial, bracket, rung, budget; and params, parent,
// checkpoint when the job carries them}; "resource", "value"
// (null when missing); with several metrics or constraints also "losses" (every
// objective as a loss, null where not finite) and "violation" (null: +inf), which
// replay passes on (run/evaluation.h; journals without them replay the value alone);
// "decision" {bracket, rung, resource, value, verdict, reason}.
#pragma once

#include <map>
#include <optional>
#include <set>
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
// The same with a whole evaluation (scheduler.h): its losses and violation are journaled.
SchedulerEventRecord ReportEvent(int trial, double resource, const Evaluation& evaluation,
                                 const std::optional<Decision>& decision, double time);
SchedulerEventRecord JobFinishedEvent(const Job& job, const Evaluation& evaluation,
                                      const Decision& decision, double time);
SchedulerEventRecord JobInterruptedEvent(const Job& job, double time);
// Not a scheduler call: how a run that ended settled a trial the scheduler left paused
// (it ends pruned). Replay skips it; `show` lists it.
SchedulerEventRecord TrialEndedEvent(int trial, const std::string& reason, double time);

// A job a killed gpusweep left running that this run follows again (a re-attached
// SLURM job): the scheduler still counts it as running.
struct JobInFlight {
  Job job;
  // The scheduler's stop decision on one of its reports, when there was one: the dead
  // run had pruned it (scancel sent) and the job may not have ended yet.
  std::optional<Decision> stopped;
};

struct SchedulerReplay {
  std::vector<SchedulerEventRecord> recovered;  // to journal (job_interrupted events)
  std::map<int, JobInFlight> in_flight;         // by trial number
};

// Replays `events` (in journal order) into `scheduler`. Jobs started but neither
// finished nor interrupted (gpusweep was killed while they ran) are then interrupted,
// except those of the trials in `followed` (their jobs are re-attached): those stay
// running for the scheduler and are returned in `in_flight`, so their later reports
// and ends reach it as if gpusweep had never died. `recovered` records the
// interruptions and must be journaled by the caller.
// Error{kJournal} when an event's detail is malformed.
Expected<SchedulerReplay> ReplaySchedulerEvents(JobCalls& scheduler,
                                                const std::vector<SchedulerEventRecord>& events,
                                                double now, const std::set<int>& followed = {});

// The decision in an event's detail, if it holds one (for `show`).
std::optional<Decision> DecisionOf(const SchedulerEventRecord& event);

}  // namespace gpusweep
