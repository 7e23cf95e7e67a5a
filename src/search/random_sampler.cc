#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {

Json ParamValueFromBits(const ParamSpec& p, std::uint64_t bits) {
  switch (p.kind) {
    case ParamKind::kUniform:
      return std::clamp(p.low + UnitFromBits(bits) * (p.high - p.low), p.low, p.high);
    case ParamKind::kLogUniform: {
      const double log_low = std::log(p.low), log_high = std::log(p.high);
      return std::clamp(std::exp(log_low + UnitFromBits(bits) * (log_high - log_low)), p.low,
                        p.high);
    }
    case ParamKind::kInt:  // floor(u * cardinality), exact on the 64-bit integer
      return IntValue(p, BelowFromBits(bits, IntCardinality(p)));
    case ParamKind::kChoice:
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
  for (const ParamSpec& p : space_.params) s.params[p.name] = ParamValueFromBits(p, stream.Next());
  return s;
}

}  // namespace gpusweep::search
