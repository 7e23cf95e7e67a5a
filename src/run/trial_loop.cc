#include "run/trial_loop.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <climits>
#include <csignal>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/render.h"
#include "run/checkpoint_copy.h"
#include "run/evaluation.h"
#include "run/output_tail.h"
#include "run/scheduler_journal.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

// How often running trials' metrics files are read, in seconds. A trial waiting for
// the verdict of a report waits about half the shorter interval on average.
constexpr double kPollInterval = 0.5;
constexpr double kVerdictPollInterval = 0.1;

}  // namespace

TrialLoop::TrialLoop(const ExperimentConfig& config, const RunOptions& options,
                     RunServices& services, RunObserver& observer, const RunPlan& plan,
                     Journal& journal, std::vector<TrialRecord> recorded,
                     const ExperimentWatch* watch, std::vector<AttachedJob> attached)
    : watch_(watch), config_(config), options_(options), services_(services), observer_(observer), plan_(plan),
      policy_(plan.policy.get()), journal_(journal), trials_(std::move(recorded)),
      gpu_slots_(plan.gpus, config.resources, services, observer, pending_),
      poll_interval_(policy_->judges_reports() ? kVerdictPollInterval : kPollInterval),
      failures_(config.max_failures, policy_->failure_words().unit, policy_->failure_words().rerun),
      kept_(*plan.policy, config, options.failed_trials) {
  assert(policy_ != nullptr);
  for (AttachedJob& job : attached) Attach(std::move(job));
  // What an earlier run decided without recording it (e.g. trials that were never to
  // run) is recorded quietly: that run counted it.
  for (const Decision& dropped : policy_->Restore(trials_, options_.failed_trials))
    RecordNotRun(dropped.trial, dropped.reason, Notice::kQuiet);
  // Every trial gets a record, in one allocation: KeptTrials::Load reserved it when it read
  // the trials one at a time; a whole load (LoadTrials) is reserved here.
  trials_.reserve(TrialCapacity(plan_.total_trials()));
}

RunInfo TrialLoop::Info(bool resumed) const {
  RunInfo info;
  info.experiment_dir = options_.experiment_dir;
  info.total_trials = plan_.total_trials();
  info.to_run = policy_->ToRun(trials_);  // re-attached jobs included
  info.already_finished = info.total_trials - info.to_run;
  // Where failed trials are part of the policy's decided history (a scheduler, NAS's
  // evaluations), --retry-failed is refused or passes them by: no hint to use it.
  const auto failed_where = [&](bool retriable) {
    return static_cast<int>(std::count_if(trials_.begin(), trials_.end(), [&](const TrialRecord& t) {
      return t.state == TrialState::kFailed && policy_->Retriable(t) == retriable;
    }));
  };
  if (options_.failed_trials == FailedTrials::kKeep && policy_->AcceptRetryFailed())
    info.failed_kept = failed_where(true);
  if (options_.failed_trials == FailedTrials::kRetry) {
    info.failed_not_retried = failed_where(false);
    info.retry_limits = policy_->failure_words().rerun;
  }
  info.resumed = resumed;
  info.gpus = plan_.gpus;
  info.cpu_slots = plan_.cpu_slots;
  info.concurrency = plan_.concurrency;
  return info;
}

bool TrialLoop::HasWork() const {
  if (failures_.Exhausted()) return false;
  const Job::Kind next = policy_->NextJob({}).kind;
  return next == Job::Kind::kStart || next == Job::Kind::kPromote;
}

