// Other tools' words for a parameter (see param_vocabulary.h).
#include "config/param_vocabulary.h"

#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "common/did_you_mean.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 7> kParamTypes{"choice", "uniform", "loguniform", "int",
                                                      "constant", "normal", "lognormal"};
// Ours first, so a did-you-mean prefers our word.
constexpr std::array<std::string_view, 10> kTypeWords{"choice", "uniform", "loguniform", "int",
                                                      "constant", "normal", "lognormal",
                                                      "float", "categorical", "integer"};
// W&B Sweeps' distributions that mean the same as one of ours; `q` is the rounding the
// name implies where the mapping gives no q: (W&B's default q is 1).
struct Distribution {
  std::string_view name;
  ParamKind kind;
  double q = 0;
};
constexpr std::array<Distribution, 11> kDistributions{{
    {"constant", ParamKind::kConstant},
    {"categorical", ParamKind::kChoice},
    {"uniform", ParamKind::kUniform},
    {"int_uniform", ParamKind::kInt},
    {"log_uniform_values", ParamKind::kLogUniform},
    {"q_uniform", ParamKind::kUniform, 1},
    {"q_log_uniform_values", ParamKind::kLogUniform, 1},
    {"normal", ParamKind::kNormal},
    {"q_normal", ParamKind::kNormal, 1},
    {"log_normal", ParamKind::kLogNormal},
    {"q_log_normal", ParamKind::kLogNormal, 1},
}};
// W&B's other distributions: known names, so the error says they have no counterpart
// instead of guessing a typo.
constexpr std::array<std::string_view, 4> kForeignDistributions{
    "inv_log_uniform", "inv_log_uniform_values", "beta", "q_beta"};
// Our key, then another tool's name for it. (`q` is not `step`: q rounds to multiples
// of q, as W&B, Hyperopt, NNI and Ray do; step counts from low.)
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kKeySynonyms{{
    {"low", "min"},      // W&B
    {"low", "lower"},    // Ray Tune (tune.uniform(lower, upper))
    {"high", "max"},     // W&B
    {"high", "upper"},   // Ray Tune
    {"values", "choices"},     // Optuna (CategoricalDistribution(choices))
    {"values", "categories"}}};  // Ray Tune (tune.choice(categories))

// Ours first, so "valid keys: ..." starts with our words. `when:` (nested_space.h) on any.
constexpr std::array<std::string_view, 8> kChoiceKeys{"type", "values", "weights", "when",
                                                      "distribution", "choices",
                                                      "categories", "probabilities"};
constexpr std::array<std::string_view, 12> kRangeKeys{"type", "low", "high", "log", "q", "clip",
                                                      "when", "distribution", "min", "max",
                                                      "lower", "upper"};
constexpr std::array<std::string_view, 13> kIntKeys{"type", "low", "high", "step", "log", "q",
                                                    "clip", "when", "distribution", "min",
                                                    "max", "lower", "upper"};
constexpr std::array<std::string_view, 13> kNormalKeys{"type", "mu", "sigma", "low", "high",
                                                       "q", "clip", "when", "distribution",
                                                       "min", "max", "lower", "upper"};
constexpr std::array<std::string_view, 4> kConstantKeys{"type", "value", "when",
                                                        "distribution"};

std::string DistributionNames() {
  std::string names;
  for (const Distribution& d : kDistributions)
    names += (names.empty() ? "" : ", ") + std::string(d.name);
  return names;
}

// `log: true` (Optuna's FloatDistribution(log=True)) picks the log scale.
Expected<bool> LogScale(const Mapping& spec) {
  const Value* log = spec.Find("log");
  if (log == nullptr) return false;
  return log->ToBool();
}

// ", q: <q>" (W&B's default 1) for the mapping to write.
std::string QOf(const Mapping& spec) {
  const Value* q = spec.Find("q");
  return fmt::format(", q: {}", q != nullptr && q->IsScalar() ? q->node().Scalar() : "1");
}

