#include "config/search_space_parser.h"

#include <fmt/format.h>

#include <array>
#include <limits>

#include "common/did_you_mean.h"
#include "config/distribution_parser.h"
#include "config/nni_param.h"
#include "config/python_value.h"
#include "config/param_vocabulary.h"

namespace gpusweep::config_detail {
namespace {

// The value under `key` or its synonym (param_vocabulary.h); missing: "add <hint>".
Expected<Value> RequireParamKey(const Mapping& spec, std::string_view key, std::string_view hint) {
  GS_ASSIGN_OR_RETURN(const Value* found, FindParamKey(spec, key));
  if (found != nullptr) return *found;
  return spec.Require(key, hint);
}

Status ParseChoice(const Mapping& spec, ParamSpec& param, std::vector<ChoiceValue>& branches) {
  GS_ASSIGN_OR_RETURN(Value values, RequireParamKey(spec, "values", "add values: [a, b, c]"));
  GS_TRY(CheckPythonValue(values, param.name));  // values: range(1, 10)
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, values.ToList());
  if (list.empty())
    return values.Invalid("a choice needs at least one value", "add values: [a, b]");
  return ReadChoiceValues(values, list, param, branches);
}

Status ParseRange(const Mapping& spec, ParamSpec& param) {
  GS_ASSIGN_OR_RETURN(Value low, RequireParamKey(spec, "low", "add low: <number>"));
  GS_ASSIGN_OR_RETURN(Value high, RequireParamKey(spec, "high", "add high: <number>"));
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

// `log: true` (or a word that implies it): integers drawn log-uniformly; as in Optuna,
// from 1 up and without a step.
Status CheckIntLog(const Mapping& spec, const Value& low, const Value* step,
                   const ParamSpec& param) {
  const Value* at = spec.Find("log");
  if (at == nullptr) at = spec.Find("type");
  if (at == nullptr) at = spec.Find("distribution");  // q_log_uniform_values
  if (param.int_low < 1)
    return low.Invalid(fmt::format("an int on a log scale needs low >= 1, found {}",
                                   param.int_low),
                       fmt::format("use low: 1 or more, or remove {}", at->path()));
  if (step != nullptr && param.int_step != 1)
    return step->Invalid("an int on a log scale takes no step (its values are every integer "
                         "from low to high, small ones drawn more often)",
                         "remove the step, or write type: choice with the values, e.g. "
                         "values: [16, 32, 64, 128]");
  return {};
}

Status ParseInt(const Mapping& spec, ParamSpec& param) {
  GS_ASSIGN_OR_RETURN(Value low, RequireParamKey(spec, "low", "add low: <integer>"));
  GS_ASSIGN_OR_RETURN(Value high, RequireParamKey(spec, "high", "add high: <integer>"));
  GS_ASSIGN_OR_RETURN(param.int_low, low.ToInt());
  GS_ASSIGN_OR_RETURN(param.int_high, high.ToInt());
  GS_ASSIGN_OR_RETURN(const Value* step, FindParamKey(spec, "step"));
  if (step != nullptr) {
    GS_ASSIGN_OR_RETURN(param.int_step, step->ToInt());
    if (param.int_step <= 0)
      return step->Invalid(fmt::format("step must be > 0, found {}", param.int_step),
                           "use a positive step, e.g. 1");
  }
  if (param.int_low > param.int_high)
    return high.Invalid(
        fmt::format("high ({}) is less than low ({})", param.int_high, param.int_low),
        "use low <= high");
  if (param.int_log) return CheckIntLog(spec, low, step, param);
  return {};
}

Status ParseConstant(const Mapping& spec, ParamSpec& param) {
  GS_ASSIGN_OR_RETURN(Value value, spec.Require("value", "add value: <any YAML value>"));
  GS_ASSIGN_OR_RETURN(param.constant, value.ToJson());
  return {};
}

// The kind the mapping asks for, in our words or another tool's (param_vocabulary.h).
Expected<ResolvedKind> ParseKind(const Mapping& spec, SamplerKind sampler,
                                 std::string_view name) {
  GS_ASSIGN_OR_RETURN(ResolvedKind resolved, ResolveParamKind(spec, name));
  const ParamKind kind = resolved.kind;
  GS_TRY(CheckParamKeys(spec, kind));
  if (sampler == SamplerKind::kCmaes && kind == ParamKind::kChoice) {
    const Value* at = spec.Find("type") ? spec.Find("type") : spec.Find("distribution");
    return (at ? *at : spec.self())
        .Invalid("the cmaes sampler cannot model a choice parameter",
                 "make it type: int if its values are ordered numbers, type: constant if it "
                 "has one value, or use sampler type: tpe or evolution");
  }
  if (sampler != SamplerKind::kGrid ||
      (kind != ParamKind::kUniform && kind != ParamKind::kLogUniform) ||
      spec.Find("q") != nullptr || resolved.q > 0)  // CheckShapeForSampler lists the values
    return resolved;
  const Value* at = spec.Find("type") ? spec.Find("type") : spec.Find("distribution");
  return (at ? *at : spec.self())
      .Invalid(fmt::format("the grid sampler cannot enumerate a continuous {} parameter",
                           kind == ParamKind::kUniform ? "uniform" : "loguniform"),
               "use type: choice or type: int, or sampler type: random");
}

// Another tool's words the mapping used, for `gpusweep check` (ParamSpec::spelled).
std::string Spelling(const Mapping& spec) {
  auto text = [](const Value* v) { return v != nullptr && v->IsScalar() ? v->node().Scalar() : ""; };
  if (const Value* nni = spec.Find("_type")) return "NNI's _type: " + text(nni);
  if (const Value* d = spec.Find("distribution")) return "W&B's distribution: " + text(d);
  if (const Value* type = spec.Find("type")) {
    static constexpr std::array<std::string_view, 7> kOurs{"choice", "uniform", "loguniform", "int",
                                                           "constant", "normal", "lognormal"};
    const std::string word = text(type);
    for (std::string_view ours : kOurs)
      if (word == ours) return "";
    return "type: " + word;
  }
  if (spec.Find("min") && spec.Find("max")) return "W&B's min/max without a distribution";
  return "";
}
}  // namespace

// A bare list is a constant; under a sampler that draws trials, a list was more likely
// meant as the values to choose from (W&B's and Ray's grid_search habit), and every
// trial would get the same value.
void WarnAboutBareList(const Mapping::Entry& entry, SamplerKind sampler,
                       std::vector<std::string>& warnings) {
  if (sampler == SamplerKind::kGrid || !entry.value.IsList()) return;
  const std::string list = DumpForPeople(entry.value.ToJson().value_or(Json::array()));
  warnings.push_back(
      entry.value
          .Invalid(fmt::format("a bare list is a constant: every trial gets {}", list),
                   fmt::format("to choose among the values write {}: {{type: choice, values: "
                               "{}}}; to keep the list as a constant without this warning "
                               "write {}: {{type: constant, value: {}}}",
                               entry.name, list, entry.name, list))
          .value()
          .message);
}

bool IsParamNameSegment(std::string_view name) {
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (name.empty() || !alpha(name.front())) return false;
  for (char c : name)
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

Expected<ParamSpec> ParseLeafParam(const Mapping::Entry& entry, const std::string& name,
                                   SamplerKind sampler, std::vector<ChoiceValue>& branches) {
  ParamSpec param;
  param.name = name;
  param.line = entry.key.line();
  if (!entry.value.IsMapping()) {  // a scalar, list or null is a constant
    GS_TRY(CheckForeignCallValue(entry.value, name));  // lr: tune.loguniform(...)
    GS_TRY(CheckPythonValue(entry.value, name));       // n: range(1, 10)
    GS_ASSIGN_OR_RETURN(param.constant, entry.value.ToJson());
    return param;
  }
  GS_TRY(CheckPythonValue(entry.value, name));  // f: lambda spec: ...
  GS_ASSIGN_OR_RETURN(Mapping spec, entry.value.ToMapping());
  param.spelled = Spelling(spec);
  if (IsNniParam(spec)) {  // NNI's {_type, _value}, read as NNI means it
    GS_TRY(ParseNniParam(spec, param, branches));
    GS_TRY(CheckShapeForSampler(spec, param, sampler));
    return param;
  }
  GS_ASSIGN_OR_RETURN(ResolvedKind resolved, ParseKind(spec, sampler, name));
  param.kind = resolved.kind;
  param.int_log = resolved.log;
  switch (param.kind) {
    case ParamKind::kChoice:
      GS_TRY(ParseChoice(spec, param, branches));
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
    case ParamKind::kNormal:
    case ParamKind::kLogNormal:
      GS_TRY(ParseNormal(spec, param));
      break;
  }
  // The distribution block (distribution_parser.h): q-rounding, weights, the sampler.
  if (param.kind == ParamKind::kChoice) GS_TRY(ParseWeights(spec, param));
  if (param.kind != ParamKind::kChoice && param.kind != ParamKind::kConstant)
    GS_TRY(ParseRounding(spec, param, resolved.q));
  GS_TRY(CheckShapeForSampler(spec, param, sampler));
  return param;
}

Expected<SearchSpace> ParseSearchSpace(const Value& value, SamplerKind sampler,
                                       std::vector<std::string>& warnings) {
  return ParseNestedSearchSpace(value, sampler, warnings);
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
    default:  // continuous: uniform, loguniform, normal, lognormal
      return 0;
  }
}

std::uint64_t TotalTrials(const SamplerConfig& sampler, const SearchSpace& space) {
  if (sampler.kind != SamplerKind::kGrid) return static_cast<std::uint64_t>(sampler.trials);
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t total = static_cast<std::uint64_t>(sampler.repeats);
  // A space without conditions is the plain product (what ActiveGridSize would count
  // too, without its recursion).
  std::vector<std::uint64_t> factors;
  if (IsConditional(space)) factors.push_back(ActiveGridSize(space));
  else
    for (const ParamSpec& param : space.params) factors.push_back(GridCardinality(param));
  for (const std::uint64_t n : factors) total = (n != 0 && total > kMax / n) ? kMax : total * n;
  return total > kMax - sampler.enqueue.size() ? kMax : total + sampler.enqueue.size();
}

}  // namespace gpusweep::config_detail