Status TrialLoop::Run() {
  SettleEliminated();  // a run killed between a round's end and this record
  while ((HasWork() && interrupt_signal_ == 0) || !active_.empty()) {
    GS_TRY(CheckExperiment());
    gpu_slots_.Tick();  // memory of ended trials' GPUs; a fresh reading before launches
    std::vector<PreparedLaunch> launches;
    int failed_to_start = 0;
    if (interrupt_signal_ == 0) {
      GS_ASSIGN_OR_RETURN(launches, PrepareReady(failed_to_start));
      // The next trials' directories are made while these start and run.
      if (!failures_.Exhausted())
        stager_.StageNext(policy_->Upcoming(static_cast<std::size_t>(plan_.concurrency)),
                          plan_.concurrency);
    }
    // Group commit: what the last iteration saw (results, ends, pids) and the intent to
    // launch `launches`, in one transaction, written before any of them is spawned
    // (a kill -9 of gpusweep cannot lose it). The fsync that makes it safe from a power
    // cut runs while the new trials start; the observer hears of it after.
    GS_TRY(CheckExperiment());
    const bool changed = !pending_.empty() || !after_commit_.empty();
    GS_TRY(Commit(Durability::kAtSync));
    for (PreparedLaunch& launch : launches) GS_TRY(Spawn(std::move(launch)));
    if (changed || !launches.empty()) GS_TRY(StartSync());
    if (interrupt_signal_ == 0 && active_.empty() && launches.empty() && failed_to_start == 0 &&
        !failures_.Exhausted() && !gpu_slots_.Waiting())
      // PlanRun rules this out unless GPUs were quarantined; never spin
      return Fail(ErrorCode::kResource,
                  gpu_slots_.Stuck().value_or(fmt::format(
                      "trial {} can never get its resources", policy_->NextJob({}).trial)));
    // Even when every launch failed at once, Wait (with no time to sleep) is where
    // pending interrupts are noticed.
    WaitOutcome outcome = services_.processes->Wait(
        active_.empty() && !gpu_slots_.Waiting() ? 0.0 : WaitTimeout());
    GS_TRY(FinishSyncs(SyncWait::kDone));
    if (outcome.interrupt_signal != 0) BeginInterrupt(outcome.interrupt_signal, outcome.exited);
    PollMetrics();
    SettleEliminated();  // a report may have settled other trials too
    for (const ProcessEvent& event : outcome.exited) Reap(event);
    EnforceDeadlines();
    observer_.OnTick(trials_);
  }
  GS_TRY(CheckExperiment());
  GS_TRY(FinishSyncs(SyncWait::kAll));
  if (interrupt_signal_ == 0 && failures_.Exhausted()) {
    // Stopped for failures: paused trials stay paused, so a resume can promote them.
    GS_TRY(Commit());
    return failures_.Verdict();
  }
  if (interrupt_signal_ == 0) {
    SettlePausedTrials();
    return Commit();
  }
  JournalWrite interrupted;
  interrupted.kind = JournalWrite::Kind::kAppendEvent;
  interrupted.time = services_.wall_clock();
  interrupted.event_kind = "interrupted";
  interrupted.detail = Json{{"signal", SignalName(interrupt_signal_)}};
  pending_.push_back(std::move(interrupted));
  GS_TRY(Commit());
  return Fail(ErrorCode::kInterrupted,
              fmt::format("interrupted by {}; running trials were stopped and recorded as "
                          "interrupted; run the same command again to resume",
                          SignalName(interrupt_signal_)));
}

Status TrialLoop::CheckExperiment() {
  if (watch_ == nullptr) return {};
  Status intact = watch_->Check();
  if (intact) return {};
  // Like an interrupt, but nothing more can be recorded: SIGTERM, the grace period,
  // then SIGKILL (by the process runner when the run ends).
  for (auto& [pid, active] : active_) services_.processes->SignalGroup(pid, SIGTERM);
  const double give_up = services_.monotonic_clock() + config_.kill_grace_seconds;
  while (services_.processes->running() > 0) {
    const double left = give_up - services_.monotonic_clock();
    if (left <= 0) break;
    services_.processes->Wait(std::min(left, kPollInterval));
  }
  for (auto& [pid, active] : active_) services_.processes->SignalGroup(pid, SIGKILL);
  return intact;
}

// A journal write that fails because the directory was moved or the journal deleted
// under it (SQLite's files or the WAL are gone) says so as CheckExperiment does, not as
// a bare ENOENT: the check between two writes cannot close that race.
Status TrialLoop::ExplainJournalFailure(Status failed) {
  assert(!failed);
  GS_TRY(CheckExperiment());
  return failed;
}

Status TrialLoop::Commit(Durability durability) {
  if (Status applied = journal_.Apply(pending_, durability); !applied)
    return ExplainJournalFailure(std::move(applied));
  pending_.clear();
  if (durability == Durability::kNow) {
    GS_TRY(FinishSyncs(SyncWait::kAll));  // earlier notifications first
    Notify(std::move(after_commit_));
    after_commit_.clear();
  }
  return {};
}

// The fsync runs on another thread while the loop goes on (trials start, the loop
// sleeps); the observer hears of the changes it covers once it is done.
Status TrialLoop::StartSync() {
  Expected<std::function<Status()>> sync = journal_.SyncLater();
  if (!sync) return ExplainJournalFailure(tl::unexpected(std::move(sync.error())));
  syncs_.push_back(InFlightSync{sync_worker_.Submit(std::move(*sync)), std::move(after_commit_)});
  after_commit_.clear();
  return {};
}

