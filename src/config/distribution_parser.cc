// The distribution block's keys (contract in distribution_parser.h).
#include "config/distribution_parser.h"

#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "config/param_vocabulary.h"

namespace gpusweep::config_detail {
namespace {

constexpr int kMaxListedRoundedValues = 50;

// Where an error about the parameter as a whole points: its type (or distribution).
const Value& KindKey(const Mapping& spec) {
  if (const Value* type = spec.Find("type")) return *type;
  if (const Value* nni = spec.Find("_type")) return *nni;
  if (const Value* distribution = spec.Find("distribution")) return *distribution;
  return spec.self();
}

Expected<double> OptionalNumber(const Mapping& spec, std::string_view key, double fallback) {
  const Value* value = spec.Find(key);
  if (value == nullptr) return fallback;
  return value->ToNumber();
}

// The multiples of q that rounding [low, high] reaches, as a YAML list (few of them).
std::string RoundedValues(const ParamSpec& p) {
  double low = p.low, high = p.high;
  if (p.kind == ParamKind::kInt) {
    low = static_cast<double>(p.int_low);
    high = static_cast<double>(p.int_high);
  }
  if (!std::isfinite(low) || !std::isfinite(high)) return "[<each value you want>]";
  const double first = std::nearbyint(low / p.q), last = std::nearbyint(high / p.q);
  if (last - first >= kMaxListedRoundedValues) return "[<each value you want>]";
  std::string values;
  for (double k = first; k <= last; ++k) {
    double v = k * p.q;
    if (p.q_clip) v = std::clamp(v, low, high);
    values += fmt::format("{}{:g}", values.empty() ? "" : ", ", v);
  }
  return "[" + values + "]";
}

}  // namespace

bool IsNormalKind(ParamKind kind) {
  return kind == ParamKind::kNormal || kind == ParamKind::kLogNormal;
}

Status ParseNormal(const Mapping& spec, ParamSpec& param) {
  const bool log = param.kind == ParamKind::kLogNormal;
  GS_ASSIGN_OR_RETURN(param.mu, OptionalNumber(spec, "mu", 0.0));
  GS_ASSIGN_OR_RETURN(param.sigma, OptionalNumber(spec, "sigma", 1.0));
  if (!(param.sigma > 0))
    return spec.Find("sigma")->Invalid(fmt::format("sigma must be > 0, found {}", param.sigma),
                                       "use the standard deviation, e.g. sigma: 1");
  param.low = log ? 0.0 : -std::numeric_limits<double>::infinity();
  param.high = std::numeric_limits<double>::infinity();
  GS_ASSIGN_OR_RETURN(const Value* low, FindParamKey(spec, "low"));
  GS_ASSIGN_OR_RETURN(const Value* high, FindParamKey(spec, "high"));
  if (low != nullptr) {
    GS_ASSIGN_OR_RETURN(param.low, low->ToNumber());
  }
  if (high != nullptr) {
    GS_ASSIGN_OR_RETURN(param.high, high->ToNumber());
  }
  if (log && low != nullptr && param.low < 0)
    return low->Invalid(fmt::format("a log-normal value is > 0, so low {} bounds nothing",
                                    param.low),
                        "use low: 0 or more, or leave low out");
  if (log && high != nullptr && param.high <= 0)
    return high->Invalid(fmt::format("a log-normal value is > 0, so high must be > 0, found {}",
                                     param.high),
                         "use a positive high, or leave high out");
  if (param.low >= param.high)
    return (high ? *high : *low)
        .Invalid(fmt::format("high ({}) must be greater than low ({})", param.high, param.low),
                 "use low < high");
  return {};
}

Status ParseRounding(const Mapping& spec, ParamSpec& param, double default_q) {
  param.q = default_q;
  if (const Value* q = spec.Find("q")) {
    GS_ASSIGN_OR_RETURN(param.q, q->ToNumber());
    if (!(param.q > 0))
      return q->Invalid(fmt::format("q must be > 0, found {}", param.q),
                        "use the multiple to round to, e.g. q: 1, or leave q out");
    const Value* step = spec.Find("step");
    if (step != nullptr && param.int_step != 1)
      return q->Invalid("give step or q, not both: step counts low, low + step, ...; q rounds "
                        "each value to a multiple of q",
                        fmt::format("keep step: {} (values from low) or q: {} (multiples of q)",
                                    param.int_step, param.q));
  }
  if (const Value* clip = spec.Find("clip")) {
    GS_ASSIGN_OR_RETURN(param.q_clip, clip->ToBool());
    if (param.q_clip && !(param.q > 0))
      return clip->Invalid("clip: true clamps a value rounded to q into [low, high], and there "
                           "is no q",
                           "add q: <multiple>, or remove clip");
  }
  return {};
}

Status ParseWeights(const Mapping& spec, ParamSpec& param) {
  const Value* weights = spec.Find("weights");
  const Value* theirs = spec.Find("probabilities");  // W&B's categorical
  if (weights != nullptr && theirs != nullptr)
    return theirs->Invalid("'probabilities' and 'weights' mean the same", "give only weights");
  if (weights == nullptr) weights = theirs;
  if (weights == nullptr) return {};
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, weights->ToList());
  if (list.size() != param.values.size())
    return weights->Invalid(fmt::format("{} weights for {} values", list.size(),
                                        param.values.size()),
                            "give one weight per value, in the order of values");
  double sum = 0;
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(double w, element.ToNumber());
    if (w < 0) return element.Invalid(fmt::format("a weight must be >= 0, found {}", w),
                                      "use the value's probability, e.g. 0.25");
    param.weights.push_back(w);
    sum += w;
  }
  if (std::abs(sum - 1) > 1e-6)
    return weights->Invalid(fmt::format("the weights sum to {:g}, not 1", sum),
                            "give each value's probability, so that they sum to 1");
  for (double& w : param.weights) w /= sum;
  return {};
}

