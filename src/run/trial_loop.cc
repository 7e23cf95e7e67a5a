#include "run/trial_loop.h"

#include <algorithm>
#include <csignal>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/did_you_mean.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

// How often running trials' metrics files are read, in seconds.
constexpr double kPollInterval = 0.5;

// Why a trial that exited 0 has no objective, with what it did report, so a typo in
// the metric name or a string value is obvious.
std::string MissingMetricReason(const std::string& metric, const Json& reported) {
  if (reported.empty())
    return fmt::format("exited 0 but reported no JSON object to $GPUSWEEP_METRICS (needs '{}')",
                       metric);
  if (auto value = reported.find(metric); value != reported.end())
    return fmt::format("exited 0 but its last '{}' was {}, not a number", metric, value->dump());
  std::vector<std::string> keys;
  for (const auto& [key, unused] : reported.items()) keys.push_back(key);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string reason = fmt::format("exited 0 but never reported the metric '{}' (it reported: {})",
                                   metric, fmt::join(keys, ", "));
  if (auto close = ClosestMatch(metric, views)) reason += fmt::format("; did you mean '{}'?", *close);
  return reason;
}

}  // namespace

TrialLoop::TrialLoop(const ExperimentConfig& config, const RunOptions& options,
                     RunServices& services, RunObserver& observer, const RunPlan& plan,
                     Journal& journal, std::vector<TrialRecord> recorded)
    : config_(config), options_(options), services_(services), observer_(observer), plan_(plan),
      journal_(journal), trials_(std::move(recorded)), gpu_pool_(plan.gpus) {
  const bool retry_failed = options_.failed_trials == FailedTrials::kRetry;
  for (int number = 0; number < plan_.total_trials(); ++number) {
    const TrialRecord* record = Find(number);
    if (record == nullptr || record->state == TrialState::kInterrupted ||
        (retry_failed && record->state == TrialState::kFailed))
      queue_.push_back(number);
  }
}

RunInfo TrialLoop::Info(bool resumed) const {
  RunInfo info;
  info.experiment_dir = options_.experiment_dir;
  info.total_trials = plan_.total_trials();
  info.to_run = static_cast<int>(queue_.size());
  info.already_finished = info.total_trials - info.to_run;
  if (options_.failed_trials == FailedTrials::kKeep)
    info.failed_kept = static_cast<int>(std::count_if(
        trials_.begin(), trials_.end(),
        [](const TrialRecord& t) { return t.state == TrialState::kFailed; }));
  info.resumed = resumed;
  info.gpus = plan_.gpus;
  info.cpu_slots = plan_.cpu_slots;
  info.concurrency = plan_.concurrency;
  return info;
}

Status TrialLoop::Run() {
  while ((!queue_.empty() && interrupt_signal_ == 0) || !active_.empty()) {
    if (interrupt_signal_ == 0) {
      GS_ASSIGN_OR_RETURN(int launched, LaunchReady());
      if (active_.empty() && launched == 0)  // PlanRun rules this out; never spin if it did not
        return Fail(ErrorCode::kResource, fmt::format("trial {} can never get its resources",
                                                      queue_.front()));
    }
    // Even when every launch failed at once, Wait (with no time to sleep) is where
    // pending interrupts are noticed.
    WaitOutcome outcome = services_.processes->Wait(active_.empty() ? 0.0 : WaitTimeout());
    if (outcome.interrupt_signal != 0) BeginInterrupt(outcome.interrupt_signal);
    GS_TRY(PollMetrics());
    for (const ProcessEvent& event : outcome.exited) GS_TRY(Reap(event));
    EnforceDeadlines();
    observer_.OnTick(trials_);
  }
  if (interrupt_signal_ == 0) return {};
  GS_TRY(journal_.AppendEvent(services_.wall_clock(), "interrupted",
                              Json{{"signal", SignalName(interrupt_signal_)}}));
  return Fail(ErrorCode::kInterrupted,
              fmt::format("interrupted by {}; running trials were stopped and recorded as "
                          "interrupted; run the same command again to resume",
                          SignalName(interrupt_signal_)));
}

