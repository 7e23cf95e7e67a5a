// What early stopping saved (EstimateEarlyStoppingSavings, FormatEarlyStopping).
#include <algorithm>

#include <fmt/format.h>

#include "gpusweep/report.h"

namespace gpusweep {

EarlyStoppingSavings EstimateEarlyStoppingSavings(const std::vector<TrialRecord>& trials,
                                                  const SchedulerSummary& scheduler) {
  EarlyStoppingSavings savings;
  for (const TrialRecord& trial : trials)
    AddPrunedTrial(savings, trial, scheduler.resource, scheduler.max_resource);
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
