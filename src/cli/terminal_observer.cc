#include "cli/terminal_observer.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/did_you_mean.h"
#include "gpusweep/cv.h"
#include "report/pareto_views.h"

namespace gpusweep {
namespace {

// "; it reported acc, latency_ms (did you mean 'latency_ms'?)": what the trial did report
// (the first 8 keys), since a misspelt constraint metric makes every trial infeasible.
std::string ReportedHint(const Json& metrics, const std::string& wanted) {
  if (!metrics.is_object() || metrics.empty())
    return "; it reported no metrics at all";
  std::vector<std::string> keys;
  for (const auto& item : metrics.items()) keys.push_back(item.key());
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  const std::size_t shown = std::min<std::size_t>(views.size(), 8);
  std::string hint = fmt::format("; it reported {}{}", JoinNames(std::span(views).first(shown)),
                                 views.size() > shown ? ", ..." : "");
  if (const std::optional<std::string> close = ClosestMatch(wanted, views))
    hint += fmt::format(" (did you mean '{}'? a misspelt name makes every trial infeasible)", *close);
  return hint;
}

// Seconds between redraws of the live line, and between plain progress lines.
constexpr double kRedrawSeconds = 0.2;
constexpr double kPlainProgressSeconds = 30;

std::string DescribeResources(const RunInfo& info) {
  if (!info.placement.empty()) return info.placement;
  if (info.gpus.empty())
    return fmt::format("{} CPU slot{}", info.cpu_slots, info.cpu_slots == 1 ? "" : "s");
  return fmt::format("GPU{} {}", info.gpus.size() == 1 ? "" : "s", fmt::join(info.gpus, ","));
}

std::string DescribeGpus(const std::vector<int>& gpus) {
  if (gpus.empty()) return "CPU";
  return fmt::format("GPU {}", fmt::join(gpus, ","));
}

}  // namespace

TerminalObserver::TerminalObserver(std::FILE* out, TerminalInfo terminal, ReportContext context,
                                   std::function<double()> wall_clock)
    : out_(out), terminal_(terminal), context_(std::move(context)),
      wall_clock_(std::move(wall_clock)) {}

void TerminalObserver::OnStart(const RunInfo& info) {
  info_ = info;
  started_at_ = wall_clock_();
  last_plain_progress_ = started_at_;
  context_.total_trials = info.total_trials;
  std::string resumed = info.resumed ? fmt::format(", resuming: {} already finished",
                                                   info.already_finished)
                                     : "";
  if (info.reattached > 0) resumed += fmt::format(", {} re-attached", info.reattached);
  PrintEvent(fmt::format("experiment {} in {}: {} trial{}{}, {} to run on {}",
                         context_.experiment_name, info.experiment_dir.string(), info.total_trials,
                         info.total_trials == 1 ? "" : "s", resumed, info.to_run,
                         DescribeResources(info)));
  if (!info.warm_start.empty())
    PrintEvent(info.warm_start.substr(0, info.warm_start.find_last_not_of('\n') + 1));
  if (info.failed_kept > 0)
    PrintEvent(fmt::format("{} failed trial{} from earlier runs {} kept as failed; "
                           "`gpusweep run --retry-failed` runs {} again",
                           info.failed_kept, info.failed_kept == 1 ? "" : "s",
                           info.failed_kept == 1 ? "is" : "are",
                           info.failed_kept == 1 ? "it" : "them"));
  if (info.failed_not_retried > 0)
    PrintEvent(fmt::format("{} failed trial{} from earlier runs {} kept as failed all the same: {}",
                           info.failed_not_retried, info.failed_not_retried == 1 ? "" : "s",
                           info.failed_not_retried == 1 ? "is" : "are", info.retry_limits));
}

void TerminalObserver::OnWarning(const std::string& message) {
  PrintEvent("warning: " + message);
}

void TerminalObserver::OnTrialStarted(const TrialRecord& trial) {
  // A budgeted trial's every promotion is a new attempt too: it is named as a promotion,
  // not as a retry of something that went wrong.
  // A PBT segment is a member's next stretch of training, not a promotion.
  const bool pbt = context_.scheduler && context_.scheduler->type == "pbt";
  std::string attempt = trial.budget && trial.rung > 0
                            ? (pbt ? fmt::format(" (segment {})", trial.rung + 1)
                                   : fmt::format(" (promoted to rung {})", trial.rung))
                        : trial.attempt > 1 ? fmt::format(" (attempt {})", trial.attempt)
                                            : "";
  std::string budget;
  if (trial.budget && context_.scheduler)
    budget = fmt::format(" up to {} {:g}", context_.scheduler->resource, *trial.budget);
  // A cluster job's GPUs are SLURM's choice: its job id is what says where it runs.
  const std::string where =
      trial.job_id.empty()
          ? DescribeGpus(trial.gpus)
          : fmt::format("SLURM job {} ({} GPU{})", trial.job_id, trial.gpus.size(),
                        trial.gpus.size() == 1 ? "" : "s");
  PrintEvent(fmt::format("trial {} started on {}{}{}", trial.number, where, budget, attempt));
}

void TerminalObserver::OnTrialPruned(const TrialRecord& trial, const std::string& reason) {
  PrintEvent(fmt::format("trial {} pruned: {}", trial.number, reason));
}

// What a finished trial reported: the metric's value, or with several objectives or
// constraints each objective's value and whether the trial is feasible.
std::string TerminalObserver::ResultText(const TrialRecord& trial) const {
  if (!context_.pareto) return fmt::format("{}={:.6g}", context_.metric.name, *trial.objective);
  const Objective& objective = *context_.pareto;
  const std::vector<double> values = objective.Values(trial.last_metrics);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < values.size(); ++i)
    parts.push_back(std::isnan(values[i]) ? fmt::format("{}=-", objective.metrics()[i].name)
                                          : fmt::format("{}={:.6g}", objective.metrics()[i].name, values[i]));
  std::string text = fmt::format("{}", fmt::join(parts, ", "));
  if (objective.constrained()) {
    const double violation = objective.Violation(trial.last_metrics);
    text += violation == 0 ? ", feasible" : fmt::format(", infeasible +{:g}", violation);
  }
  return text;
}

