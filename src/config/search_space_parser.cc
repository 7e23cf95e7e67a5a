#include "config/search_space_parser.h"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "common/did_you_mean.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 5> kTypes{"choice", "uniform", "loguniform", "int",
                                                 "constant"};
constexpr std::array<std::string_view, 3> kReserved{"trial", "config_dir", "experiment_dir"};
constexpr std::array<std::string_view, 2> kChoiceKeys{"type", "values"};
constexpr std::array<std::string_view, 3> kRangeKeys{"type", "low", "high"};
constexpr std::array<std::string_view, 4> kIntKeys{"type", "low", "high", "step"};
constexpr std::array<std::string_view, 2> kConstantKeys{"type", "value"};

bool IsMustacheName(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !alpha(name.front())) return false;
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

Status CheckParamName(const Mapping::Entry& entry) {
  if (!IsMustacheName(entry.name))
    return entry.key.Invalid(fmt::format("'{}' is not a valid parameter name", entry.name),
                             "use letters, digits and '_', not starting with a digit, so "
                             "templates can write {{name}}");
  for (std::string_view reserved : kReserved)
    if (entry.name == reserved)
      return entry.key.Invalid(
          fmt::format("'{}' is reserved for a built-in template value", entry.name),
          fmt::format("rename the parameter; reserved names: {}", JoinNames(kReserved)));
  return {};
}

// Without `type`, a key one edit away ("tpye", "Type") is more likely a typo than a
// missing type; farther keys ("size") probably belong to an intended mapping constant.
Status CheckForMisspelledType(const Mapping& spec) {
  for (const Mapping::Entry& entry : spec.entries())
    if (EditDistance(entry.name, "type") <= 1)
      return entry.key.Invalid(fmt::format("unknown key '{}'; did you mean 'type'?", entry.name),
                               fmt::format("valid types: {}", JoinNames(kTypes)));
  return {};
}

Status ParseChoice(const Mapping& spec, ParamSpec& param) {
  GS_TRY(spec.CheckKeys(kChoiceKeys));
  GS_ASSIGN_OR_RETURN(Value values, spec.Require("values", "add values: [a, b, c]"));
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, values.ToList());
  if (list.empty())
    return values.Invalid("a choice needs at least one value", "add values: [a, b]");
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(Json json, element.ToJson());
    for (std::size_t i = 0; i < param.values.size(); ++i)
      if (param.values[i] == json)
        return element.Invalid(fmt::format("duplicates {}[{}]", values.path(), i),
                               "list each value once");
    param.values.push_back(std::move(json));
  }
  return {};
}

Status ParseRange(const Mapping& spec, ParamSpec& param) {
  GS_TRY(spec.CheckKeys(kRangeKeys));
  GS_ASSIGN_OR_RETURN(Value low, spec.Require("low", "add low: <number>"));
  GS_ASSIGN_OR_RETURN(Value high, spec.Require("high", "add high: <number>"));
  GS_ASSIGN_OR_RETURN(param.low, low.ToNumber());
  GS_ASSIGN_OR_RETURN(param.high, high.ToNumber());
  if (param.kind == ParamKind::kLogUniform && param.low <= 0)
    return low.Invalid(fmt::format("loguniform needs low > 0, found {}", param.low),
                       "use a positive low, e.g. 1.0e-5");
  if (param.low >= param.high)
    return high.Invalid(
        fmt::format("high ({}) must be greater than low ({})", param.high, param.low),
        "use low < high");
  return {};
}

Status ParseInt(const Mapping& spec, ParamSpec& param) {
  GS_TRY(spec.CheckKeys(kIntKeys));
  GS_ASSIGN_OR_RETURN(Value low, spec.Require("low", "add low: <integer>"));
  GS_ASSIGN_OR_RETURN(Value high, spec.Require("high", "add high: <integer>"));
  GS_ASSIGN_OR_RETURN(param.int_low, low.ToInt());
  GS_ASSIGN_OR_RETURN(param.int_high, high.ToInt());
  if (const Value* step = spec.Find("step")) {
    GS_ASSIGN_OR_RETURN(param.int_step, step->ToInt());
    if (param.int_step <= 0)
      return step->Invalid(fmt::format("step must be > 0, found {}", param.int_step),
                           "use a positive step, e.g. 1");
  }
  if (param.int_low > param.int_high)
    return high.Invalid(
        fmt::format("high ({}) is less than low ({})", param.int_high, param.int_low),
        "use low <= high");
  return {};
}

