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

// Whole-number budgets when min and max are whole (epochs, images): a rung at epoch
// 1.11 would be decided at epoch 2 and {{budget}} would render as 1.1111111111111112.
std::vector<double> WholeRungs(std::vector<double> rungs, const SchedulerConfig& config) {
  if (std::floor(config.min_resource) != config.min_resource ||
      std::floor(config.max_resource) != config.max_resource)
    return rungs;
  for (double& r : rungs) r = std::clamp(std::round(r), config.min_resource, config.max_resource);
  rungs.erase(std::unique(rungs.begin(), rungs.end()), rungs.end());
  return rungs;
}

// Smooth weighted round-robin: every bracket gets its share of each stretch of trials
// (not all of bracket s_max first), so a sweep shorter than one cycle still uses every
// bracket in proportion. Deterministic: ties go to the more aggressive bracket.
std::vector<int> InterleavedCycle(const std::vector<int>& slots) {
  int total = 0;
  for (int n : slots) total += n;
  std::vector<int> credit(slots.size(), 0), cycle;
  for (int step = 0; step < total; ++step) {
    for (std::size_t i = 0; i < slots.size(); ++i) credit[i] += slots[i];
    const auto best = std::max_element(credit.begin(), credit.end()) - credit.begin();
    credit[best] -= total;
    cycle.push_back(static_cast<int>(best));
  }
  return cycle;
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
    plan.rungs.push_back(
        WholeRungs(RungResources(FirstRung(config, s), config.max_resource, eta), config));
  }
  plan.cycle = InterleavedCycle(plan.slots);
  return plan;
}

std::unique_ptr<Scheduler> MakeHyperband(const SchedulerConfig& config, Mode mode,
                                         int configurations, TrialStyle style, Ranking ranking) {
  HyperbandPlan plan = PlanHyperband(config);
  std::vector<AshaBracket> brackets;
  for (size_t i = 0; i < plan.brackets.size(); ++i) {
    brackets.emplace_back(plan.brackets[i], std::move(plan.rungs[i]), config.reduction_factor,
                          mode, config.resource, ranking);
  }
  return std::make_unique<AsyncBrackets>(std::move(brackets), std::move(plan.cycle),
                                         configurations, style);
}

}  // namespace gpusweep::schedule_detail
