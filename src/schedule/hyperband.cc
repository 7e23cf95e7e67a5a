#include "schedule/hyperband.h"

#include <algorithm>
#include <cmath>

#include "schedule/asha.h"
#include "schedule/rung_table.h"

namespace gpusweep::schedule_detail {

int HyperbandSMax(double min_resource, double max_resource, double eta) {
  int s = 0;
  // Same tolerance as RungResources: a rung within 1e-9 of max is max.
  while (min_resource * std::pow(eta, s + 1) <= max_resource * (1 + 1e-9)) ++s;
  return s;
}

namespace {

// r_s = max * eta^-s, snapped to min_resource when it is min up to rounding (R a power
// of eta), so bracket s_max's rungs are exactly ASHA's.
double FirstRung(const SchedulerConfig& config, int s) {
  const double first = config.max_resource / std::pow(config.reduction_factor, s);
  return std::abs(first - config.min_resource) <= 1e-9 * config.max_resource
             ? config.min_resource
             : first;
}

}  // namespace

HyperbandPlan PlanHyperband(const SchedulerConfig& config) {
  const double eta = config.reduction_factor;
  HyperbandPlan plan;
  plan.s_max = HyperbandSMax(config.min_resource, config.max_resource, eta);
  const int count = std::min(config.brackets.value_or(plan.s_max + 1), plan.s_max + 1);
  for (int i = 0; i < count; ++i) {
    const int s = plan.s_max - i;
    plan.brackets.push_back(s);
    const double share = (plan.s_max + 1.0) / (s + 1.0) * std::pow(eta, s);
    plan.slots.push_back(std::max(1, static_cast<int>(std::ceil(share - 1e-9))));
    plan.rungs.push_back(RungResources(FirstRung(config, s), config.max_resource, eta));
    plan.cycle.insert(plan.cycle.end(), plan.slots.back(), i);
  }
  return plan;
}

std::unique_ptr<Scheduler> MakeHyperband(const SchedulerConfig& config, Mode mode,
                                         int configurations, TrialStyle style) {
  HyperbandPlan plan = PlanHyperband(config);
  std::vector<AshaBracket> brackets;
  for (size_t i = 0; i < plan.brackets.size(); ++i) {
    brackets.emplace_back(plan.brackets[i], std::move(plan.rungs[i]), config.reduction_factor,
                          mode, config.resource);
  }
  return std::make_unique<AsyncBrackets>(std::move(brackets), std::move(plan.cycle),
                                         configurations, style);
}

}  // namespace gpusweep::schedule_detail
