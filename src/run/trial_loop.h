// trial_loop.h — the scheduling loop of one run (see runner.h for the contract).
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
  // `recorded`: every trial in the journal (none left kRunning), ordered by number.
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
    std::optional<Job> job;              // with a scheduler: the job this process runs
    bool pruned = false;                 // the scheduler stopped it
    bool interrupt_sent = false;         // got SIGTERM because gpusweep was interrupted
    bool judged = false;                 // a line with the resource and the metric came
    std::optional<VerdictFile> verdicts; // iterative scheduler: answers to its reports
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

  bool HasWork() const;          // something is queued (or the scheduler has a job)
  // Takes ready trials off the queue (or from the scheduler) while resources allow,
  // writes their files and journals their intent (pending_); a trial that cannot even
  // be prepared is recorded failed and counted in `failed_to_start`.
  Expected<std::vector<PreparedLaunch>> PrepareReady(int& failed_to_start);
  Expected<std::vector<PreparedLaunch>> PrepareScheduled(int& failed_to_start);
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
  // With a scheduler: tells it how the job ended and sets the trial's state from its
  // decision (after Judge decided completed/failed/interrupted).
  void ConcludeJob(Active& active, Events& events);
  void PollMetrics();
  void AbsorbMetrics(Active& active, MetricsBatch batch, std::vector<IntermediateResult>& out,
                     Events& events, Process process = Process::kRunning);
  void ConsultScheduler(Active& active, const MetricsLine& line, Process process, Events& events);
  void Prune(Active& active, const std::string& reason);  // the scheduler stopped it
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
  // Paused trials the scheduler has eliminated for good (a finished round of successive
  // halving) become pruned now, with the scheduler's reason; under cv, running folds of a
  // stopped configuration are stopped, and paused folds of a completed one complete.
  void SettleEliminated();
  // The run ended normally: trials the scheduler left paused will never be promoted.
  void SettlePausedTrials();
  // Cross-validation (trial_cv.cc). Why `configuration` has failed (more folds failed,
  // and are not queued to run again, than cv.allow_failed_folds); nullopt if it has not.
  std::optional<std::string> ConfigurationFailure(int configuration) const;
  // Resuming: queued folds of configurations an earlier run failed are recorded as not
  // run (quietly: that run counted them).
  void SkipFoldsOfFailedConfigurations();
  // Without a scheduler (the fold scheduler does this itself): once `configuration`
  // has failed (more failed folds than cv.allow_failed_folds), its queued folds are
  // recorded as not run and its running folds are stopped; their slots go to others.
  void AbandonFailedConfiguration(int configuration);
  // Runs it for each configuration in to_abandon_ (NotifyFinished fills it; the queue may
  // be walked then).
  void AbandonFailedConfigurations();
  // A fold that will never run, recorded as pruned with `reason` (its configuration's
  // params; an earlier attempt's record kept).
  void RecordNotRun(int number, const std::string& reason, Notice notice);
  // A process the loop stopped without a scheduler's job (cv: its configuration failed)
  // is pruned, with the last value it reported, not failed.
  void PrunedWithoutScheduler(Active& active);
  // max_failures: counts trials, or under cv each configuration once it has finished;
  // under cv without a scheduler a failed fold also puts its configuration in
  // to_abandon_.
  void CountFinished(const TrialRecord& record);
  // Under --retry-failed, whether it runs again: failed, or (cv) not run or stopped
  // because its configuration failed (without a scheduler only cv prunes).
  bool RunsAgainOnRetry(const TrialRecord& record) const;
  // cv: a fold the scheduler dropped before it started (found: its record, if any) is
  // recorded as not run; true if so.
  bool SettledNotStarted(const Decision& decision, const TrialRecord* found);
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
  Scheduler* scheduler_;                // plan_.scheduler; nullptr without one
  Journal& journal_;

  std::vector<TrialRecord> trials_;     // recorded trials, ordered by number
  std::deque<int> queue_;               // trial numbers still to launch, in order
  std::map<ProcessId, Active> active_;
  GpuSlots gpu_slots_;                  // GPUs: sharing, memory checks, quarantine
  int cpu_slots_in_use_ = 0;
  int interrupt_signal_ = 0;            // first interrupt received, 0 if none
  bool warned_never_judged_ = false;
  bool warned_verdict_write_ = false;
  // How often running trials' metrics are read, in seconds: shorter with an iterative
  // scheduler, whose trials may be waiting for the verdict of a report.
  double poll_interval_;
  std::size_t eliminations_settled_ = 0;  // prefix of scheduler_->Eliminated() handled
  std::vector<JournalWrite> pending_;   // this iteration's changes, committed together
  std::vector<std::function<void()>> after_commit_;
  struct InFlightSync {
    std::future<Status> done;
    std::vector<std::function<void()>> notify;  // waits for `done`
  };
  std::deque<InFlightSync> syncs_;  // in commit order
  SerialWorker sync_worker_;        // runs them; declared after syncs_, so joined first
  TrialStager stager_{options_.experiment_dir / "trials"};  // launches ahead: their directories
  FailureBudget failures_;              // max_failures: stops new launches once reached
  std::set<int> configurations_counted_;  // cv: finished configurations failures_ has seen
  std::vector<int> to_abandon_;  // cv without a scheduler: configurations a fold just failed
  std::set<int> retry_queued_;  // --retry-failed: failed (cv: or not run) trials queued again
};

}  // namespace gpusweep