Status TrialLoop::FinishSyncs(SyncWait wait) {
  while (!syncs_.empty()) {
    InFlightSync& front = syncs_.front();
    if (wait == SyncWait::kDone &&
        front.done.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return {};
    if (Status synced = front.done.get(); !synced) return ExplainJournalFailure(std::move(synced));
    Notify(std::move(front.notify));
    syncs_.pop_front();
  }
  return {};
}

void TrialLoop::Notify(std::vector<std::function<void()>> calls) {
  for (const auto& call : calls) call();  // the observer hears only of durable changes
}

void TrialLoop::Record(JournalWrite::Kind kind, const TrialRecord& record,
                       std::vector<IntermediateResult> results, Events events) {
  JournalWrite write;
  write.kind = kind;
  write.record = record;
  write.results = std::move(results);
  write.events = std::move(events);
  pending_.push_back(std::move(write));
}

void TrialLoop::NotifyFinished(const TrialRecord& record) {
  if (std::optional<CountedEnd> counted = policy_->CountEnd(record, trials_))
    failures_.Count(counted->record, counted->show);
  after_commit_.push_back([this, record] { observer_.OnTrialFinished(record); });
}

// The policy says which job comes next, told which trials could get their resources:
// a policy that backfills (a plain sweep) passes one that cannot, one that runs in its
// own order (a scheduler) waits for it. Which GPU a trial gets does not depend on the
// trial, so once d GPUs were refused no trial needing d or more gets them this
// iteration; a CPU trial needs a free CPU slot.
Expected<std::vector<TrialLoop::PreparedLaunch>> TrialLoop::PrepareReady(int& failed_to_start) {
  std::vector<PreparedLaunch> launches;
  int gpus_short = INT_MAX;  // the fewest GPUs a job was refused this iteration
  const CanStart can_start = [&](int number) {
    const int needed = plan_.gpus_needed.at(number);
    return needed == 0 ? cpu_slots_in_use_ < plan_.cpu_slots : needed < gpus_short;
  };
  while (static_cast<int>(active_.size() + launches.size()) < plan_.concurrency &&
         !failures_.Exhausted()) {
    // Nothing is free: asking for more jobs would find none that fits.
    if (gpu_slots_.free_count() == 0 && cpu_slots_in_use_ >= plan_.cpu_slots) break;
    const Job job = policy_->NextJob(can_start);
    if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) break;
    const int gpus_needed = plan_.gpus_needed.at(job.trial);
    std::optional<std::vector<int>> gpus = AcquireResources(job.trial, gpus_needed);
    if (!gpus) {
      assert(gpus_needed > 0);  // can_start said a CPU slot was free
      gpus_short = std::min(gpus_short, gpus_needed);
      continue;
    }
    policy_->JobStarted(job);
    std::optional<PreparedLaunch> launch = Prepare(job.trial, std::move(*gpus), job);
    if (launch) launches.push_back(std::move(*launch));
    else ++failed_to_start;
  }
  return launches;
}

std::optional<std::vector<int>> TrialLoop::AcquireResources(int number, int gpus_needed) {
  if (gpus_needed > 0) return gpu_slots_.TryAcquire(gpus_needed, number);
  if (cpu_slots_in_use_ >= plan_.cpu_slots) return std::nullopt;
  ++cpu_slots_in_use_;
  return std::vector<int>{};
}

void TrialLoop::ReleaseResources(const TrialRecord& record, GpuPool::TrialRan ran) {
  if (record.gpus.empty()) --cpu_slots_in_use_;
  else gpu_slots_.Release(record, ran);
}

