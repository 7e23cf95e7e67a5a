// What early stopping saved (EstimateEarlyStoppingSavings, FormatEarlyStopping).
#include <algorithm>

#include <fmt/format.h>

#include "gpusweep/report.h"

namespace gpusweep {
namespace {

// How far a trial got: its last reported resource, else the budget it ran with.
std::optional<double> ResourceReached(const TrialRecord& trial, const std::string& resource) {
  if (const auto it = trial.last_metrics.find(resource);
      it != trial.last_metrics.end() && it->is_number() && it->get<double>() > 0)
    return it->get<double>();
  if (trial.budget && *trial.budget > 0) return trial.budget;
  return std::nullopt;
}

double Seconds(const TrialRecord& trial) { return std::max(0.0, trial.end_time - trial.start_time); }

// Seconds per resource unit: the completed trials' pace (they include start-up, spread
// over a full run, so it is the steadier estimate); without any, the pruned trials'.
std::optional<double> Pace(const std::vector<TrialRecord>& trials, const std::string& resource,
                           TrialState state) {
  double seconds = 0, units = 0;
  for (const TrialRecord& trial : trials) {
    if (trial.state != state || trial.end_time <= 0) continue;
    if (const auto reached = ResourceReached(trial, resource)) {
      seconds += Seconds(trial);
      units += *reached;
    }
  }
  if (units <= 0) return std::nullopt;
  return seconds / units;
}

}  // namespace

EarlyStoppingSavings EstimateEarlyStoppingSavings(const std::vector<TrialRecord>& trials,
                                                  const SchedulerSummary& scheduler) {
  EarlyStoppingSavings savings;
  std::optional<double> pace = Pace(trials, scheduler.resource, TrialState::kCompleted);
  if (!pace) pace = Pace(trials, scheduler.resource, TrialState::kPruned);
  for (const TrialRecord& trial : trials) {
    if (trial.state == TrialState::kRunning || trial.end_time <= 0) continue;
    savings.trial_seconds_used += Seconds(trial);
    if (trial.state != TrialState::kPruned) continue;
    ++savings.pruned;
    const std::optional<double> reached = ResourceReached(trial, scheduler.resource);
    if (!reached || scheduler.max_resource <= *reached) continue;
    savings.resource_saved += scheduler.max_resource - *reached;
    if (!pace) continue;
    const double saved = *pace * (scheduler.max_resource - *reached);
    savings.seconds_saved += saved;
    if (trial.gpus.empty()) savings.cpu_seconds_saved += saved;
    else savings.gpu_seconds_saved += saved * static_cast<double>(trial.gpus.size());
  }
  return savings;
}

std::string FormatEarlyStopping(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  if (!ctx.scheduler) return "";
  const EarlyStoppingSavings s = EstimateEarlyStoppingSavings(trials, *ctx.scheduler);
  if (s.pruned == 0) return "";
  std::string text = fmt::format("{} of {} trials pruned early by {}", s.pruned, trials.size(),
                                 ctx.scheduler->type);
  if (s.resource_saved <= 0) return text;
  const double full = ctx.scheduler->max_resource * static_cast<double>(trials.size());
  text += fmt::format(": {:g} of {:g} {} not trained ({:.0f}%)", s.resource_saved, full,
                      ctx.scheduler->resource, 100 * s.resource_saved / full);
  if (s.seconds_saved <= 0) return text;
  return text + fmt::format(", about {} of trial time at the completed trials' pace ({} GPU, "
                            "{} CPU)",
                            FormatDuration(s.seconds_saved), FormatDuration(s.gpu_seconds_saved),
                            FormatDuration(s.cpu_seconds_saved));
}

}  // namespace gpusweep