Expected<int> TrialLoop::LaunchReady() {
  int launched = 0;
  // Backfill: a trial waiting for more GPUs than are free does not hold back later
  // trials that fit, so GPUs are never idle while work that fits is queued.
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (static_cast<int>(active_.size()) >= plan_.concurrency) break;
    // Nothing is free: scanning the rest of a long queue would find nothing either.
    if (gpu_pool_.free_count() == 0 && cpu_slots_in_use_ >= plan_.cpu_slots) break;
    const int number = *it;
    std::optional<std::vector<int>> gpus = AcquireResources(plan_.gpus_needed[number]);
    if (!gpus) {
      ++it;
      continue;
    }
    it = queue_.erase(it);
    GS_TRY(Launch(number, std::move(*gpus)));
    ++launched;
  }
  return launched;
}

std::optional<std::vector<int>> TrialLoop::AcquireResources(int gpus_needed) {
  if (gpus_needed > 0) return gpu_pool_.TryAcquire(gpus_needed);
  if (cpu_slots_in_use_ >= plan_.cpu_slots) return std::nullopt;
  ++cpu_slots_in_use_;
  return std::vector<int>{};
}

void TrialLoop::ReleaseResources(const std::vector<int>& gpus) {
  if (gpus.empty()) --cpu_slots_in_use_;
  else gpu_pool_.Release(gpus);
}

Status TrialLoop::Launch(int number, std::vector<int> gpus) {
  const TrialRecord* previous = Find(number);
  TrialRecord record;
  record.number = number;
  record.attempt = previous ? previous->attempt + 1 : 1;
  record.gpus = gpus;
  record.start_time = services_.wall_clock();
  Expected<PreparedTrial> planned =
      PrepareTrial(config_, plan_, options_.experiment_dir, number, trials_);
  if (!planned) {  // PlanRun rendered each trial without history; a sampler using it may differ
    ReleaseResources(gpus);
    return FailBeforeStart(std::move(record), planned.error().message);
  }
  record.repeat = planned->suggestion.repeat;
  record.params = planned->suggestion.params;
  if (Status written = WriteTrialFiles(planned->rendered, record.params, record.attempt); !written) {
    ReleaseResources(gpus);
    return FailBeforeStart(std::move(record), written.error().message);
  }
  EnvPairs overrides = ProtocolEnv(number, planned->rendered.dir, options_.python_helper_dir,
                                   services_.base_env);
  auto parent_getenv = [this](const std::string& key) { return LookupEnv(services_.base_env, key); };
  for (auto& pair : TrialResourceEnv(gpus, services_.usable_cores, plan_.cpu_slots, parent_getenv))
    overrides.push_back(std::move(pair));
  SpawnRequest request{planned->rendered.argv, MergeEnv(services_.base_env, overrides),
                       planned->rendered.dir, planned->rendered.dir / "output.log"};
  Expected<ProcessId> pid = services_.processes->Spawn(request);
  if (!pid) {
    ReleaseResources(gpus);
    return FailBeforeStart(std::move(record), pid.error().message);
  }
  record.pid = *pid;
  record.pid_start_ticks = services_.process_start_ticks(*pid).value_or(0);
  GS_TRY(journal_.UpsertTrial(record));
  Store(record);
  Active active{record, MetricsReader(planned->rendered.dir / "metrics.jsonl"), {}, {}, {}, false, {}};
  if (config_.timeout_seconds)
    active.deadline = services_.monotonic_clock() + *config_.timeout_seconds;
  active_.emplace(*pid, std::move(active));
  observer_.OnTrialStarted(record);
  return {};
}

Status TrialLoop::FailBeforeStart(TrialRecord record, const std::string& reason) {
  record.state = TrialState::kFailed;
  record.end_time = services_.wall_clock();
  record.failure_reason = "could not start: " + reason;
  GS_TRY(journal_.UpsertTrial(record));
  Store(record);
  observer_.OnTrialFinished(record);
  return {};
}

Status TrialLoop::PollMetrics() {
  std::vector<IntermediateResult> results;
  for (auto& [pid, active] : active_) AbsorbMetrics(active, active.metrics.Poll(), results);
  if (results.empty()) return {};
  return journal_.AppendResults(results);
}