Status CheckShapeForSampler(const Mapping& spec, const ParamSpec& param, SamplerKind sampler) {
  const bool model_of_choice = sampler == SamplerKind::kTpe || sampler == SamplerKind::kGp ||
                               sampler == SamplerKind::kNsga2;
  const Value* weights = spec.Find("weights") ? spec.Find("weights") : spec.Find("probabilities");
  if (!param.weights.empty() && model_of_choice)
    return weights->Invalid(
        "this sampler's model of a choice has no place for weights (they would shape only "
        "its first random trials)",
        "remove the weights (the sampler learns which values do well), or use sampler type: "
        "random or sobol, which draw by them (or evolution, with one objective)");
  if (sampler != SamplerKind::kGrid) return {};
  if (IsNormalKind(param.kind))
    return KindKey(spec).Invalid(
        fmt::format("the grid sampler cannot enumerate a continuous {} parameter",
                    param.kind == ParamKind::kNormal ? "normal" : "lognormal"),
        "write type: choice with the values to try, or use sampler type: random");
  if ((param.kind == ParamKind::kUniform || param.kind == ParamKind::kLogUniform) &&
      !(param.q > 0))
    return KindKey(spec).Invalid("the grid sampler cannot enumerate a continuous parameter",
                                 "use type: choice or type: int, or sampler type: random");
  if (!param.weights.empty())
    return weights->Invalid("the grid sampler runs every value once, so weights mean nothing",
                            "remove the weights, or use sampler type: random");
  if (param.q > 0)
    return (spec.Find("q") ? *spec.Find("q") : KindKey(spec))
        .Invalid("the grid sampler would run the same rounded value several times",
                 fmt::format("write {}: {{type: choice, values: {}}}", param.name,
                             RoundedValues(param)));
  return {};
}

}  // namespace gpusweep::config_detail