std::optional<TrialLoop::PreparedLaunch> TrialLoop::Prepare(int number, std::vector<int> gpus,
                                                           const std::optional<Job>& job) {
  const TrialRecord* previous = Find(number);
  TrialRecord record;
  record.number = number;
  record.attempt = previous ? previous->attempt + 1 : 1;
  record.gpus = gpus;
  record.start_time = services_.wall_clock();
  if (job) {
    record.bracket = job->bracket;
    record.rung = job->rung;
    if (job->budget > 0) record.budget = job->budget;  // median without max_resource: none
  }
  Expected<PreparedTrial> planned =
      PrepareTrial(config_, plan_, options_.experiment_dir, number, trials_, previous, record.budget,
                   job ? job->params : std::nullopt);
  if (!planned) {  // PlanRun rendered each trial without history; a sampler using it may differ
    ReleaseResources(record);
    FailBeforeStart(std::move(record), planned.error().message, job, JobJournaled::kNo);
    return std::nullopt;
  }
  record.repeat = planned->suggestion.repeat;
  record.params = planned->suggestion.params;
  if (Status written = WriteTrialFiles(planned->rendered, record.params, record.attempt,
                                          stager_.Take(number));
      !written) {
    ReleaseResources(record);
    FailBeforeStart(std::move(record), written.error().message, job, JobJournaled::kNo);
    return std::nullopt;
  }
  if (job && policy_->checkpoints()) {  // every attempt starts from its parent's state, or none
    const Status copied =
        job->parent ? CopyParentCheckpoint(
                          ExperimentFiles{options_.experiment_dir}.trial_dir(*job->parent),
                          planned->rendered.dir)
                    : ClearCheckpoint(planned->rendered.dir);
    if (!copied) {
      ReleaseResources(record);
      FailBeforeStart(std::move(record), copied.error().message, job, JobJournaled::kNo);
      return std::nullopt;
    }
  }
  std::optional<VerdictFile> verdicts;
  if (policy_->judges_reports()) {
    Expected<VerdictFile> created = VerdictFile::Create(TrialFiles{planned->rendered.dir}.verdicts());
    if (!created) {
      ReleaseResources(record);
      FailBeforeStart(std::move(record), created.error().message, job, JobJournaled::kNo);
      return std::nullopt;
    }
    verdicts = std::move(*created);
  }
  EnvPairs overrides = ProtocolEnv(number, planned->rendered.dir, options_.python_helper_dir,
                                   services_.base_env);
  overrides.emplace_back("GPUSWEEP_ATTEMPT", std::to_string(record.attempt));
  overrides.emplace_back("GPUSWEEP_METRIC", config_.metric.name);
  for (auto& pair : SchedulerEnv(record, verdicts)) overrides.push_back(std::move(pair));
  for (auto& pair : policy_->TrialEnv(record)) overrides.push_back(std::move(pair));
  if (policy_->checkpoints())
    overrides.emplace_back("GPUSWEEP_CHECKPOINT_DIR",
                           TrialFiles{planned->rendered.dir}.checkpoint().string());
  if (job && job->parent) {  // the checkpoint it continues from (docs/protocol.md)
    overrides.emplace_back("GPUSWEEP_PARENT_TRIAL", std::to_string(*job->parent));
    overrides.emplace_back("GPUSWEEP_PARENT_DIR",
                           ExperimentFiles{options_.experiment_dir}.trial_dir(*job->parent).string());
  }
  auto parent_getenv = [this](const std::string& key) { return LookupEnv(services_.base_env, key); };
  for (auto& pair : TrialResourceEnv(gpus, services_.usable_cores, plan_.cpu_slots, parent_getenv))
    overrides.push_back(std::move(pair));
  SpawnRequest request{planned->rendered.argv, MergeEnv(services_.base_env, overrides),
                       planned->rendered.dir, TrialFiles{planned->rendered.dir}.output_log(),
                       static_cast<int>(gpus.size()), number, record.attempt};
  // The intent: journaled (state running, no pid yet) in the commit before the spawn,
  // so a gpusweep killed right after the spawn still knows this attempt exists.
  record.state = TrialState::kRunning;
  Events events;
  if (job && policy_->journaled()) events.push_back(JobStartedEvent(*job, record.start_time));
  Record(JournalWrite::Kind::kUpsertTrial, record, {}, std::move(events));
  Store(record);
  return PreparedLaunch{std::move(record), std::move(request), job, planned->rendered.dir,
                        std::move(verdicts)};
}

Status TrialLoop::Spawn(PreparedLaunch launch) {
  TrialRecord& record = launch.record;
  Expected<ProcessId> pid = services_.processes->Spawn(launch.request);
  if (!pid) {
    ReleaseResources(record);
    FailBeforeStart(std::move(record), pid.error().message, launch.job, JobJournaled::kYes);
    return {};
  }
  record.job_id = services_.processes->JobId(*pid);  // a cluster job's id, else the pid:
  if (record.job_id.empty()) {
    record.pid = *pid;
    if (!record.gpus.empty()) gpu_slots_.Started(record.number, *pid);
    record.pid_start_ticks = services_.process_start_ticks(*pid).value_or(0);
  }
  Record(JournalWrite::Kind::kUpsertTrial, record);  // the pid, in the next commit
  Store(record);
  Active active{*pid, record, MetricsReader(TrialFiles{launch.dir}.metrics()), {}, {}, {},
                false, {}, launch.job, false, false, false, std::move(launch.verdicts), 0, {}};
  if (config_.timeout_seconds)
    active.deadline = services_.monotonic_clock() + *config_.timeout_seconds;
  active_.emplace(*pid, std::move(active));
  after_commit_.push_back([this, record] { observer_.OnTrialStarted(record); });
  return {};
}

