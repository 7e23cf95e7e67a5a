// Other tools' words for a parameter (see param_vocabulary.h).
#include "config/param_vocabulary.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "common/did_you_mean.h"

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 5> kParamTypes{"choice", "uniform", "loguniform", "int",
                                                 "constant"};
// Ours first, so a did-you-mean prefers our word.
constexpr std::array<std::string_view, 8> kTypeWords{"choice", "uniform", "loguniform", "int",
                                                     "constant", "float", "categorical",
                                                     "integer"};
// W&B Sweeps' distributions that mean the same as one of ours.
constexpr std::array<std::pair<std::string_view, ParamKind>, 6> kDistributions{{
    {"constant", ParamKind::kConstant},
    {"categorical", ParamKind::kChoice},
    {"uniform", ParamKind::kUniform},
    {"int_uniform", ParamKind::kInt},
    {"log_uniform_values", ParamKind::kLogUniform},
    {"q_uniform", ParamKind::kInt},  // integers only, checked below
}};
// W&B's other distributions: known names, so the error says they have no counterpart
// instead of guessing a typo.
constexpr std::array<std::string_view, 9> kForeignDistributions{
    "q_log_uniform", "normal", "q_normal", "log_normal", "q_log_normal",
    "inv_log_uniform", "inv_log_uniform_values", "beta", "q_beta"};
// Our key, then another tool's name for it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kKeySynonyms{{
    {"low", "min"},      // W&B
    {"low", "lower"},    // Ray Tune (tune.uniform(lower, upper))
    {"high", "max"},     // W&B
    {"high", "upper"},   // Ray Tune
    {"values", "choices"},
    {"step", "q"}}};

// Ours first, so "valid keys: ..." starts with our words.
constexpr std::array<std::string_view, 4> kChoiceKeys{"type", "values", "distribution", "choices"};
constexpr std::array<std::string_view, 9> kRangeKeys{"type", "low", "high", "log",
                                                     "distribution", "min", "max",
                                                     "lower", "upper"};
constexpr std::array<std::string_view, 11> kIntKeys{"type", "low", "high", "step", "log",
                                                    "distribution", "min", "max", "q",
                                                    "lower", "upper"};
constexpr std::array<std::string_view, 3> kConstantKeys{"type", "value", "distribution"};

std::string DistributionNames() {
  std::string names;
  for (const auto& [name, kind] : kDistributions)
    names += (names.empty() ? "" : ", ") + std::string(name);
  return names + ", q_log_uniform_values";
}

// `log: true` (Optuna's FloatDistribution(log=True)) picks the log scale.
Expected<bool> LogScale(const Mapping& spec) {
  const Value* log = spec.Find("log");
  if (log == nullptr) return false;
  return log->ToBool();
}

// W&B's quantized distributions map to int only over integers (min, max and q).
Status RequireIntegerBounds(const Value& value, const Mapping& spec, std::string_view name,
                            std::string_view becomes, std::string_view otherwise) {
  for (std::string_view key : {"min", "max", "q"}) {
    const Value* part = spec.Find(key);
    if (part == nullptr || !part->ToInt())
      return value.Invalid(
          fmt::format("{} is supported over integers only: min, max and q must be integers (it "
                      "becomes {})",
                      name, becomes),
          std::string(otherwise));
  }
  return {};
}

// `log:` next to a distribution is honoured where it adds the log scale (int_uniform,
// q_uniform, uniform) and refused where it contradicts the name (log: false with a
// log_* distribution), as with type: loguniform; never silently ignored.
Expected<ResolvedKind> FromDistribution(const Value& value, const Mapping& spec) {
  GS_ASSIGN_OR_RETURN(std::string name, value.ToText());
  GS_ASSIGN_OR_RETURN(bool log, LogScale(spec));
  if (name == "log_uniform")
    return value.Invalid(
        "W&B's log_uniform takes natural-log exponents (values from e^min to e^max)",
        "write distribution: log_uniform_values (or type: loguniform) with the values "
        "themselves, e.g. min: 1.0e-4, max: 0.1");
  const bool log_named = name == "log_uniform_values" || name == "q_log_uniform_values";
  if (log_named && spec.Find("log") && !log)
    return spec.Find("log")->Invalid(fmt::format("{} is always on a log scale", name),
                                     "remove log: false, or use distribution: uniform");
  if (name == "q_log_uniform_values") {
    GS_TRY(RequireIntegerBounds(
        value, spec, name, "type: int, log: true",
        "for floats write distribution: log_uniform_values (not quantized), or type: choice "
        "with the values you want"));
    return ResolvedKind{ParamKind::kInt, true};
  }
  for (std::string_view foreign : kForeignDistributions)
    if (name == foreign)
      return value.Invalid(fmt::format("the distribution '{}' has no counterpart here", name),
                           fmt::format("use one of {} (or type: {})", DistributionNames(),
                                       JoinNames(kParamTypes)));
  for (const auto& [known, kind] : kDistributions) {
    if (name != known) continue;
    if (name == "q_uniform")
      GS_TRY(RequireIntegerBounds(value, spec, name, "type: int with step q",
                                  "for other values write type: choice with the values you "
                                  "want"));
    if (kind == ParamKind::kInt) return ResolvedKind{kind, log};
    if (kind == ParamKind::kUniform && log) return ResolvedKind{ParamKind::kLogUniform};
    return ResolvedKind{kind};
  }
  std::vector<std::string_view> all;
  for (const auto& [known, kind] : kDistributions) all.push_back(known);
  all.push_back("q_log_uniform_values");
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
  if (spec.Find("value") != nullptr && spec.entries().size() == 1)
    return ResolvedKind{ParamKind::kConstant};
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
  }
  return {};
}

}  // namespace gpusweep::config_detail
