// trial_loop.h — the loop of one run: resources (GPU pool, CPU slots), processes (any
// ProcessRunner: local or SLURM), the journal, deadlines and signals. What runs next,
// with which params and budget, and what a report or an end means is the search
// policy's (gpusweep/policy.h, plan.policy); the loop has no notion of the kind of
// experiment. See runner.h for the contract of a run.
#pragma once

#include <deque>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpusweep/experiment.h"
#include "gpusweep/journal.h"
#include "run/experiment_watch.h"
#include "run/failure_budget.h"
#include "run/gpu_slots.h"
#include "run/kept_trials.h"
#include "run/metrics_reader.h"
#include "run/reattach.h"
#include "run/run_plan.h"
#include "run/serial_worker.h"
#include "run/runner.h"
#include "run/trial_env.h"
#include "run/trial_stager.h"
#include "run/verdict_file.h"

namespace gpusweep {

class TrialLoop {
 public:
  // `recorded`: every trial in the journal (none left kRunning), ordered by number, as
  // KeptTrials keeps them (KeptTrials::Load).
  // `attached`: running jobs of a dead earlier run that the process runner follows
  // again (ReattachJobs); the loop supervises them as if it had started them.
  TrialLoop(const ExperimentConfig& config, const RunOptions& options, RunServices& services,
            RunObserver& observer, const RunPlan& plan, Journal& journal,
            std::vector<TrialRecord> recorded, const ExperimentWatch* watch = nullptr,
            std::vector<AttachedJob> attached = {});

  RunInfo Info(bool resumed) const;
  // Runs until the queue is empty and every trial has finished. Error{kInterrupted}
  // after an interrupt (all trials stopped and recorded first); a journal error stops
  // the run (the process runner kills what is left when it is destroyed).
  Status Run();
  const std::vector<TrialRecord>& trials() const { return trials_; }
  // The records, moved out when the run is over (a copy of 100,000 was 35 MB more at the
  // run's peak); the loop is not run again after.
  std::vector<TrialRecord> TakeTrials() && { return std::move(trials_); }

 private:
  // A trial whose process is running.
  struct Active {
    ProcessId pid = 0;
    TrialRecord record;
    MetricsReader metrics;
    std::vector<MetricsLine> lines;      // everything this attempt reported so far
    std::optional<double> deadline;      // monotonic seconds; timeout
    std::optional<double> kill_at;       // monotonic seconds; SIGKILL after the grace period
    bool killed = false;                 // SIGKILL sent
    std::string stop_reason;             // why gpusweep stopped it ("timed out after 20m")
    std::optional<Job> job;              // the policy's job this process runs (always set)
    bool pruned = false;                 // the scheduler stopped it
    bool interrupt_sent = false;         // got SIGTERM because gpusweep was interrupted
    bool judged = false;                 // a line with the resource and the metric came
    std::optional<VerdictFile> verdicts; // iterative scheduler: answers to its reports
    int metrics_warnings = 0;            // lines skipped or trimmed in this attempt
    std::string first_warning;           // the first: why, kept with the trial
  };
  using Events = std::vector<SchedulerEventRecord>;
  // A trial whose intent is in pending_, to spawn once that is committed.
  struct PreparedLaunch {
    TrialRecord record;
    SpawnRequest request;
    std::optional<Job> job;
    std::filesystem::path dir;
    std::optional<VerdictFile> verdicts;
  };
  // Whether the observer hears of it and max_failures counts it (not for what an
  // earlier run left decided).
  enum class Notice { kNotify, kQuiet };
  // Whether the job's "started" event is already in the journal (in the intent).
  enum class JobJournaled { kNo, kYes };
  // kExited: lines read after the process ended; a stop decision then comes too late
  // to save anything and the trial keeps the result it finished with.
  enum class Process { kRunning, kExited };