EnvPairs TrialLoop::SchedulerEnv(const TrialRecord& record,
                                 const std::optional<VerdictFile>& verdicts) const {
  EnvPairs env;
  if (record.budget) {
    env.emplace_back("GPUSWEEP_BUDGET", BudgetJson(*record.budget).dump());
    env.emplace_back("GPUSWEEP_RUNG", std::to_string(record.rung));
  }
  if (!verdicts) return env;
  std::vector<std::string> points;
  for (double point : policy_->StopPoints(record.number)) points.push_back(BudgetJson(point).dump());
  env.emplace_back("GPUSWEEP_VERDICTS", verdicts->path().string());
  env.emplace_back("GPUSWEEP_RESOURCE", config_.scheduler.resource);
  env.emplace_back("GPUSWEEP_STOP_POINTS", fmt::format("{}", fmt::join(points, ",")));
  return env;
}

void TrialLoop::FailBeforeStart(TrialRecord record, const std::string& reason,
                                const std::optional<Job>& job, JobJournaled journaled) {
  record.state = TrialState::kFailed;
  record.end_time = services_.wall_clock();
  record.failure_reason = "could not start: " + reason;
  Events events;
  if (job) {  // the policy counts it as a failed evaluation (worst value)
    const Decision decision = policy_->OnJobFinished(*job, std::nullopt);
    if (policy_->journaled()) {
      if (journaled == JobJournaled::kNo) events.push_back(JobStartedEvent(*job, record.end_time));
      events.push_back(JobFinishedEvent(*job, std::nullopt, decision, record.end_time));
    }
  }
  Record(JournalWrite::Kind::kUpsertTrial, record, {}, std::move(events));
  Store(record);
  NotifyFinished(record);
}

void TrialLoop::PollMetrics() {
  std::vector<IntermediateResult> results;
  Events events;
  for (auto& [pid, active] : active_) AbsorbMetrics(active, active.metrics.Poll(), results, events);
  if (results.empty() && events.empty()) return;
  Record(JournalWrite::Kind::kAppendResults, {}, std::move(results), std::move(events));
}

void TrialLoop::AbsorbMetrics(Active& active, MetricsBatch batch,
                              std::vector<IntermediateResult>& out, Events& events,
                              Process process) {
  for (const std::string& warning : batch.warnings) {
    observer_.OnWarning(fmt::format("trial {}: {}", active.record.number, warning));
    if (active.metrics_warnings++ == 0) active.first_warning = warning;
  }
  if (batch.refused) StopUnreadable(active, *batch.refused, process);
  const double now = services_.wall_clock();
  for (MetricsLine& line : batch.lines) {
    for (const auto& [key, value] : line.values.items()) active.record.last_metrics[key] = value;
    out.push_back(IntermediateResult{active.record.number, active.record.attempt, line.step, now,
                                     line.values});
    ConsultPolicy(active, line, process, events);
    active.lines.push_back(std::move(line));
  }
}

void TrialLoop::StopUnreadable(Active& active, const std::string& reason, Process process) {
  observer_.OnWarning(fmt::format("trial {}: {}", active.record.number, reason));
  // Its results can never be read, so its GPUs are better spent on the next trial.
  if (active.stop_reason.empty()) active.stop_reason = reason;
  if (process == Process::kExited || active.kill_at) return;
  services_.processes->SignalGroup(active.pid, SIGTERM);
  active.kill_at = services_.monotonic_clock() + config_.kill_grace_seconds;
}

void TrialLoop::ConsultPolicy(Active& active, const MetricsLine& line, Process process,
                              Events& events) {
  // Only lines with both the resource and the metric are results at a step: a line
  // with just the training loss must not rank the trial as if it had no value.
  const auto resource = line.values.find(config_.scheduler.resource);
  const auto metric = line.values.find(config_.metric.name);
  if (resource == line.values.end() || !resource->is_number() || metric == line.values.end() ||
      !metric->is_number())
    return;
  active.judged = true;
  const double at = resource->get<double>();
  const double value = metric->get<double>();
  // The other objectives are their latest reports (last_metrics holds this line's).
  const Evaluation evaluation = EvaluationOf(config_, value, active.record.last_metrics);
  const std::optional<Decision> decision =
      policy_->OnEvaluatedReport(active.record.number, at, evaluation);
  if (policy_->journaled())
    events.push_back(
        ReportEvent(active.record.number, at, evaluation, decision, services_.wall_clock()));
  if (process == Process::kRunning) AnswerReport(active, at, decision);
  if (!decision || decision->verdict != Verdict::kStop || active.pruned || active.kill_at ||
      process == Process::kExited)
    return;
  Prune(active, decision->reason);
}

