#include "report/groups.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/group_rank.h"
#include "gpusweep/objective.h"
#include "report/text.h"

namespace gpusweep::report {
namespace {

Json WithoutIgnored(const Json& params, const std::vector<std::string>& ignored) {
  Json key = params;
  if (key.is_object())
    for (const std::string& name : ignored) key.erase(name);
  return key;
}

void Summarize(ParamGroup& group) {
  const auto n = static_cast<double>(group.completed.size());
  if (group.completed.empty()) return;
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (const TrialRecord* t : group.completed) {
    sum += *t->objective;
    lo = std::min(lo, *t->objective);
    hi = std::max(hi, *t->objective);
  }
  const double mean = sum / n;
  double squares = 0;
  for (const TrialRecord* t : group.completed) squares += (*t->objective - mean) * (*t->objective - mean);
  group.mean = mean;
  group.stddev = n > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  group.min = lo;
  group.max = hi;
}

}  // namespace

std::vector<ParamGroup> GroupTrials(const std::vector<TrialRecord>& trials,
                                    const MetricSpec& metric,
                                    const std::vector<std::string>& ignored) {
  std::vector<const TrialRecord*> ordered;
  for (const TrialRecord& t : trials) ordered.push_back(&t);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto* a, const auto* b) { return a->number < b->number; });
  std::vector<ParamGroup> groups;
  std::map<std::string, size_t> index;  // compact JSON of the key -> position in groups
  for (const TrialRecord* t : ordered) {
    Json key = WithoutIgnored(t->params, ignored);
    auto [it, inserted] = index.try_emplace(key.dump(), groups.size());
    if (inserted) groups.push_back(ParamGroup{std::move(key), {}, {}, 0, {}, {}, {}, {}});
    ParamGroup& group = groups[it->second];
    group.trials.push_back(t);
    if (t->state == TrialState::kCompleted && t->objective && !std::isnan(*t->objective))
      group.completed.push_back(t);
    group.spoiled += SpoilsItsGroup(*t) ? 1 : 0;
  }
  for (ParamGroup& group : groups) Summarize(group);
  auto standing = [](const ParamGroup& g) {
    return GroupStanding{static_cast<int>(g.completed.size()), g.spoiled, g.mean.value_or(0),
                         g.trials.front()->number};
  };
  std::sort(groups.begin(), groups.end(), [&](const ParamGroup& a, const ParamGroup& b) {
    return GroupRanksBefore(metric.mode, standing(a), standing(b));
  });
  return groups;
}

bool HasRepeats(const std::vector<ParamGroup>& groups) {
  return std::any_of(groups.begin(), groups.end(),
                     [](const ParamGroup& g) { return g.trials.size() > 1; });
}

bool RanksByGroup(const std::vector<ParamGroup>& groups, const ReportContext& ctx) {
  // Population-based training's segments of one member share params while its
  // training goes on: they are one run at growing resource, not repeats to average.
  const bool pbt = ctx.scheduler && ctx.scheduler->type == "pbt";
  return !ctx.nas && !pbt && HasRepeats(groups) && groups.front().mean.has_value();
}

std::string MeanText(const ParamGroup& group) {
  if (!group.mean) return "-";
  if (group.completed.size() == 1) return fmt::format("{} (n=1)", FormatNumber(*group.mean));
  return fmt::format("{} ± {} (n={})", FormatNumber(*group.mean), FormatNumber(*group.stddev),
                     group.completed.size());
}

}  // namespace gpusweep::report