// e^bound of a W&B exponent bound, for the mapping to write.
std::string ExpOf(const Mapping& spec, std::string_view key) {
  const Value* bound = spec.Find(key);
  if (bound == nullptr) return fmt::format("<e^{}>", key);
  const Expected<double> x = bound->ToNumber();
  return x ? fmt::format("{:.6g}", std::exp(*x)) : fmt::format("<e^{}>", key);
}

// `log:` next to a distribution is honoured where it adds the log scale (int_uniform,
// q_uniform, uniform) and refused where it contradicts the name (log: false with a
// log_* distribution), as with type: loguniform; never silently ignored.
Expected<ResolvedKind> FromDistribution(const Value& value, const Mapping& spec) {
  GS_ASSIGN_OR_RETURN(std::string name, value.ToText());
  GS_ASSIGN_OR_RETURN(bool log, LogScale(spec));
  if (name == "log_uniform" || name == "q_log_uniform")
    return value.Invalid(
        fmt::format("W&B's {} takes natural-log exponents (values from e^min to e^max)", name),
        fmt::format("write {{type: loguniform, low: {}, high: {}{}}} (W&B: "
                    "distribution: {}_values) with the values themselves",
                    ExpOf(spec, "min"), ExpOf(spec, "max"),
                    name == "q_log_uniform" ? QOf(spec) : "", name));
  const bool log_named = name == "log_uniform_values" || name == "q_log_uniform_values" ||
                         name == "log_normal" || name == "q_log_normal";
  if (log_named && spec.Find("log") && !log)
    return spec.Find("log")->Invalid(fmt::format("{} is always on a log scale", name),
                                     "remove log: false, or use distribution: uniform");
  for (std::string_view foreign : kForeignDistributions)
    if (name == foreign)
      return value.Invalid(fmt::format("the distribution '{}' has no counterpart here", name),
                           fmt::format("use one of {} (or type: {})", DistributionNames(),
                                       JoinNames(kParamTypes)));
  for (const Distribution& d : kDistributions) {
    if (name != d.name) continue;
    if (d.kind == ParamKind::kInt) return ResolvedKind{d.kind, log};
    if (d.kind == ParamKind::kUniform && log) return ResolvedKind{ParamKind::kLogUniform, false, d.q};
    return ResolvedKind{d.kind, false, d.q};
  }
  std::vector<std::string_view> all;
  for (const Distribution& d : kDistributions) all.push_back(d.name);
  const std::string valid =
      fmt::format("valid distributions: {} (or type: {})", DistributionNames(), JoinNames(kParamTypes));
  if (auto close = ClosestMatch(name, all))
    return value.Invalid(
        fmt::format("unknown distribution '{}'; did you mean '{}'?", name, *close), valid);
  return value.Invalid(fmt::format("unknown distribution '{}'", name), valid);
}

bool IsOurTypeWord(const Value& type_value) {
  if (!type_value.IsScalar()) return false;
  for (std::string_view word : kTypeWords)
    if (type_value.node().Scalar() == word) return true;
  return false;
}

Expected<ResolvedKind> FromType(const Value& type_value, const Mapping& spec,
                                std::string_view param) {
  if (!IsOurTypeWord(type_value))  // Ray Tune's, Hyperopt's or Optuna's (foreign_param.h)
    if (auto foreign = ResolveForeignType(type_value, spec, param)) return *foreign;
  GS_ASSIGN_OR_RETURN(std::string_view type, type_value.ToEnum(kTypeWords));
  GS_ASSIGN_OR_RETURN(bool log, LogScale(spec));
  if (type == "choice" || type == "categorical") return ResolvedKind{ParamKind::kChoice};
  if (type == "constant") return ResolvedKind{ParamKind::kConstant};
  if (type == "normal") return ResolvedKind{ParamKind::kNormal};
  if (type == "lognormal") return ResolvedKind{ParamKind::kLogNormal};
  if (type == "int" || type == "integer") return ResolvedKind{ParamKind::kInt, log};
  if (type == "loguniform") {
    if (spec.Find("log") && !log)
      return spec.Find("log")->Invalid("loguniform is always on a log scale",
                                       "remove log: false, or use type: uniform");
    return ResolvedKind{ParamKind::kLogUniform};
  }
  return ResolvedKind{log ? ParamKind::kLogUniform : ParamKind::kUniform};  // uniform, float
}