// SIGTERM now (a trial may save a checkpoint), SIGKILL after the grace period; its GPUs
// go to the next job as soon as the process group is gone.
void TrialLoop::Prune(Active& active, const std::string& reason) {
  active.pruned = true;
  active.stop_reason = "pruned: " + reason;
  services_.processes->SignalGroup(active.pid, SIGTERM);
  active.kill_at = services_.monotonic_clock() + config_.kill_grace_seconds;
  observer_.OnTrialPruned(active.record, reason);
}

void TrialLoop::AnswerReport(Active& active, double resource,
                             const std::optional<Decision>& decision) {
  if (!active.verdicts) return;
  std::optional<Decision> answer = decision;
  if (active.pruned && !answer) {  // reports after the stop keep getting "stop"
    answer = Decision{};
    answer->verdict = Verdict::kStop;
    answer->reason = active.stop_reason;
  }
  if (Status written = active.verdicts->Append(resource, answer); !written && !warned_verdict_write_) {
    // The trial's wait times out and it continues, as if it never asked.
    warned_verdict_write_ = true;
    observer_.OnWarning(fmt::format("trial {}: {}", active.record.number, written.error().message));
  }
}

void TrialLoop::Reap(const ProcessEvent& event) {
  auto it = active_.find(event.pid);
  if (it == active_.end()) return;
  Active& active = it->second;
  std::vector<IntermediateResult> final_results;
  Events events;
  AbsorbMetrics(active, active.metrics.Finish(), final_results, events, Process::kExited);
  WarnIfNeverJudged(active);
  Judge(active, event.exit);
  ConcludeJob(active, events);
  TrialRecord record = active.record;
  ReleaseResources(record, GpuPool::TrialRan::kYes);
  active_.erase(it);
  Record(JournalWrite::Kind::kFinishTrial, record, std::move(final_results), std::move(events));
  Store(record);
  NotifyFinished(record);
  // A job the cluster lost (node failure, preemption) runs again: OnJobInterrupted
  // (ConcludeJob) handed it out again.
  SettleEliminated();
}

void TrialLoop::Judge(Active& active, const ProcessExit& exit) {
  TrialRecord& record = active.record;
  const double now = services_.wall_clock();  // a cluster job's own end is truer (polls, resume)
  record.end_time = std::clamp(exit.end_time.value_or(now), std::min(record.start_time, now), now);
  if (exit.signaled) record.term_signal = exit.signal;
  else record.exit_code = exit.exit_code;
  const std::optional<double> objective = LastMetricValue(active.lines, config_.metric.name);
  // With metrics:, every objective must be reported; the first one missing says why not.
  const std::string* missing_objective = objective ? nullptr : &config_.metric.name;
  for (const MetricSpec& m : config_.metrics)
    if (missing_objective == nullptr && !LastMetricValue(active.lines, m.name)) missing_objective = &m.name;
  const bool succeeded = !exit.signaled && exit.exit_code == 0;
  // A trial that exits 0 after the interrupt's SIGTERM may have stopped early on
  // purpose (handle_stop): its value is partial, so it runs again on resume.
  if (succeeded && missing_objective == nullptr && active.stop_reason.empty() &&
      !active.interrupt_sent) {
    // Only a completed trial has an objective: it is what ranks trials. What others
    // reported stays in last_metrics and the intermediate results.
    record.objective = objective;
    record.state = TrialState::kCompleted;
    return;
  }
  if (RunsAgain(exit.job_end) && active.stop_reason.empty() && !active.interrupt_sent) {
    record.state = TrialState::kInterrupted;  // its node failed, it was preempted, ...
    record.failure_reason = exit.job_detail;
    return;
  }
  if (interrupt_signal_ != 0 && active.stop_reason.empty()) {
    record.state = TrialState::kInterrupted;
    record.failure_reason = fmt::format("stopped because gpusweep was interrupted by {}",
                                        SignalName(interrupt_signal_));
    return;
  }
  record.state = TrialState::kFailed;
  if (!active.stop_reason.empty())
    record.failure_reason = active.stop_reason + (active.killed ? " (killed with SIGKILL after "
                                                                  "the grace period)"
                                                                : "");
  else if (!exit.job_detail.empty())  // the cluster's time limit, memory limit, ...
    record.failure_reason = exit.job_detail;
  else if (exit.signaled)
    record.failure_reason = "killed by " + SignalName(exit.signal);
  else if (exit.exit_code == 127 || exit.exit_code == 126)
    record.failure_reason = fmt::format(
        "exit code {} (a shell could not {} a command; see output.log: gpusweep show {})",
        exit.exit_code, exit.exit_code == 127 ? "find" : "execute", record.number);
  else if (exit.exit_code != 0)
    record.failure_reason = fmt::format("exit code {}", exit.exit_code);
  else
    record.failure_reason =
        MissingMetricReason(missing_objective ? *missing_objective : config_.metric.name,
                            record.last_metrics) +
        MetricsWarningsNote(active.metrics_warnings, active.first_warning);
  // The trial's own last words (a Python exception, a shell's complaint) say why.
  if (active.stop_reason.empty() && (exit.signaled || exit.exit_code != 0) &&
      exit.job_end == JobEnd::kNone) {
    const std::string said =
        LastOutputLine(TrialFiles{active.metrics.path().parent_path()}.output_log());
    if (!said.empty()) record.failure_reason += ": " + said;
  }
}