Status ParseConstant(const Mapping& spec, ParamSpec& param) {
  GS_TRY(spec.CheckKeys(kConstantKeys));
  GS_ASSIGN_OR_RETURN(Value value, spec.Require("value", "add value: <any YAML value>"));
  GS_ASSIGN_OR_RETURN(param.constant, value.ToJson());
  return {};
}

Expected<ParamKind> ParseKind(const Mapping& spec, SamplerKind sampler) {
  GS_ASSIGN_OR_RETURN(
      Value type_value,
      spec.Require("type", fmt::format("a parameter mapping needs type: {}; for a mapping "
                                       "constant write {{type: constant, value: {{...}}}}",
                                       JoinNames(kTypes))));
  GS_ASSIGN_OR_RETURN(std::string_view type, type_value.ToEnum(kTypes));
  if (type == "choice") return ParamKind::kChoice;
  if (type == "int") return ParamKind::kInt;
  if (type == "constant") return ParamKind::kConstant;
  if (sampler == SamplerKind::kGrid)
    return type_value.Invalid(
        fmt::format("the grid sampler cannot enumerate a continuous {} parameter", type),
        "use type: choice or type: int, or sampler type: random");
  return type == "uniform" ? ParamKind::kUniform : ParamKind::kLogUniform;
}

Expected<ParamSpec> ParseParam(const Mapping::Entry& entry, SamplerKind sampler) {
  ParamSpec param;
  param.name = entry.name;
  param.line = entry.key.line();
  if (!entry.value.IsMapping()) {  // a scalar, list or null is a constant
    GS_ASSIGN_OR_RETURN(param.constant, entry.value.ToJson());
    return param;
  }
  GS_ASSIGN_OR_RETURN(Mapping spec, entry.value.ToMapping());
  if (!spec.Find("type")) GS_TRY(CheckForMisspelledType(spec));
  GS_ASSIGN_OR_RETURN(param.kind, ParseKind(spec, sampler));
  switch (param.kind) {
    case ParamKind::kChoice:
      GS_TRY(ParseChoice(spec, param));
      break;
    case ParamKind::kUniform:
    case ParamKind::kLogUniform:
      GS_TRY(ParseRange(spec, param));
      break;
    case ParamKind::kInt:
      GS_TRY(ParseInt(spec, param));
      break;
    case ParamKind::kConstant:
      GS_TRY(ParseConstant(spec, param));
      break;
  }
  return param;
}

}  // namespace

Expected<SearchSpace> ParseSearchSpace(const Value& value, SamplerKind sampler) {
  SearchSpace space;
  if (value.IsNull()) return space;
  GS_ASSIGN_OR_RETURN(Mapping params, value.ToMapping());
  for (const Mapping::Entry& entry : params.entries()) {
    GS_TRY(CheckParamName(entry));
    GS_ASSIGN_OR_RETURN(ParamSpec param, ParseParam(entry, sampler));
    space.params.push_back(std::move(param));
  }
  return space;
}

std::uint64_t GridCardinality(const ParamSpec& param) {
  switch (param.kind) {
    case ParamKind::kChoice:
      return param.values.size();
    case ParamKind::kInt: {
      // Unsigned arithmetic: high - low may not fit in int64.
      const std::uint64_t span =
          static_cast<std::uint64_t>(param.int_high) - static_cast<std::uint64_t>(param.int_low);
      const std::uint64_t steps = span / static_cast<std::uint64_t>(param.int_step);
      return steps == std::numeric_limits<std::uint64_t>::max() ? steps : steps + 1;
    }
    case ParamKind::kConstant:
      return 1;
    default:
      return 0;
  }
}

std::uint64_t TotalTrials(const SamplerConfig& sampler, const SearchSpace& space) {
  if (sampler.kind != SamplerKind::kGrid) return static_cast<std::uint64_t>(sampler.trials);
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t total = static_cast<std::uint64_t>(sampler.repeats);
  for (const ParamSpec& param : space.params) {
    const std::uint64_t n = GridCardinality(param);
    total = (n != 0 && total > kMax / n) ? kMax : total * n;
  }
  return total;
}

}  // namespace gpusweep::config_detail
