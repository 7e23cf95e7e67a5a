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

}  // namespace

EarlyStoppingSavings EstimateEarlyStoppingSavings(const std::vector<TrialRecord>& trials,
                                                  const SchedulerSummary& scheduler) {
  EarlyStoppingSavings savings;
  for (const TrialRecord& trial : trials) {
    if (trial.state != TrialState::kPruned) continue;
    ++savings.pruned;
    const std::optional<double> reached = ResourceReached(trial, scheduler.resource);
    if (!reached || scheduler.max_resource <= *reached) continue;
    const double saved = scheduler.max_resource - *reached;
    savings.resource_saved += saved;
    if (trial.gpus.empty()) savings.cpu_resource_saved += saved;
    else savings.gpu_resource_saved += saved * static_cast<double>(trial.gpus.size());
  }
  return savings;
}

std::string FormatEarlyStopping(const std::vector<TrialRecord>& trials, const ReportContext& ctx) {
  if (!ctx.scheduler) return "";
  return FormatEarlyStopping(EstimateEarlyStoppingSavings(trials, *ctx.scheduler),
                             static_cast<int>(trials.size()), ctx);
}

std::string FormatEarlyStopping(const EarlyStoppingSavings& s, int recorded,
                                const ReportContext& ctx) {
  if (!ctx.scheduler || s.pruned == 0) return "";
  std::string text = fmt::format("{} of {} trials pruned early by {}", s.pruned, recorded,
                                 ctx.scheduler->type);
  if (s.resource_saved <= 0) return text;
  const double full = ctx.scheduler->max_resource * static_cast<double>(recorded);
  return text + fmt::format("; {} not trained: {:g} of {:g} ({:.0f}%)", ctx.scheduler->resource,
                            s.resource_saved, full, 100 * s.resource_saved / full);
}

}  // namespace gpusweep