// Without `type`, a key one edit away ("tpye", "Type") is more likely a typo than a
// missing type; farther keys ("size") probably belong to an intended mapping constant.
Status CheckForMisspelledType(const Mapping& spec) {
  for (const Mapping::Entry& entry : spec.entries())
    if (EditDistance(entry.name, "type") <= 1)
      return entry.key.Invalid(fmt::format("unknown key '{}'; did you mean 'type'?", entry.name),
                               fmt::format("valid types: {}", JoinNames(kParamTypes)));
  return {};
}

}  // namespace

Expected<const Value*> FindParamKey(const Mapping& spec, std::string_view key) {
  const Value* found = spec.Find(key);
  std::string_view found_name = key;
  for (const auto& [canonical, synonym] : kKeySynonyms) {
    if (canonical != key) continue;
    const Value* theirs = spec.Find(synonym);
    if (theirs == nullptr) continue;
    if (found != nullptr)  // low and min, or min and lower: which one was meant?
      return theirs->Invalid(fmt::format("'{}' and '{}' mean the same", synonym, found_name),
                             fmt::format("give only {}", key));
    found = theirs;
    found_name = synonym;
  }
  return found;
}

Expected<ResolvedKind> ResolveParamKind(const Mapping& spec, std::string_view param) {
  const Value* type = spec.Find("type");
  const Value* distribution = spec.Find("distribution");
  if (type != nullptr && distribution != nullptr)
    return distribution->Invalid("give type or distribution, not both",
                                 fmt::format("keep type: one of {}", JoinNames(kParamTypes)));
  if (distribution != nullptr) {
    return FromDistribution(*distribution, spec);
  }
  if (type != nullptr) return FromType(*type, spec, param);
  // W&B's inference: a list of values is a choice, a single value a constant.
  GS_ASSIGN_OR_RETURN(const Value* values, FindParamKey(spec, "values"));
  if (values != nullptr) return ResolvedKind{ParamKind::kChoice};
  if (spec.Find("value") != nullptr &&
      spec.entries().size() == (spec.Find("when") != nullptr ? 2u : 1u))
    return ResolvedKind{ParamKind::kConstant};
  // W&B's inference from min/max: int_uniform when both are integers, else uniform.
  const Value* min = spec.Find("min");
  const Value* max = spec.Find("max");
  if (min != nullptr && max != nullptr) {
    if (min->ToInt() && max->ToInt()) return ResolvedKind{ParamKind::kInt};
    return ResolvedKind{ParamKind::kUniform};
  }
  GS_TRY(CheckForMisspelledType(spec));
  const bool has_range = spec.Find("low") || spec.Find("high") || spec.Find("min") ||
                         spec.Find("max") || spec.Find("lower") || spec.Find("upper");
  return tl::unexpected(
      spec.Require("type",
                   has_range ? std::string("add type: uniform (floats), type: loguniform or "
                                           "type: int (integers)")
                             : fmt::format("a parameter mapping needs type: {}; for a mapping "
                                           "constant write {{type: constant, value: {{...}}}}",
                                           JoinNames(kParamTypes)))
          .error());
}

Status CheckParamKeys(const Mapping& spec, ParamKind kind) {
  switch (kind) {
    case ParamKind::kChoice: return spec.CheckKeys(kChoiceKeys);
    case ParamKind::kUniform:
    case ParamKind::kLogUniform: return spec.CheckKeys(kRangeKeys);
    case ParamKind::kInt: return spec.CheckKeys(kIntKeys);
    case ParamKind::kConstant: return spec.CheckKeys(kConstantKeys);
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: return spec.CheckKeys(kNormalKeys);
  }
  return {};
}

}  // namespace gpusweep::config_detail