  bool HasWork() const;          // the policy has a job to start
  // Takes the policy's jobs while resources allow, writes their files and journals
  // their intent (pending_); a trial that cannot even be prepared is recorded failed
  // and counted in `failed_to_start`.
  Expected<std::vector<PreparedLaunch>> PrepareReady(int& failed_to_start);
  std::optional<std::vector<int>> AcquireResources(int number, int gpus_needed);
  void ReleaseResources(const TrialRecord& record, GpuPool::TrialRan ran = GpuPool::TrialRan::kNo);
  std::optional<PreparedLaunch> Prepare(int number, std::vector<int> gpus,
                                        const std::optional<Job>& job);
  // Only after its intent was committed. The observer hears of the start after the
  // finishes that made room for it (reaped last iteration, heard once this commit's
  // fsync is done), so events are heard in the order they happened.
  Status Spawn(PreparedLaunch launch);
  // Supervises a re-attached job (trial_attach.cc): its resources, its deadline from
  // its start time, and the metrics lines the journal does not hold yet.
  void Attach(AttachedJob job);
  void FailBeforeStart(TrialRecord record, const std::string& reason,
                       const std::optional<Job>& job, JobJournaled journaled);
  // The experiment directory and journal are still the ones the run started with;
  // otherwise stops every trial (SIGTERM, grace, SIGKILL) and returns the error.
  Status CheckExperiment();
  // `failed`, a journal error, unless CheckExperiment explains it (then that error).
  Status ExplainJournalFailure(Status failed);
  // One transaction for everything in pending_; with kNow also the observer calls that
  // waited for it (after_commit_), else those wait for the StartSync that follows.
  Status Commit(Durability durability = Durability::kNow);
  // Starts the fsync of the last kAtSync commit on another thread; its observer calls
  // are made by FinishSyncs once it is done (kDone: those done now; kAll: waits).
  Status StartSync();
  enum class SyncWait { kDone, kAll };
  Status FinishSyncs(SyncWait wait);
  void Notify(std::vector<std::function<void()>> calls);
  void Record(JournalWrite::Kind kind, const TrialRecord& record,
              std::vector<IntermediateResult> results = {}, Events events = {});
  void NotifyFinished(const TrialRecord& record);
  void Reap(const ProcessEvent& event);
  void Judge(Active& active, const ProcessExit& exit);
  // Tells the policy how the job ended and sets the trial's state from its decision
  // (after Judge decided completed/failed/interrupted).
  void ConcludeJob(Active& active, Events& events);
  void PollMetrics();
  void AbsorbMetrics(Active& active, MetricsBatch batch, std::vector<IntermediateResult>& out,
                     Events& events, Process process = Process::kRunning);
  // A line with the policy's resource and the metric is a report it judges.
  void ConsultPolicy(Active& active, const MetricsLine& line, Process process, Events& events);
  void Prune(Active& active, const std::string& reason);  // the policy stopped it
  // Answers a judged report in verdicts.jsonl (a trial may be waiting for it).
  void AnswerReport(Active& active, double resource, const std::optional<Decision>& decision);
  // The scheduler's variables for a trial (budget, rung, verdict file, stop points).
  EnvPairs SchedulerEnv(const TrialRecord& record, const std::optional<VerdictFile>& verdicts) const;
  // The metrics file is not a regular file (a FIFO, a directory, /dev/zero): nothing it
  // says can be read, so the trial is stopped (SIGTERM, SIGKILL after the grace period)
  // and fails with `reason`.
  void StopUnreadable(Active& active, const std::string& reason, Process process);
  // Once per run: a trial never reported the scheduler's resource and the metric on
  // one line, so the scheduler could not judge it (a typo in `resource`, or metrics
  // split over several lines).
  void WarnIfNeverJudged(const Active& active);
  // Trials the policy settled (Eliminated()): paused ones become pruned (or completed)
  // with its reason, running ones are stopped, ones not started are recorded not run.
  void SettleEliminated();
  // The run ended normally: trials the policy left paused will never be promoted.
  void SettlePausedTrials();
  // A trial the policy dropped before it started (found: its record, if any) is
  // recorded as not run; true if so.
  bool SettledNotStarted(const Decision& decision, const TrialRecord* found);
  // A trial that will never run, recorded as pruned with `reason` (the params the
  // policy gives it; an earlier attempt's record kept).
  void RecordNotRun(int number, const std::string& reason, Notice notice);
  void EnforceDeadlines();
  // Stops every running trial (trial_interrupt.cc); those in `exited`, or that the
  // process runner already knows ended (TakeEnded), are reaped first with their outcome.
  void BeginInterrupt(int signal, std::vector<ProcessEvent>& exited);
  double WaitTimeout() const;
  void Store(const TrialRecord& record);
  const TrialRecord* Find(int number) const;

  const ExperimentWatch* watch_;        // nullptr: not watched (tests)
  const ExperimentConfig& config_;
  const RunOptions& options_;
  RunServices& services_;
  RunObserver& observer_;
  const RunPlan& plan_;
  SearchPolicy* policy_;                // plan_.policy; never nullptr
  Journal& journal_;

  std::vector<TrialRecord> trials_;     // recorded trials, ordered by number
  std::map<ProcessId, Active> active_;
  GpuSlots gpu_slots_;                  // GPUs: sharing, memory checks, quarantine
  int cpu_slots_in_use_ = 0;
  int interrupt_signal_ = 0;            // first interrupt received, 0 if none
  bool warned_never_judged_ = false;
  bool warned_verdict_write_ = false;
  // How often running trials' metrics are read, in seconds: shorter when the policy
  // judges reports (trials may be waiting for the verdict of a report).
  double poll_interval_;
  std::size_t eliminations_settled_ = 0;  // prefix of policy_->Eliminated() handled
  std::vector<JournalWrite> pending_;   // this iteration's changes, committed together
  std::vector<std::function<void()>> after_commit_;
  struct InFlightSync {
    std::future<Status> done;
    std::vector<std::function<void()>> notify;  // waits for `done`
  };
  std::deque<InFlightSync> syncs_;  // in commit order
  SerialWorker sync_worker_;        // runs them; declared after syncs_, so joined first
  TrialStager stager_{ExperimentFiles{options_.experiment_dir}.trials_dir()};  // launches ahead: their directories
  FailureBudget failures_;              // max_failures: stops new launches once reached
  KeptTrials kept_;                     // what Store keeps of each record (issue 25)
};

}  // namespace gpusweep
