// NNI's `_type` / `_value` entries (contract in nni_param.h).
#include "config/nni_param.h"

#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 2> kNniKeys{"_type", "_value"};
constexpr std::array<std::string_view, 10> kNniTypes{
    "choice", "randint", "uniform", "quniform", "loguniform",
    "qloguniform", "normal", "qnormal", "lognormal", "qlognormal"};

Expected<std::vector<double>> Numbers(const Value& value, std::size_t count,
                                      std::string_view shape) {
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.size() != count)
    return value.Invalid(fmt::format("NNI's _value here is {} numbers, found {}", count,
                                     list.size()),
                         fmt::format("write _value: {}", shape));
  std::vector<double> numbers;
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(double x, element.ToNumber());
    numbers.push_back(x);
  }
  return numbers;
}

Status ParseNniChoice(const Value& value, ParamSpec& param, std::vector<ChoiceValue>& branches) {
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.empty()) return value.Invalid("a choice needs at least one value", "add values");
  GS_TRY(ReadChoiceValues(value, list, param, branches));
  param.kind = ParamKind::kChoice;
  return {};
}

Status CheckRange(const Value& value, const ParamSpec& param, bool log) {
  if (log && param.low <= 0)
    return value.Invalid(fmt::format("loguniform needs low > 0, found {}", param.low),
                         "use a positive low, e.g. 1.0e-5");
  if (param.low >= param.high)
    return value.Invalid(fmt::format("high ({}) must be greater than low ({})", param.high,
                                     param.low),
                         "use [low, high] with low < high");
  return {};
}

Status CheckQ(const Value& value, double q) {
  if (!(q > 0))
    return value.Invalid(fmt::format("q must be > 0, found {}", q), "use a positive q, e.g. 1");
  return {};
}

}  // namespace

bool IsNniParam(const Mapping& spec) {
  return spec.Find("_type") != nullptr || spec.Find("_value") != nullptr;
}

Status ParseNniParam(const Mapping& spec, ParamSpec& param, std::vector<ChoiceValue>& branches) {
  GS_TRY(spec.CheckKeys(kNniKeys));
  GS_ASSIGN_OR_RETURN(Value type_value, spec.Require("_type", "add _type: choice, uniform, ..."));
  GS_ASSIGN_OR_RETURN(Value value, spec.Require("_value", "add _value: [...]"));
  GS_ASSIGN_OR_RETURN(std::string_view type, type_value.ToEnum(kNniTypes));
  if (type == "choice") return ParseNniChoice(value, param, branches);
  const bool quantised = type.front() == 'q';
  const std::string_view base = quantised ? type.substr(1) : type;
  if (base == "randint") {
    GS_ASSIGN_OR_RETURN(std::vector<double> b, Numbers(value, 2, "[lower, upper]"));
    if (std::trunc(b[0]) != b[0] || std::trunc(b[1]) != b[1])
      return value.Invalid("randint's bounds are integers", "write _value: [lower, upper]");
    param.kind = ParamKind::kInt;
    param.int_low = static_cast<std::int64_t>(b[0]);
    param.int_high = static_cast<std::int64_t>(b[1]) - 1;  // NNI excludes upper
    if (param.int_high < param.int_low)
      return value.Invalid(fmt::format("randint [{}, {}) holds no integer", b[0], b[1]),
                           "use upper > lower");
    return {};
  }
  const bool normal = base == "normal" || base == "lognormal";
  const std::string shape = normal ? (quantised ? "[mu, sigma, q]" : "[mu, sigma]")
                                   : (quantised ? "[low, high, q]" : "[low, high]");
  GS_ASSIGN_OR_RETURN(std::vector<double> v, Numbers(value, quantised ? 3 : 2, shape));
  if (quantised) {
    GS_TRY(CheckQ(value, v[2]));
    param.q = v[2];
  }
  if (normal) {
    param.kind = base == "normal" ? ParamKind::kNormal : ParamKind::kLogNormal;
    param.mu = v[0];
    param.sigma = v[1];
    param.low = base == "normal" ? -std::numeric_limits<double>::infinity() : 0.0;
    param.high = std::numeric_limits<double>::infinity();
    if (!(param.sigma > 0))
      return value.Invalid(fmt::format("sigma must be > 0, found {}", param.sigma),
                           "write _value: [mu, sigma] with sigma > 0");
    return {};
  }
  param.kind = base == "uniform" ? ParamKind::kUniform : ParamKind::kLogUniform;
  param.low = v[0];
  param.high = v[1];
  param.q_clip = quantised;  // NNI: clip(round(x / q) * q, low, high)
  return CheckRange(value, param, base == "loguniform");
}

}  // namespace gpusweep::config_detail
