// MakeScheduler (scheduler.h): validation of the scheduler config, then construction.
// The config loader validates the same with file positions; this is the library's own
// guard for configs built in code (the benchmark, tests).
#include <cmath>

#include <fmt/format.h>

#include "gpusweep/scheduler.h"
#include "schedule/asha.h"
#include "schedule/hyperband.h"
#include "schedule/median_rule.h"
#include "schedule/successive_halving.h"

namespace gpusweep {
namespace {

using schedule_detail::HyperbandSMax;

Status Invalid(std::string message) { return Fail(ErrorCode::kInvalidConfig, std::move(message)); }

// min_resource, max_resource and reduction_factor (sh, asha, hyperband). The negated
// comparisons also reject NaN.
Status ValidateRungs(const SchedulerConfig& c) {
  if (!(c.min_resource > 0))
    return Invalid(fmt::format("scheduler.min_resource: {} must be greater than 0; e.g. "
                               "min_resource: 1",
                               c.min_resource));
  if (!(c.max_resource >= c.min_resource))
    return Invalid(fmt::format("scheduler.max_resource: {} is below min_resource {}; make "
                               "max_resource >= min_resource (e.g. max_resource: 27)",
                               c.max_resource, c.min_resource));
  if (!(c.reduction_factor > 1))
    return Invalid(fmt::format("scheduler.reduction_factor: {} must be greater than 1; e.g. "
                               "reduction_factor: 3 (keep the top third at each rung)",
                               c.reduction_factor));
  return {};
}

Status ValidateHalving(const SchedulerConfig& c, TrialStyle style) {
  if (style == TrialStyle::kIterative)
    return Invalid(
        "scheduler.type: successive_halving runs rounds of budgeted trials; make the command "
        "read {{budget}} (e.g. --epochs {{budget}}), or use type: asha for trials that "
        "report every step");
  if (c.growth == BudgetGrowth::kLinear && !(c.budget_step > 0))
    return Invalid(fmt::format("scheduler.budget_step: {} must be greater than 0 with growth: "
                               "linear; e.g. budget_step: 2",
                               c.budget_step));
  return {};
}

Status ValidateBrackets(const SchedulerConfig& c) {
  if (!c.brackets) return {};
  const int available = HyperbandSMax(c.min_resource, c.max_resource, c.reduction_factor) + 1;
  if (*c.brackets < 1 || *c.brackets > available)
    return Invalid(fmt::format("scheduler.brackets: {} is not between 1 and {} (floor(log_{:g}"
                               "(max_resource / min_resource)) + 1); remove it to use all {}",
                               *c.brackets, available, c.reduction_factor, available));
  return {};
}

}  // namespace

Expected<std::unique_ptr<Scheduler>> MakeScheduler(const SchedulerConfig& config, Mode mode,
                                                   int configurations, TrialStyle style) {
  return MakeScheduler(config, Objective(MetricSpec{"objective", mode}), configurations, style);
}

Expected<std::unique_ptr<Scheduler>> MakeScheduler(const SchedulerConfig& config,
                                                   const Objective& objective,
                                                   int configurations, TrialStyle style) {
  using namespace schedule_detail;
  const Mode mode = objective.primary().mode;
  const Ranking ranking =
      objective.multi() || objective.constrained() ? Ranking::kPareto : Ranking::kValue;
  if (ranking == Ranking::kPareto &&
      (config.kind == SchedulerKind::kMedian || config.kind == SchedulerKind::kPbt))
    return Fail(ErrorCode::kInvalidConfig, fmt::format(
        "scheduler.type: {} ranks trials by one metric and cannot honour several objectives or "
        "constraints; use asha, hyperband or successive_halving (Pareto ranking), or one metric "
        "without constraints", config.kind == SchedulerKind::kMedian ? "median" : "pbt"));
  switch (config.kind) {
    case SchedulerKind::kNone:
      return std::unique_ptr<Scheduler>();
    case SchedulerKind::kMedian:
      return std::unique_ptr<Scheduler>(
          std::make_unique<MedianStopping>(config, mode, configurations, style));
    case SchedulerKind::kSuccessiveHalving:
      GS_TRY(ValidateRungs(config));
      GS_TRY(ValidateHalving(config, style));
      return std::unique_ptr<Scheduler>(
          std::make_unique<SuccessiveHalving>(config, mode, configurations, ranking));
    case SchedulerKind::kAsha:
      GS_TRY(ValidateRungs(config));
      return MakeAsha(config, mode, configurations, style, ranking);
    case SchedulerKind::kHyperband:
    case SchedulerKind::kBohb:  // Hyperband's brackets; the BOHB policy draws the configurations
      GS_TRY(ValidateRungs(config));
      GS_TRY(ValidateBrackets(config));
      return MakeHyperband(config, mode, configurations, style, ranking);
    case SchedulerKind::kPbt:  // a search policy of its own (MakePbtPolicy), no Scheduler
      return Fail(ErrorCode::kInvalidArgument,
                  "scheduler.type: pbt is a search policy; build it with MakePbtPolicy");
  }
  return Fail(ErrorCode::kInvalidConfig, "scheduler.type: unknown scheduler");
}

}  // namespace gpusweep