void TrialLoop::AbsorbMetrics(Active& active, MetricsBatch batch,
                              std::vector<IntermediateResult>& out) {
  for (const std::string& warning : batch.warnings)
    observer_.OnWarning(fmt::format("trial {}: {}", active.record.number, warning));
  const double now = services_.wall_clock();
  for (MetricsLine& line : batch.lines) {
    for (const auto& [key, value] : line.values.items()) active.record.last_metrics[key] = value;
    out.push_back(IntermediateResult{active.record.number, active.record.attempt, line.step, now,
                                     line.values});
    active.lines.push_back(std::move(line));
  }
}

Status TrialLoop::Reap(const ProcessEvent& event) {
  auto it = active_.find(event.pid);
  if (it == active_.end()) return {};
  Active& active = it->second;
  std::vector<IntermediateResult> final_results;
  AbsorbMetrics(active, active.metrics.Finish(), final_results);
  Judge(active, event.exit);
  TrialRecord record = active.record;
  ReleaseResources(record.gpus);
  active_.erase(it);
  GS_TRY(journal_.FinishTrial(record, final_results));
  Store(record);
  observer_.OnTrialFinished(record);
  return {};
}

void TrialLoop::Judge(Active& active, const ProcessExit& exit) {
  TrialRecord& record = active.record;
  record.end_time = services_.wall_clock();
  if (exit.signaled) record.term_signal = exit.signal;
  else record.exit_code = exit.exit_code;
  const std::optional<double> objective = LastMetricValue(active.lines, config_.metric.name);
  const bool succeeded = !exit.signaled && exit.exit_code == 0;
  if (succeeded && objective && active.stop_reason.empty()) {
    // Only a completed trial has an objective: it is what ranks trials. What others
    // reported stays in last_metrics and the intermediate results.
    record.objective = objective;
    record.state = TrialState::kCompleted;  // also when it finished as an interrupt arrived
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
  else if (exit.signaled)
    record.failure_reason = "killed by " + SignalName(exit.signal);
  else if (exit.exit_code == 127 || exit.exit_code == 126)
    record.failure_reason = fmt::format(
        "exit code {} (a shell could not {} a command; see output.log: gpusweep show {})",
        exit.exit_code, exit.exit_code == 127 ? "find" : "execute", record.number);
  else if (exit.exit_code != 0)
    record.failure_reason = fmt::format("exit code {}", exit.exit_code);
  else
    record.failure_reason = MissingMetricReason(config_.metric.name, record.last_metrics);
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

void TrialLoop::BeginInterrupt(int signal) {
  const double now = services_.monotonic_clock();
  if (interrupt_signal_ != 0) {
    // A second interrupt: the user does not want to wait for the grace period.
    for (auto& [pid, active] : active_) {
      active.kill_at = now;
    }
    observer_.OnWarning("second interrupt: killing every trial now");
    return;
  }
  interrupt_signal_ = signal;
  observer_.OnWarning(fmt::format(
      "interrupted by {}: stopping {} running trial{} (SIGTERM, SIGKILL after {})",
      SignalName(signal), active_.size(), active_.size() == 1 ? "" : "s",
      FormatDuration(config_.kill_grace_seconds)));
  for (auto& [pid, active] : active_) {
    services_.processes->SignalGroup(pid, SIGTERM);
    if (!active.kill_at) active.kill_at = now + config_.kill_grace_seconds;
  }
}

double TrialLoop::WaitTimeout() const {
  const double now = services_.monotonic_clock();
  double timeout = kPollInterval;
  for (const auto& [pid, active] : active_) {
    if (active.deadline && !active.kill_at) timeout = std::min(timeout, *active.deadline - now);
    if (active.kill_at && !active.killed) timeout = std::min(timeout, *active.kill_at - now);
  }
  return std::max(timeout, 0.0);
}

void TrialLoop::Store(const TrialRecord& record) {
  auto it = std::lower_bound(trials_.begin(), trials_.end(), record.number,
                             [](const TrialRecord& t, int n) { return t.number < n; });
  if (it != trials_.end() && it->number == record.number) *it = record;
  else trials_.insert(it, record);
}

const TrialRecord* TrialLoop::Find(int number) const {
  auto it = std::lower_bound(trials_.begin(), trials_.end(), number,
                             [](const TrialRecord& t, int n) { return t.number < n; });
  return it != trials_.end() && it->number == number ? &*it : nullptr;
}

}  // namespace gpusweep
