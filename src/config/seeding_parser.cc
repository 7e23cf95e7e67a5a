#include "config/seeding_parser.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "common/did_you_mean.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 2> kWarmStartKeys{"from", "defaults"};
constexpr std::array<std::string_view, 2> kFractionKeys{"fraction", "after"};

const ParamSpec* FindParam(const SearchSpace& space, std::string_view name) {
  for (const ParamSpec& param : space.params)
    if (param.name == name) return &param;
  return nullptr;
}

tl::unexpected<Error> UnknownParam(const Mapping::Entry& entry, const SearchSpace& space) {
  std::vector<std::string_view> names;
  for (const ParamSpec& param : space.params) names.push_back(param.name);
  const std::string valid = fmt::format("the search space has: {}", JoinNames(names));
  if (auto close = ClosestMatch(entry.name, names))
    return entry.key.Invalid(
        fmt::format("'{}' is not a search-space parameter; did you mean '{}'?", entry.name, *close),
        valid);
  return entry.key.Invalid(fmt::format("'{}' is not a search-space parameter", entry.name), valid);
}

constexpr std::string_view kEnqueueHint = "or leave it out for the sampler to choose";

// A mapping from parameter names to values each parameter allows; `leave_out` ends the
// hint of a value that does not fit.
Expected<Params> ParseSetting(const Value& element, const SearchSpace& space,
                              std::string_view leave_out = kEnqueueHint) {
  GS_ASSIGN_OR_RETURN(Mapping setting, element.ToMapping());
  Params params = Json::object();
  for (const Mapping::Entry& entry : setting.entries()) {
    const ParamSpec* param = FindParam(space, entry.name);
    if (param == nullptr) return UnknownParam(entry, space);
    GS_ASSIGN_OR_RETURN(Json value, entry.value.ToJson());
    Expected<Json> fitted = FitToParam(*param, value);
    // One name in two sub-spaces of a choice (nested_space.h): a value either allows.
    for (const ParamSpec& other : space.params)
      if (!fitted && &other != param && other.name == param->name)
        if (Expected<Json> also = FitToParam(other, value)) fitted = std::move(also);
    if (!fitted)
      return entry.value.Invalid(
          fitted.error().message,
          fmt::format("give a value search_space.{} (line {}) allows, {}", param->name,
                      param->line, leave_out));
    params[entry.name] = std::move(*fitted);
  }
  return params;
}

}  // namespace

Expected<std::vector<Params>> ParseEnqueue(const Value* value, const SearchSpace& space,
                                           const SamplerConfig& sampler) {
  std::vector<Params> settings;
  if (value == nullptr || value->IsNull()) return settings;
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value->ToList());
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(Params params, ParseSetting(element, space));
    settings.push_back(std::move(params));
  }
  if (sampler.kind != SamplerKind::kGrid && static_cast<int>(settings.size()) > sampler.trials)
    return value->Invalid(
        fmt::format("{} settings are enqueued but sampler.trials is {}", settings.size(),
                    sampler.trials),
        fmt::format("enqueued settings count toward trials (as in Optuna and Ray Tune): raise "
                    "trials to at least {}",
                    settings.size()));
  return settings;
}

Expected<std::optional<WarmStartConfig>> ParseWarmStart(const Value* value,
                                                        const std::filesystem::path& config_dir,
                                                        SamplerKind sampler,
                                                        const SearchSpace& space) {
  if (value == nullptr || value->IsNull()) return std::nullopt;
  GS_ASSIGN_OR_RETURN(Mapping mapping, value->ToMapping());
  GS_TRY(mapping.CheckKeys(kWarmStartKeys));
  GS_ASSIGN_OR_RETURN(Value from,
                      mapping.Require("from", "add from: <the earlier experiment's directory>, "
                                              "e.g. from: runs/first-sweep"));
  GS_ASSIGN_OR_RETURN(std::string text, from.ToText());
  if (text.empty()) return from.Invalid("the directory is empty", "e.g. from: runs/first-sweep");
  if (sampler != SamplerKind::kTpe && sampler != SamplerKind::kCmaes &&
      sampler != SamplerKind::kEvolution && sampler != SamplerKind::kGp)
    return value->Invalid(
        "only the tpe, cmaes, evolution and gp samplers learn from earlier trials",
        "use sampler: {type: tpe, ...}, or remove warm_start (enqueue: runs chosen settings "
        "first with any sampler)");
  WarmStartConfig config{(config_dir / text).lexically_normal(), from.line(), Json::object()};
  if (const Value* defaults = mapping.Find("defaults"); defaults && !defaults->IsNull()) {
    GS_ASSIGN_OR_RETURN(config.defaults,
                        ParseSetting(*defaults, space,
                                     "or leave it out (earlier trials without the parameter "
                                     "are then left out)"));
  }
  return config;
}

Expected<std::optional<FailureLimit>> ParseMaxFailures(const Value* value) {
  if (value == nullptr || value->IsNull()) return std::nullopt;
  FailureLimit limit;
  if (!value->IsMapping()) {
    GS_ASSIGN_OR_RETURN(limit.count, value->ToIntAtLeast(1));
    return limit;
  }
  GS_ASSIGN_OR_RETURN(Mapping mapping, value->ToMapping());
  GS_TRY(mapping.CheckKeys(kFractionKeys));
  GS_ASSIGN_OR_RETURN(Value fraction,
                      mapping.Require("fraction", "add e.g. fraction: 0.5 (stop once half of the "
                                                  "finished trials failed)"));
  GS_ASSIGN_OR_RETURN(limit.fraction, fraction.ToNumber());
  if (!(limit.fraction > 0 && limit.fraction <= 1))
    return fraction.Invalid(fmt::format("the fraction must be in (0, 1], found {}", limit.fraction),
                            "e.g. fraction: 0.5");
  GS_ASSIGN_OR_RETURN(Value after,
                      mapping.Require("after", "add e.g. after: 4 (how many trials must finish "
                                               "before the fraction is judged)"));
  GS_ASSIGN_OR_RETURN(limit.after, after.ToIntAtLeast(1));
  return limit;
}

}  // namespace gpusweep::config_detail
