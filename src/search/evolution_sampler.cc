// Regularized evolution (contract in evolution_sampler.h).
#include "search/evolution_sampler.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "gpusweep/objective.h"
#include "search/splitmix64.h"

namespace gpusweep::search {
namespace {

constexpr std::uint64_t kEvolutionSalt = 0xE7017E5A11D00001ULL;
constexpr int kEvolutionRedraws = 32;  // tries for a value different from the parent's

struct EvolutionMember {
  int number = 0;
  int tier = 0;  // 0 completed, 1 pruned or paused
  double value = 0;
  const Params* params = nullptr;
};

bool EvolutionCanVary(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kUniform: return p.high > p.low;
    case ParamKind::kLogUniform:
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: return true;
    case ParamKind::kInt: return IntCardinality(p) >= 2;
    case ParamKind::kChoice: return p.values.size() >= 2;
    case ParamKind::kConstant: return false;
  }
  return false;
}

bool EvolutionHasAll(const SearchSpace& space, const Params& params) {
  if (!params.is_object()) return false;
  return std::all_of(space.params.begin(), space.params.end(),
                     [&](const ParamSpec& p) { return params.contains(p.name); });
}

}  // namespace

EvolutionSampler::EvolutionSampler(SearchSpace space, int trials, std::uint64_t seed,
                                   const EvolutionConfig& config, Mode mode)
    : space_(std::move(space)),
      prior_(space_, trials, seed),
      seed_(seed),
      config_(config),
      mode_(mode) {
  assert(config.sample >= 1 && config.sample <= config.population);
  for (std::size_t i = 0; i < space_.params.size(); ++i)
    if (EvolutionCanVary(space_.params[i])) mutable_.push_back(i);
}

int EvolutionSampler::total_trials() const { return prior_.total_trials(); }

Suggestion EvolutionSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  std::vector<EvolutionMember> usable;
  int warm = 0;
  for (const TrialRecord& t : history) {
    if (t.number >= number || !t.objective || std::isnan(*t.objective)) continue;
    const bool completed = t.state == TrialState::kCompleted;
    if (!completed && t.state != TrialState::kPruned && t.state != TrialState::kPaused) continue;
    if (!EvolutionHasAll(space_, t.params)) continue;
    usable.push_back({t.number, completed ? 0 : 1, *t.objective, &t.params});
    warm += t.number < 0 ? 1 : 0;
  }
  const int population = config_.population;
  if (mutable_.empty() || usable.empty() || number < population - std::min(warm, population))
    return prior_.Suggest(number, history);

  // The newest P by trial number (the input order does not matter).
  std::sort(usable.begin(), usable.end(),
            [](const EvolutionMember& a, const EvolutionMember& b) { return a.number < b.number; });
  if (usable.size() > static_cast<std::size_t>(population))
    usable.erase(usable.begin(), usable.end() - population);

  SplitMix64 rng = TrialStream(seed_ ^ kEvolutionSalt, static_cast<std::uint64_t>(number));
  // S distinct members: a partial Fisher-Yates shuffle of the population's indices.
  std::vector<std::size_t> order(usable.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::size_t sample = std::min<std::size_t>(config_.sample, order.size());
  for (std::size_t i = 0; i < sample; ++i)
    std::swap(order[i], order[i + BelowFromBits(rng.Next(), order.size() - i)]);
  std::size_t parent = order[0];
  for (std::size_t i = 1; i < sample; ++i) {
    const EvolutionMember& a = usable[order[i]];
    const EvolutionMember& b = usable[parent];
    const bool better = a.tier != b.tier ? a.tier < b.tier
                        : a.value != b.value ? RanksBefore(mode_, a.value, b.value)
                                             : a.number < b.number;
    if (better) parent = order[i];
  }

  Params child = Json::object();  // declaration order, the parent's values
  for (const ParamSpec& p : space_.params) child[p.name] = (*usable[parent].params)[p.name];
  const ParamSpec& changed = space_.params[mutable_[BelowFromBits(rng.Next(), mutable_.size())]];
  Json value = ParamValueFromBits(changed, rng.Next());
  for (int redraw = 0; redraw < kEvolutionRedraws && value == child[changed.name]; ++redraw)
    value = ParamValueFromBits(changed, rng.Next());
  child[changed.name] = std::move(value);
  return Suggestion{number, 0, std::move(child)};
}

}  // namespace gpusweep::search
