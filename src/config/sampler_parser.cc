// The `sampler:` section (see sampler_parser.h).
#include "config/sampler_parser.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 2> kSamplerTypes{"random", "grid"};
constexpr std::array<std::string_view, 3> kRandomKeys{"type", "trials", "seed"};
constexpr std::array<std::string_view, 2> kGridKeys{"type", "repeats"};

}  // namespace

Expected<SamplerConfig> ParseSampler(const Value& value) {
  GS_ASSIGN_OR_RETURN(Mapping sampler, value.ToMapping());
  GS_ASSIGN_OR_RETURN(Value type, sampler.Require("type", "add type: random or type: grid"));
  GS_ASSIGN_OR_RETURN(std::string_view type_text, type.ToEnum(kSamplerTypes));
  SamplerConfig out;
  if (type_text == "grid") {
    out.kind = SamplerKind::kGrid;
    GS_TRY(sampler.CheckKeys(kGridKeys));
    if (const Value* repeats = sampler.Find("repeats")) {
      GS_ASSIGN_OR_RETURN(out.repeats, repeats->ToIntAtLeast(1));
    }
    return out;
  }
  out.kind = SamplerKind::kRandom;
  GS_TRY(sampler.CheckKeys(kRandomKeys));
  GS_ASSIGN_OR_RETURN(Value trials, sampler.Require("trials", "add e.g. trials: 16"));
  GS_ASSIGN_OR_RETURN(out.trials, trials.ToIntAtLeast(1));
  if (const Value* seed = sampler.Find("seed")) {
    GS_ASSIGN_OR_RETURN(std::int64_t seed_value, seed->ToInt());
    if (seed_value < 0) return seed->Invalid("the seed is negative", "use an integer >= 0");
    out.seed = static_cast<std::uint64_t>(seed_value);
  }
  return out;
}

}  // namespace gpusweep::config_detail