void TrialLoop::ConcludeJob(Active& active, Events& events) {
  TrialRecord& record = active.record;
  assert(active.job.has_value());
  Job job = *active.job;
  if (policy_->checkpoints() && record.state == TrialState::kCompleted)  // can it be a donor?
    job.checkpoint = HasOwnCheckpoint(ExperimentFiles{options_.experiment_dir}.trial_dir(record.number),
                                      record.number);
  if (record.state == TrialState::kInterrupted) {  // runs again, first (now, or on resume)
    policy_->OnJobInterrupted(job);
    if (policy_->journaled()) events.push_back(JobInterruptedEvent(job, record.end_time));
    return;
  }
  const std::optional<double> last = LastMetricValue(active.lines, config_.metric.name);
  // A failed job ranks worst; a pruned one keeps what it reported.
  std::optional<double> value;
  if (active.pruned) value = last;
  else if (record.state == TrialState::kCompleted) value = record.objective;
  const Evaluation evaluation = EvaluationOf(config_, value, record.last_metrics);
  const Decision decision = policy_->OnJobEvaluated(job, evaluation);
  if (policy_->journaled())
    events.push_back(JobFinishedEvent(job, evaluation, decision, record.end_time));
  if (active.pruned) {
    record.state = TrialState::kPruned;
    record.objective = last;
    return;
  }
  if (record.state != TrialState::kCompleted) return;  // failed stays failed
  // An iterative trial that ran to its end keeps its result even if the scheduler's
  // last word (read after it exited) was stop: the work is done.
  if (plan_.style == TrialStyle::kIterative) return;
  if (decision.verdict == Verdict::kPause) {
    record.state = TrialState::kPaused;
    record.failure_reason = decision.reason;
  } else if (decision.verdict == Verdict::kStop) {
    record.state = TrialState::kPruned;
    record.failure_reason = "pruned: " + decision.reason;
  }
}

void TrialLoop::WarnIfNeverJudged(const Active& active) {
  // Budgeted trials (and NAS evaluations) are judged by their final value only.
  if (!policy_->judges_reports() || active.judged ||
      warned_never_judged_ || active.lines.empty())
    return;
  warned_never_judged_ = true;
  std::vector<std::string> keys;
  for (const auto& [key, unused] : active.record.last_metrics.items()) keys.push_back(key);
  observer_.OnWarning(fmt::format(
      "trial {} never reported '{}' and '{}' as numbers on the same line, so the scheduler "
      "could not judge it (it reported: {}); report both in one line, e.g. "
      "gpusweep.report(epoch=e, {}=v), or fix scheduler.resource",
      active.record.number, config_.scheduler.resource, config_.metric.name,
      fmt::join(keys, ", "), config_.metric.name));
}

