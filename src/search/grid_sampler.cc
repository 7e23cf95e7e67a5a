#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "search/samplers.h"

namespace gpusweep::search {

std::uint64_t IntCardinality(const ParamSpec& spec) {
  if (spec.int_step <= 0 || spec.int_high < spec.int_low) return 0;
  // Unsigned difference: exact even when high - low overflows int64.
  const std::uint64_t span =
      static_cast<std::uint64_t>(spec.int_high) - static_cast<std::uint64_t>(spec.int_low);
  const std::uint64_t steps = span / static_cast<std::uint64_t>(spec.int_step);
  // The full int64 range has 2^64 values; saturating loses only its top value.
  return steps == std::numeric_limits<std::uint64_t>::max() ? steps : steps + 1;
}

std::int64_t IntValue(const ParamSpec& spec, std::uint64_t index) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(spec.int_low) +
                                   index * static_cast<std::uint64_t>(spec.int_step));
}

GridSampler::GridSampler(SearchSpace space, std::int64_t grid_size, int repeats)
    : space_(std::move(space)), grid_size_(grid_size), repeats_(repeats) {}

int GridSampler::total_trials() const { return static_cast<int>(grid_size_ * repeats_); }

Suggestion GridSampler::Suggest(int number, const std::vector<TrialRecord>&) const {
  const std::int64_t k = number;
  const std::int64_t repeat = k / grid_size_;
  if (IsConditional(space_))  // only the active combinations (param_conditions.h)
    return Suggestion{number, static_cast<int>(repeat),
                      ActiveGridPoint(space_, static_cast<std::uint64_t>(k % grid_size_))};
  std::uint64_t rest = static_cast<std::uint64_t>(k % grid_size_);

  // Mixed-radix digits, least significant = last declared varying param.
  std::vector<std::uint64_t> digit(space_.params.size(), 0);
  for (std::size_t i = space_.params.size(); i-- > 0;) {
    const ParamSpec& p = space_.params[i];
    std::uint64_t radix = 1;
    if (p.kind == ParamKind::kChoice) radix = p.values.size();
    if (p.kind == ParamKind::kInt) radix = IntCardinality(p);
    digit[i] = rest % radix;
    rest /= radix;
  }

  Suggestion s{number, static_cast<int>(repeat), Json::object()};
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    const ParamSpec& p = space_.params[i];
    switch (p.kind) {
      case ParamKind::kChoice: s.params[p.name] = p.values[digit[i]]; break;
      case ParamKind::kInt: s.params[p.name] = IntValue(p, digit[i]); break;
      case ParamKind::kConstant: s.params[p.name] = p.constant; break;
      case ParamKind::kUniform:     // rejected by MakeSampler
      case ParamKind::kLogUniform:
      case ParamKind::kNormal:
      case ParamKind::kLogNormal: s.params[p.name] = nullptr; break;
    }
  }
  return s;
}

}  // namespace gpusweep::search
