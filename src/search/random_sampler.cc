#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "search/distributions.h"
#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {

std::pair<double, double> LogIntBounds(const ParamSpec& p) {
  return {std::log(static_cast<double>(p.int_low) - 0.5),
          std::log(static_cast<double>(p.int_high) + 0.5)};
}

std::int64_t LogIntValue(const ParamSpec& p, double u) {
  const auto [log_low, log_high] = LogIntBounds(p);
  const double x = std::round(std::exp(log_low + std::clamp(u, 0.0, 1.0) * (log_high - log_low)));
  // Rounding error at the ends (exp(log(high + 0.5)) may be high + 0.5 + ulp).
  return std::clamp(static_cast<std::int64_t>(x), p.int_low, p.int_high);
}

Json ParamValueFromBits(const ParamSpec& p, std::uint64_t bits) {
  switch (p.kind) {
    case ParamKind::kUniform:
      return RoundToQ(p, std::clamp(p.low + UnitFromBits(bits) * (p.high - p.low), p.low, p.high));
    case ParamKind::kLogUniform: {
      const double log_low = std::log(p.low), log_high = std::log(p.high);
      return RoundToQ(p, std::clamp(std::exp(log_low + UnitFromBits(bits) * (log_high - log_low)),
                                    p.low, p.high));
    }
    case ParamKind::kNormal:
    case ParamKind::kLogNormal:  // inverse-CDF: exact draws from the truncated distribution
      return RoundToQ(p, NormalFromUnit(p, UnitFromBits(bits)));
    case ParamKind::kInt: {  // floor(u * cardinality), exact on the 64-bit integer
      const std::int64_t value = p.int_log ? LogIntValue(p, UnitFromBits(bits))
                                           : IntValue(p, BelowFromBits(bits, IntCardinality(p)));
      return p.q > 0 ? RoundToQ(p, static_cast<double>(value)) : Json(value);
    }
    case ParamKind::kChoice:
      if (!p.weights.empty()) return p.values[WeightedIndex(p, UnitFromBits(bits))];
      return p.values[BelowFromBits(bits, p.values.size())];
    case ParamKind::kConstant:
      return p.constant;
  }
  return nullptr;
}


RandomSampler::RandomSampler(SearchSpace space, int trials, std::uint64_t seed)
    : space_(std::move(space)), trials_(trials), seed_(seed) {}

int RandomSampler::total_trials() const { return trials_; }

Suggestion RandomSampler::Suggest(int number, const std::vector<TrialRecord>&) const {
  SplitMix64 stream = TrialStream(seed_, static_cast<std::uint64_t>(number));
  Suggestion s{number, 0, Json::object()};
  // Every leaf consumes its draw, active or not, so a leaf's value does not depend on
  // which branches are active; an inactive leaf is left out (param_conditions.h).
  for (const ParamSpec& p : space_.params) {
    const std::uint64_t bits = stream.Next();
    if (IsActive(p, s.params)) s.params[p.name] = ParamValueFromBits(p, bits);
  }
  return s;
}

}  // namespace gpusweep::search
