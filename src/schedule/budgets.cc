// RungResources, RoundBudgets and ToString(Verdict) (scheduler.h): the arithmetic every
// scheduler shares.
#include <cmath>
#include <vector>

#include "gpusweep/scheduler.h"

namespace gpusweep {
namespace {

// Budgets from `first` grown by `next` while clearly below `max`, then `max` itself.
// "Clearly": a budget within 1e-9 (relative) of max is max, so 27 * 3^-3 * 3^3 gives
// one rung at 27, not 26.999999 and 27. Invalid growth yields just {max}.
template <class Next>
std::vector<double> GrowTo(double first, double max, Next next) {
  std::vector<double> budgets;
  const double limit = max * (1 - 1e-9);
  for (double budget = first; budget > 0 && budget < limit; budget = next(budget)) {
    if (!budgets.empty() && budget <= budgets.back()) break;  // no growth: stop
    budgets.push_back(budget);
  }
  budgets.push_back(max);
  return budgets;
}

}  // namespace

std::string_view ToString(Verdict verdict) {
  switch (verdict) {
    case Verdict::kContinue: return "continue";
    case Verdict::kStop: return "stop";
    case Verdict::kPause: return "pause";
    case Verdict::kPromote: return "promote";
    case Verdict::kComplete: return "complete";
  }
  return "unknown";
}

std::vector<double> RungResources(double min_resource, double max_resource, double eta) {
  if (!(eta > 1)) return {max_resource};
  // min * eta^k computed by pow, not repeated products, so rungs stay exact powers.
  int k = 0;
  return GrowTo(min_resource, max_resource,
                [&](double) { return min_resource * std::pow(eta, ++k); });
}

std::vector<double> RoundBudgets(const SchedulerConfig& config) {
  if (config.growth == BudgetGrowth::kGeometric)
    return RungResources(config.min_resource, config.max_resource, config.reduction_factor);
  if (!(config.budget_step > 0)) return {config.max_resource};
  int k = 0;
  return GrowTo(config.min_resource, config.max_resource,
                [&](double) { return config.min_resource + ++k * config.budget_step; });
}

}  // namespace gpusweep