void TrialLoop::SettleEliminated() {
  // Only the new part of the (growing) list: this runs after every finished job.
  const std::vector<Decision>& eliminated = policy_->Eliminated();
  for (; eliminations_settled_ < eliminated.size(); ++eliminations_settled_) {
    const Decision& decision = eliminated[eliminations_settled_];
    const TrialRecord* found = Find(decision.trial);
    if (SettledNotStarted(decision, found) || found == nullptr) continue;
    if (found->state == TrialState::kRunning) {  // e.g. a sibling of a stopped trial
      for (auto& [pid, active] : active_)
        if (active.record.number == decision.trial && !active.pruned && !active.kill_at)
          Prune(active, decision.reason);
      continue;
    }
    if (found->state != TrialState::kPaused) continue;
    TrialRecord record = *found;
    const bool completed = decision.verdict == Verdict::kComplete;  // its group completed
    record.state = completed ? TrialState::kCompleted : TrialState::kPruned;
    record.failure_reason = completed ? "" : "pruned: " + decision.reason;
    Record(JournalWrite::Kind::kFinishTrial, record, {},
           {TrialEndedEvent(record.number, decision.reason, services_.wall_clock())});
    Store(record);
    NotifyFinished(record);
  }
}

bool TrialLoop::SettledNotStarted(const Decision& decision, const TrialRecord* found) {
  if (found != nullptr && found->state != TrialState::kInterrupted) return false;
  RecordNotRun(decision.trial, decision.reason, Notice::kNotify);
  return true;
}

void TrialLoop::RecordNotRun(int number, const std::string& reason, Notice notice) {
  const TrialRecord* previous = Find(number);
  TrialRecord record = previous != nullptr ? *previous : TrialRecord{};
  const double now = services_.wall_clock();
  if (previous == nullptr) {
    record.number = number;
    record.start_time = now;
    const Suggestion suggestion = policy_->Suggest(number, trials_);  // what it would have run
    record.params = suggestion.params;
    record.repeat = suggestion.repeat;
  }
  record.state = TrialState::kPruned;
  record.failure_reason = std::string(kNotRun) + reason;
  record.end_time = now;
  record.objective.reset();
  record.pid = 0;
  record.job_id.clear();
  record.gpus.clear();
  Record(JournalWrite::Kind::kUpsertTrial, record);
  Store(record);
  if (notice == Notice::kNotify) NotifyFinished(record);
}

void TrialLoop::SettlePausedTrials() {
  const double now = services_.wall_clock();
  for (TrialRecord& trial : trials_) {
    if (trial.state != TrialState::kPaused) continue;
    trial.state = TrialState::kPruned;
    trial.failure_reason = fmt::format(
        "pruned: not promoted past rung {} ({} {}); {}", trial.rung, config_.scheduler.resource,
        trial.budget ? BudgetJson(*trial.budget).dump() : "-", trial.failure_reason);
    Record(JournalWrite::Kind::kFinishTrial, trial, {},
           {TrialEndedEvent(trial.number, trial.failure_reason, now)});
    NotifyFinished(trial);
  }
}

void TrialLoop::EnforceDeadlines() {
  const double now = services_.monotonic_clock();
  for (auto& [pid, active] : active_) {
    if (active.deadline && now >= *active.deadline && !active.kill_at) {
      active.stop_reason = fmt::format("timed out after {}", FormatDuration(*config_.timeout_seconds));
      services_.processes->SignalGroup(pid, SIGTERM);
      active.kill_at = now + config_.kill_grace_seconds;
    }
    if (active.kill_at && now >= *active.kill_at && !active.killed) {
      services_.processes->SignalGroup(pid, SIGKILL);
      active.killed = true;
    }
  }
}

double TrialLoop::WaitTimeout() const {
  const double now = services_.monotonic_clock();
  double timeout = poll_interval_;
  for (const auto& [pid, active] : active_) {
    if (active.deadline && !active.kill_at) timeout = std::min(timeout, *active.deadline - now);
    if (active.kill_at && !active.killed) timeout = std::min(timeout, *active.kill_at - now);
  }
  return std::max(timeout, 0.0);
}

void TrialLoop::Store(const TrialRecord& record) {
  auto it = std::lower_bound(trials_.begin(), trials_.end(), record.number,
                             [](const TrialRecord& t, int n) { return t.number < n; });
  if (it != trials_.end() && it->number == record.number) *it = kept_.Keep(record);
  else trials_.insert(it, kept_.Keep(record));
}

const TrialRecord* TrialLoop::Find(int number) const {
  auto it = std::lower_bound(trials_.begin(), trials_.end(), number,
                             [](const TrialRecord& t, int n) { return t.number < n; });
  return it != trials_.end() && it->number == number ? &*it : nullptr;
}

}  // namespace gpusweep
