// What early stopping saved (EstimateEarlyStoppingSavings, FormatEarlyStopping).
#include <algorithm>

#include <fmt/format.h>

#include "gpusweep/report.h"

namespace gpusweep {
namespace {

// How far a pruned trial got: its last reported resource, else the budget it ran with.
std::optional<double> ResourceReached(const TrialRecord& trial, const std::string& resource) {
  if (const auto it = trial.last_metrics.find(resource);
      it != trial.last_metrics.end() && it->is_number() && it->get<double>() > 0)
    return it->get<double>();
  if (trial.budget && *trial.budget > 0) return trial.budget;
  return std::nullopt;
}

}  // namespace

EarlyStoppingSavings EstimateEarlyStoppingSavings(const std::vector<TrialRecord>& trials,
                                                  const SchedulerSummary& scheduler) {
  EarlyStoppingSavings savings;
  for (const TrialRecord& trial : trials) {
    if (trial.state == TrialState::kRunning || trial.end_time <= 0) continue;
    const double seconds = std::max(0.0, trial.end_time - trial.start_time);
    savings.trial_seconds_used += seconds;
    if (trial.state != TrialState::kPruned) continue;
    ++savings.pruned;
    const std::optional<double> reached = ResourceReached(trial, scheduler.resource);
    if (!reached || scheduler.max_resource <= *reached) continue;
    const double saved = seconds * (scheduler.max_resource / *reached - 1);
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
  if (s.seconds_saved <= 0) return text;
  return text + fmt::format(", saving about {} of trial time ({} GPU, {} CPU; estimated from "
                            "each pruned trial's pace to {} {})",
                            FormatDuration(s.seconds_saved), FormatDuration(s.gpu_seconds_saved),
                            FormatDuration(s.cpu_seconds_saved),
                            ctx.scheduler->max_resource, ctx.scheduler->resource);
}

}  // namespace gpusweep