// A completed trial without a number for a constraint's metric breaks it by +inf; when
// that is a misspelt name every trial will, so it is said at the first one, not only in
// the summary after the whole sweep.
void TerminalObserver::WarnUnreportedConstraints(const TrialRecord& trial) {
  if (!context_.pareto) return;
  for (const ConstraintSpec& c : context_.pareto->constraints()) {
    if (ReportedNumber(trial.last_metrics, c.metric)) continue;
    if (std::find(unreported_warned_.begin(), unreported_warned_.end(), c.metric) != unreported_warned_.end())
      continue;
    unreported_warned_.push_back(c.metric);
    OnWarning(fmt::format("trial {} completed without a number for '{}', the metric of a constraint, "
                          "so it counts as infeasible{}",
                          trial.number, c.metric, ReportedHint(trial.last_metrics, c.metric)));
  }
}

void TerminalObserver::OnTrialFinished(const TrialRecord& trial) {
  const double seconds = trial.end_time - trial.start_time;
  if (trial.state == TrialState::kCompleted) WarnUnreportedConstraints(trial);
  if (trial.state == TrialState::kCompleted || trial.state == TrialState::kPaused) {
    PrintEvent(fmt::format("trial {} {} in {}: {}", trial.number,
                           trial.state == TrialState::kPaused ? "paused after its budget"
                                                              : "completed",
                           FormatDuration(seconds), ResultText(trial)));
  } else if (trial.state == TrialState::kPruned && trial.failure_reason.starts_with(kNotRun)) {
    PrintEvent(fmt::format("trial {} {}", trial.number, trial.failure_reason));  // cv
  } else if (trial.state == TrialState::kPruned) {
    PrintEvent(fmt::format("trial {} stopped after {}{}", trial.number, FormatDuration(seconds),
                           trial.objective ? fmt::format(": {}={:.6g}", context_.metric.name,
                                                         *trial.objective)
                                           : ""));
  } else {
    PrintEvent(fmt::format("trial {} {} after {}: {} (gpusweep show {})", trial.number,
                           ToString(trial.state), FormatDuration(seconds), trial.failure_reason,
                           trial.number));
  }
}

void TerminalObserver::OnTick(const std::vector<TrialRecord>& trials) {
  trials_ = &trials;  // the run loop's own vector, alive for the whole run: no copy
  const double now = wall_clock_();
  if (terminal_.is_tty) {
    if (now - last_draw_ >= kRedrawSeconds) DrawStatus();
    return;
  }
  if (now - last_plain_progress_ >= kPlainProgressSeconds) {
    last_plain_progress_ = now;
    context_.now = now;
    Progress progress = ComputeProgress(*trials_, context_, info_.concurrency, started_at_);
    PrintEvent(FormatProgressLine(progress, context_));
  }
}

void TerminalObserver::Close() {
  if (terminal_.is_tty && !status_line_.empty()) {
    std::fputs("\r\x1b[K", out_);
    status_line_.clear();
  }
  std::fflush(out_);
}

void TerminalObserver::PrintEvent(const std::string& text) {
  if (terminal_.is_tty) {
    std::fputs("\r\x1b[K", out_);
    std::fputs(text.c_str(), out_);
    std::fputc('\n', out_);
    if (!status_line_.empty()) DrawStatus();
  } else {
    std::fprintf(out_, "[%s] %s\n", Timestamp().c_str(), text.c_str());
  }
  std::fflush(out_);
}

void TerminalObserver::DrawStatus() {
  const double now = wall_clock_();
  last_draw_ = now;
  context_.now = now;
  context_.width = terminal_.width - 1;  // never touch the last column: no auto-wrap
  static const std::vector<TrialRecord> kNone;
  Progress progress = ComputeProgress(trials_ ? *trials_ : kNone, context_, info_.concurrency,
                                      started_at_);
  status_line_ = FormatProgressLine(progress, context_);
  std::fputs("\r\x1b[K", out_);
  std::fputs(status_line_.c_str(), out_);
  std::fflush(out_);
}

std::string TerminalObserver::Timestamp() const {
  std::time_t now = static_cast<std::time_t>(wall_clock_());
  std::tm local{};
  localtime_r(&now, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%H:%M:%S", &local);
  return buffer;
}

}  // namespace gpusweep
