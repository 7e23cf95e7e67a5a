// Other tools' parameter types, mapped to ours (see foreign_param.h).
#include "config/foreign_param.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "config/param_vocabulary.h"

namespace gpusweep::config_detail {
namespace {

enum class Tool { kAny, kRay, kHyperopt, kOptuna };

struct Word {
  Tool tool = Tool::kAny;
  std::string base;  // lower case, without the tool's prefix: "randint", "suggest_float"
};

// What the other tool's spelling says, as texts the way they were written.
struct Args {
  std::optional<std::string> low, high, q, values, mu, sigma, weights;
  bool log = false;
};

struct Translation {
  std::optional<ResolvedKind> same;  // a true synonym: accepted under `type:`
  std::string why;                   // otherwise: how it differs from ours
  std::string ours;                  // what to write, e.g. "{type: int, low: 0, high: 9}"
};

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

Word Normalize(std::string_view text) {
  constexpr std::pair<std::string_view, Tool> kPrefixes[] = {
      {"ray.tune.", Tool::kRay},           {"tune.", Tool::kRay},
      {"hyperopt.hp.", Tool::kHyperopt},   {"hp.", Tool::kHyperopt},
      {"optuna.distributions.", Tool::kOptuna}, {"distributions.", Tool::kOptuna},
      {"optuna.trial.", Tool::kOptuna},    {"trial.", Tool::kOptuna},
      {"optuna.", Tool::kOptuna}};
  Word word;
  std::string lower = Lower(text);
  for (const auto& [prefix, tool] : kPrefixes)
    if (StartsWith(lower, prefix)) {
      word.tool = tool;
      lower = lower.substr(prefix.size());
      break;
    }
  word.base = lower;
  const bool optuna_word = StartsWith(lower, "suggest_") ||
                           (lower.size() > 12 && lower.ends_with("distribution"));
  if (word.tool == Tool::kAny && optuna_word) word.tool = Tool::kOptuna;
  return word;
}

std::string ToolName(Tool tool) {
  switch (tool) {
    case Tool::kRay: return "Ray Tune's";
    case Tool::kHyperopt: return "Hyperopt's";
    case Tool::kOptuna: return "Optuna's";
    case Tool::kAny: break;
  }
  return "Ray Tune's and Hyperopt's";
}

std::optional<std::int64_t> AsInt(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<double> AsNumber(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

bool AllInts(const Args& a) { return AsInt(a.low) && AsInt(a.high) && (!a.q || AsInt(a.q)); }

std::string Or(const std::optional<std::string>& text, std::string_view placeholder) {
  return text ? *text : std::string(placeholder);
}

std::string Range(std::string_view type, const Args& a) {
  return fmt::format("{{type: {}, low: {}, high: {}}}", type, Or(a.low, "<low>"),
                     Or(a.high, "<high>"));
}

// `{type: int, ...}` with `high` as given, or one less when the other tool excludes it.
std::string IntRange(const Args& a, bool exclusive_high, bool log, bool with_step) {
  std::string high = Or(a.high, "<high>");
  if (exclusive_high) {
    const auto value = AsInt(a.high);
    high = value ? std::to_string(*value - 1) : fmt::format("<high - 1>");
  }
  std::string text = fmt::format("{{type: int, low: {}, high: {}", Or(a.low, "<low>"), high);
  if (with_step && a.q && a.q != "1") text += fmt::format(", step: {}", *a.q);
  if (log) text += ", log: true";
  return text + "}";
}

// The values low, low + q, ..., high as a choice, when there are few; else a placeholder.
std::string SteppedChoice(const Args& a) {
  const auto low = AsNumber(a.low), high = AsNumber(a.high), q = AsNumber(a.q);
  constexpr int kMaxListed = 20;
  if (low && high && q && *q > 0 && (*high - *low) / *q < kMaxListed) {
    std::string values;
    for (int i = 0; *low + i * *q <= *high + 1e-9 * *q; ++i)
      values += fmt::format("{}{:g}", values.empty() ? "" : ", ", *low + i * *q);
    return fmt::format("{{type: choice, values: [{}]}}", values);
  }
  return "{type: choice, values: [<each value you want>]}";
}

// Ray Tune quantises over the bounds rounded inwards to multiples of q (its Quantized
// sampler: ceil(lower / q) * q .. floor(upper / q) * q), then rounds each draw.
struct InwardBounds {
  std::string low, high;
  bool changed = false;
};
std::optional<InwardBounds> RayInward(const Args& a) {
  const auto low = AsNumber(a.low), high = AsNumber(a.high), q = AsNumber(a.q);
  if (!low || !high || !q || *q <= 0) return std::nullopt;
  const double l = std::ceil(*low / *q) * *q, h = std::floor(*high / *q) * *q;
  return InwardBounds{fmt::format("{:g}", l), fmt::format("{:g}", h), l != *low || h != *high};
}

bool BoundsAreMultiples(const Args& a) {
  const auto bounds = RayInward(a);
  return bounds && !bounds->changed;
}

std::string Rounded(std::string_view type, std::string_view low, std::string_view high,
                    const Args& a) {
  return fmt::format("{{type: {}, low: {}, high: {}, q: {}}}", type, low, high, Or(a.q, "<q>"));
}

std::string NormalText(bool log, const Args& a, bool with_q) {
  std::string text = fmt::format("{{type: {}, mu: {}, sigma: {}", log ? "lognormal" : "normal",
                                 Or(a.mu, "<mu>"), Or(a.sigma, "<sigma>"));
  if (with_q) text += fmt::format(", q: {}", Or(a.q, "<q>"));
  return text + "}";
}

// Hyperopt's log-scale bounds are natural-log exponents.
std::string ExpRange(const Args& a, bool with_q = false) {
  auto bound = [](const std::optional<std::string>& text, std::string_view name) {
    const auto value = AsNumber(text);
    return value ? fmt::format("{:.6g}", std::exp(*value)) : fmt::format("<e^{}>", name);
  };
  return fmt::format("{{type: loguniform, low: {}, high: {}{}}}", bound(a.low, "low"),
                     bound(a.high, "high"), with_q ? fmt::format(", q: {}", Or(a.q, "<q>")) : "");
}

std::string Choice(const Args& a) {
  if (a.weights)
    return fmt::format("{{type: choice, values: {}, weights: {}}}", Or(a.values, "[a, b, c]"),
                       *a.weights);
  return fmt::format("{{type: choice, values: {}}}", Or(a.values, "[a, b, c]"));
}

Translation Same(ParamKind kind, std::string ours, bool log = false) {
  return Translation{ResolvedKind{kind, log}, "", std::move(ours)};
}
Translation Differs(std::string why, std::string ours) {
  return Translation{std::nullopt, std::move(why), std::move(ours)};
}

// quniform and qloguniform: round(x / q) * q in Hyperopt (log bounds are exponents),
// over bounds rounded inwards to multiples of q in Ray Tune, clipped into the bounds in
// NNI (nni_param.cc reads NNI's own form). The readings agree when the bounds are
// multiples of q (Hyperopt's log bounds never are values).
std::optional<Translation> TranslateQuantised(const Word& w, const Args& a) {
  const bool log = w.base == "qloguniform";
  const std::string_view type = log ? "loguniform" : "uniform";
  if (!a.q) return Differs(fmt::format("{} needs q, the multiple to round to", w.base),
                           Rounded(type, Or(a.low, "<low>"), Or(a.high, "<high>"), a));
  if (w.tool == Tool::kHyperopt && log)
    return Differs("Hyperopt's qloguniform takes natural-log exponents (values from e^low to "
                   "e^high, rounded to q)",
                   ExpRange(a, true));
  const std::string low = Or(a.low, "<low>"), high = Or(a.high, "<high>");
  if (w.tool == Tool::kHyperopt) return Same(ParamKind::kUniform, Rounded(type, low, high, a));
  const auto inward = RayInward(a);
  if (w.tool == Tool::kRay && inward && inward->changed)
    return Differs(fmt::format("Ray Tune's {} rounds within the bounds rounded inwards to "
                               "multiples of q",
                               w.base),
                   Rounded(type, inward->low, inward->high, a));
  if (BoundsAreMultiples(a))
    return Same(log ? ParamKind::kLogUniform : ParamKind::kUniform, Rounded(type, low, high, a));
  return Differs(fmt::format("'{}' without a prefix is read differently by Hyperopt (rounds "
                             "past the bounds), Ray Tune (bounds rounded inwards) and NNI "
                             "(clipped) when the bounds are not multiples of q; write hp.{} or "
                             "tune.{} to say which, or",
                             w.base, w.base, w.base),
                 Rounded(type, low, high, a) + " (Hyperopt's reading; add clip: true for NNI's)");
}

std::optional<Translation> TranslateFloat(const Word& w, const Args& a) {
  const std::string& b = w.base;
  if (b == "uniform" || b == "suggest_uniform" || b == "uniformdistribution")
    return Same(ParamKind::kUniform, Range("uniform", a));
  if (b == "loguniform" && w.tool == Tool::kHyperopt)
    return Differs("Hyperopt's loguniform takes natural-log exponents (values from e^low to "
                   "e^high)",
                   ExpRange(a));
  if (b == "loguniform" || b == "suggest_loguniform" || b == "loguniformdistribution")
    return Same(ParamKind::kLogUniform, Range("loguniform", a));
  if (b == "suggest_float" || b == "floatdistribution") {
    if (a.q)
      return Differs("a float with a step has no counterpart here", SteppedChoice(a));
    return a.log ? Same(ParamKind::kLogUniform, Range("loguniform", a))
                 : Same(ParamKind::kUniform, Range("uniform", a));
  }
  if (b == "suggest_discrete_uniform" || b == "discreteuniformdistribution") {
    // Optuna counts low, low + q, ...: our step, not our q (which rounds to multiples).
    if (AllInts(a))
      return Differs("Optuna's q counts from low, which is step: here (q: rounds to multiples "
                     "of q)",
                     IntRange(a, false, false, true));
    return Differs(fmt::format("{} over non-integers counts from low by q", b), SteppedChoice(a));
  }
  if (b == "quniform" || b == "qloguniform") return TranslateQuantised(w, a);
  return std::nullopt;
}

std::optional<Translation> TranslateInt(const Word& w, const Args& a) {
  const std::string& b = w.base;
  if (b == "uniformint" && w.tool != Tool::kOptuna) {
    // Hyperopt: scope.int(quniform(low, high, q = 1)), so low and high get half the mass.
    if (!a.q || a.q == "1") {
      Args unit = a;
      unit.q = "1";
      Translation t = Same(ParamKind::kUniform, Rounded("uniform", Or(a.low, "<low>"),
                                                        Or(a.high, "<high>"), unit));
      t.same->q = 1;
      return t;
    }
    return Same(ParamKind::kUniform,
                Rounded("uniform", Or(a.low, "<low>"), Or(a.high, "<high>"), a));
  }
  if (b == "intuniformdistribution")
    return Same(ParamKind::kInt, IntRange(a, false, false, true));
  if (b == "suggest_int" || b == "intdistribution")
    return Same(ParamKind::kInt, IntRange(a, false, a.log, true), a.log);
  if (b == "intloguniformdistribution")
    return Same(ParamKind::kInt, IntRange(a, false, true, false), true);
  if (b == "qrandint") {  // Ray: multiples of q between the bounds, both included
    // q = 1 (Ray's default): its Quantized sampler skips the rounding and draws as randint,
    // upper bound excluded, against its docstring's "inclusive". Refused with what it draws.
    if (!a.q || a.q == "1")
      return Differs(fmt::format("Ray Tune's qrandint with q = 1 draws as randint does, upper "
                                 "bound excluded (its docstring says included: then write "
                                 "high: {})",
                                 Or(a.high, "<high>")),
                     IntRange(a, true, false, false));
    const auto inward = RayInward(a);
    Args stepped = a;
    if (inward) {
      stepped.low = inward->low;
      stepped.high = inward->high;
    }
    return Differs("Ray Tune's qrandint gives the multiples of q between the bounds; here "
                   "that is step: q from the first multiple",
                   IntRange(stepped, false, false, true));
  }
  if (b == "randint")
    return Differs(fmt::format("{} randint excludes the upper bound; ours includes it",
                               ToolName(w.tool)),
                   IntRange(a, true, false, false));
  if (b == "lograndint")
    return Differs("Ray Tune's lograndint excludes the upper bound; ours includes it",
                   IntRange(a, true, true, false));
  if (b == "qlograndint") {  // Ray: log-scale integers rounded to multiples of q, inwards
    const auto inward = RayInward(a);
    Args rounded = a;
    if (inward) {
      rounded.low = inward->low;
      rounded.high = inward->high;
    }
    std::string ours = IntRange(rounded, false, true, false);
    ours.insert(ours.size() - 1, fmt::format(", q: {}", Or(a.q, "<q>")));
    return Differs("Ray Tune's qlograndint rounds to multiples of q within the bounds rounded "
                   "inwards",
                   ours);
  }
  return std::nullopt;
}

std::optional<Translation> TranslateOther(const Word& w, const Args& a) {
  const std::string& b = w.base;
  if (b == "choice" || b == "suggest_categorical" || b == "categoricaldistribution")
    return Same(ParamKind::kChoice, Choice(a));
  if (b == "grid_search")
    return Differs("a grid is the sampler's choice here",
                   Choice(a) + " with sampler: {type: grid}");
  if (b == "pchoice")
    return Differs("a weighted choice is a choice with weights here", Choice(a));
  if (b == "normal" || b == "lognormal")  // Hyperopt's: exp(normal) for lognormal, as ours
    return Same(b == "normal" ? ParamKind::kNormal : ParamKind::kLogNormal,
                NormalText(b == "lognormal", a, false));
  if (b == "qnormal" || b == "qlognormal") {
    const ParamKind kind = b == "qnormal" ? ParamKind::kNormal : ParamKind::kLogNormal;
    if (!a.q) return Differs(fmt::format("{} needs q, the multiple to round to", b),
                             NormalText(b == "qlognormal", a, true));
    return Same(kind, NormalText(b == "qlognormal", a, true));
  }
  if (b == "randn" || b == "qrandn")
    return Differs("Ray Tune's mean and sd are mu and sigma here", NormalText(false, a, b == "qrandn"));
  if (b == "sample_from" || b == "function")
    return Differs("a value computed from other parameters has no counterpart here",
                   "a parameter for what varies, and compute the rest in the trial");
  return std::nullopt;
}

std::optional<Translation> Translate(const Word& w, const Args& a) {
  if (auto t = TranslateFloat(w, a)) return t;
  if (auto t = TranslateInt(w, a)) return t;
  return TranslateOther(w, a);
}

// ---- the two spellings: a mapping's keys, or a call's arguments ----

std::optional<std::string> ScalarText(const Expected<const Value*>& value) {
  if (!value || *value == nullptr || !(*value)->IsScalar()) return std::nullopt;
  return (*value)->node().Scalar();
}

Args ArgsOfMapping(const Mapping& spec) {
  Args a;
  a.low = ScalarText(FindParamKey(spec, "low"));
  a.high = ScalarText(FindParamKey(spec, "high"));
  a.q = ScalarText(FindParamKey(spec, "q"));
  if (!a.q) a.q = ScalarText(FindParamKey(spec, "step"));
  a.mu = ScalarText(spec.Find("mu"));
  a.sigma = ScalarText(spec.Find("sigma"));
  if (!a.mu) a.mu = ScalarText(spec.Find("mean"));  // Ray Tune's randn(mean, sd)
  if (!a.sigma) a.sigma = ScalarText(spec.Find("sd"));
  Expected<const Value*> values = FindParamKey(spec, "values");
  if (values && *values != nullptr)
    if (Expected<Json> json = (*values)->ToJson()) a.values = DumpForPeople(*json);
  if (const Value* log = spec.Find("log")) a.log = log->ToBool().value_or(false);
  return a;
}

std::string Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

// Splits "a, [b, c], d" at the commas outside brackets and quotes.
std::vector<std::string> SplitArguments(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  char quote = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '(' || c == '{') {
      ++depth;
    } else if (c == ']' || c == ')' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(Trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (std::string last = Trim(text.substr(start)); !last.empty()) parts.push_back(last);
  return parts;
}

bool IsQuoted(const std::string& text) {
  return text.size() >= 2 && (text.front() == '\'' || text.front() == '"') &&
         text.back() == text.front();
}

void SetKeyword(Args& a, const std::string& key, const std::string& value) {
  if (key == "low" || key == "lower") a.low = value;
  else if (key == "high" || key == "upper") a.high = value;
  else if (key == "q" || key == "step") a.q = value;
  else if (key == "log") a.log = value == "True" || value == "true";
  else if (key == "mu" || key == "mean") a.mu = value;
  else if (key == "sigma" || key == "sd") a.sigma = value;
  else if (key == "choices" || key == "categories" || key == "values" || key == "options")
    a.values = value;
}

// Hyperopt's pchoice list "[(0.1, 'a'), (0.9, 'b')]" -> values ['a', 'b'], weights [0.1, 0.9].
void SetWeightedValues(Args& a, std::string_view list) {
  const std::string text = Trim(list);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return;
  std::string values, weights;
  for (const std::string& pair : SplitArguments(std::string_view(text).substr(1, text.size() - 2))) {
    if (pair.size() < 2 || pair.front() != '(' || pair.back() != ')') return;
    const auto parts = SplitArguments(std::string_view(pair).substr(1, pair.size() - 2));
    if (parts.size() != 2) return;
    weights += (weights.empty() ? "" : ", ") + parts[0];
    values += (values.empty() ? "" : ", ") + parts[1];
  }
  a.values = "[" + values + "]";
  a.weights = "[" + weights + "]";
}

Args ArgsOfCall(const Word& w, std::string_view arguments) {
  Args a;
  std::vector<std::string> positional;
  for (const std::string& part : SplitArguments(arguments)) {
    const std::size_t eq = part.find('=');
    const bool keyword = eq != std::string::npos && part.find_first_of("[('\"") > eq;
    if (keyword) SetKeyword(a, Trim(part.substr(0, eq)), Trim(part.substr(eq + 1)));
    else positional.push_back(part);
  }
  // Hyperopt's and Optuna's first argument is the parameter's label.
  if (!positional.empty() && IsQuoted(positional.front())) positional.erase(positional.begin());
  const std::string& b = w.base;
  if (b == "pchoice") {
    if (!positional.empty()) SetWeightedValues(a, positional[0]);
    return a;
  }
  if (b == "choice" || b == "suggest_categorical" || b == "grid_search") {
    if (!positional.empty()) a.values = positional[0];
    return a;
  }
  const bool normal = b == "normal" || b == "qnormal" || b == "lognormal" || b == "qlognormal" ||
                      b == "randn" || b == "qrandn";
  if (normal) {
    if (positional.size() > 0) a.mu = positional[0];
    if (positional.size() > 1) a.sigma = positional[1];
    if (positional.size() > 2) a.q = positional[2];
    if (b == "randn" || b == "qrandn") {  // Ray's defaults: mean 0, sd 1
      if (!a.mu) a.mu = "0";
      if (!a.sigma) a.sigma = "1";
    }
    return a;
  }
  if (b == "randint" && w.tool == Tool::kHyperopt && positional.size() == 1) {
    a.low = "0";  // hp.randint(label, upper): 0 .. upper - 1
    a.high = positional[0];
    return a;
  }
  if (positional.size() > 0) a.low = positional[0];
  if (positional.size() > 1) a.high = positional[1];
  if (positional.size() > 2) a.q = positional[2];
  return a;
}

// "tune.loguniform(1e-4, 1e-1)" -> the word and the text between the parentheses.
std::optional<std::pair<std::string, std::string>> SplitCall(std::string_view text) {
  const std::string trimmed = Trim(text);
  const std::size_t open = trimmed.find('(');
  if (open == std::string::npos || open == 0 || trimmed.back() != ')') return std::nullopt;
  const std::string name = Trim(std::string_view(trimmed).substr(0, open));
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return std::nullopt;
  return std::pair{name, trimmed.substr(open + 1, trimmed.size() - open - 2)};
}

tl::unexpected<Error> CallError(const Value& at, std::string_view call, const Word& word,
                                const Translation& t, std::string_view param, bool as_value) {
  std::string problem = fmt::format("'{}' is {} syntax, not gpusweep's", call,
                                    word.tool == Tool::kAny ? "another tool's" : ToolName(word.tool));
  if (as_value) problem += " (as a value it would be a constant string)";
  if (!t.why.empty()) problem += "; " + t.why;
  return at.Invalid(problem, fmt::format("write {}: {}", param, t.ours));
}

}  // namespace

std::optional<Expected<ResolvedKind>> ResolveForeignType(const Value& type_value,
                                                         const Mapping& spec,
                                                         std::string_view param) {
  if (!type_value.IsScalar()) return std::nullopt;
  const std::string& text = type_value.node().Scalar();
  if (auto call = SplitCall(text)) {
    const Word word = Normalize(call->first);
    const auto t = Translate(word, ArgsOfCall(word, call->second));
    if (!t) return std::nullopt;
    return CallError(type_value, text, word, *t, param, false);
  }
  const Word word = Normalize(text);
  const auto t = Translate(word, ArgsOfMapping(spec));
  if (!t) return std::nullopt;
  if (t->same) return *t->same;
  return type_value.Invalid(fmt::format("'{}': {}", text, t->why),
                            fmt::format("write {}: {}", param, t->ours));
}

std::optional<std::string> ForeignCallMapping(std::string_view call) {
  const auto split = SplitCall(call);
  if (!split) return std::nullopt;
  const Word word = Normalize(split->first);
  const auto t = Translate(word, ArgsOfCall(word, split->second));
  if (!t) return std::nullopt;
  return t->ours;
}

Status CheckForeignCallValue(const Value& value, std::string_view param) {
  if (!value.IsScalar()) return {};
  const std::string& text = value.node().Scalar();
  const auto call = SplitCall(text);
  if (!call) return {};
  const Word word = Normalize(call->first);
  const auto t = Translate(word, ArgsOfCall(word, call->second));
  if (!t) return {};
  return CallError(value, text, word, *t, param, true);
}

}  // namespace gpusweep::config_detail
