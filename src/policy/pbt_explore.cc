// Population-based training's explore step (see pbt_explore.h).
#include "policy/pbt_explore.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include <fmt/format.h>

namespace gpusweep {
namespace {

// [0, 1) from the top 53 bits: the same on every standard library (std:: distributions
// are implementation-defined, mt19937_64's raw output is not).
double UnitDraw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

std::size_t IndexDraw(std::mt19937_64& rng, std::size_t n) {
  assert(n > 0);
  return std::min(n - 1, static_cast<std::size_t>(UnitDraw(rng) * static_cast<double>(n)));
}

bool Mutable(const PbtConfig& pbt, const ParamSpec& param) {
  if (param.kind == ParamKind::kConstant) return false;
  return pbt.mutations.empty() ||
         std::find(pbt.mutations.begin(), pbt.mutations.end(), param.name) != pbt.mutations.end();
}

// The largest value of an int's step grid that is <= high.
std::int64_t IntTop(const ParamSpec& p) { return p.int_low + (p.int_high - p.int_low) / p.int_step * p.int_step; }

std::int64_t SnapInt(const ParamSpec& p, double x) {
  const double steps = std::round((x - static_cast<double>(p.int_low)) / static_cast<double>(p.int_step));
  const double snapped = static_cast<double>(p.int_low) + steps * static_cast<double>(p.int_step);
  const double bounded = std::clamp(snapped, static_cast<double>(p.int_low), static_cast<double>(IntTop(p)));
  return static_cast<std::int64_t>(bounded);
}

Json PerturbNumber(const ParamSpec& p, const Json& value, double factor) {
  if (p.kind == ParamKind::kInt) {
    const std::int64_t old = value.get<std::int64_t>();
    std::int64_t next = SnapInt(p, static_cast<double>(old) * factor);
    if (next == old && factor != 1)  // a small int: move one step the factor's way
      next = SnapInt(p, static_cast<double>(old + (factor > 1 ? p.int_step : -p.int_step)));
    return next;
  }
  return std::clamp(value.get<double>() * factor, p.low, p.high);
}

std::optional<std::size_t> ChoiceIndex(const ParamSpec& p, const Json& value) {
  for (std::size_t i = 0; i < p.values.size(); ++i)
    if (p.values[i] == value) return i;
  return std::nullopt;
}

}  // namespace

Explored PbtExplore(const PbtConfig& pbt, const SearchSpace& space, const Params& donor,
                    const Sampler& resampler, int draw, std::mt19937_64& rng) {
  Explored out{donor, {}};
  const Params fresh = resampler.Suggest(draw, {}).params;
  for (const ParamSpec& param : space.params) {
    if (!Mutable(pbt, param) || !donor.contains(param.name)) continue;
    const Json& before = donor[param.name];
    // Every parameter consumes the same draws whatever happens, so one parameter's
    // outcome does not shift the next one's stream.
    const bool resample = UnitDraw(rng) < pbt.resample_probability;
    const std::size_t factor_index = IndexDraw(rng, pbt.factors.size());
    const bool left = UnitDraw(rng) < 0.5;
    Json after;
    std::string how;
    const bool numeric = param.kind != ParamKind::kChoice;
    const std::optional<std::size_t> index = numeric ? std::nullopt : ChoiceIndex(param, before);
    if (resample || (numeric && !before.is_number()) || (!numeric && !index)) {
      after = fresh.contains(param.name) ? fresh[param.name] : before;
      how = "resampled";
    } else if (numeric) {
      const double factor = pbt.factors[factor_index];
      after = PerturbNumber(param, before, factor);
      how = fmt::format("x{:g}", factor);
    } else {
      const std::size_t last = param.values.size() - 1;
      std::size_t next = *index;
      if (last > 0) next = *index == 0 ? 1 : *index == last ? last - 1 : (left ? *index - 1 : *index + 1);
      after = param.values[next];
      how = "neighbour";
    }
    out.params[param.name] = after;
    out.changes.push_back(PbtChange{param.name, before, std::move(after), std::move(how)});
  }
  return out;
}

std::string DescribeChanges(const std::vector<PbtChange>& changes) {
  if (changes.empty()) return "nothing changed";
  std::string text;
  for (const PbtChange& change : changes) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {} -> {} ({})", change.name, change.before.dump(), change.after.dump(),
                        change.how);
  }
  return text;
}

}  // namespace gpusweep
