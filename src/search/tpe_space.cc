#include "search/tpe_space.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "search/distributions.h"
#include "search/samplers.h"

namespace gpusweep::search {
namespace {

// The model dim of a param, or nullopt when it can take only one value.
std::optional<ModelDim> DimOf(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kUniform:
      if (p.high > p.low) return ModelDim{DimKind::kContinuous, 0};
      return std::nullopt;
    case ParamKind::kLogUniform:
    case ParamKind::kNormal:  // the model value is the truncated CDF (distributions.h)
    case ParamKind::kLogNormal:
      return ModelDim{DimKind::kContinuous, 0};
    case ParamKind::kInt: {
      const std::uint64_t cells = IntCardinality(p);
      // On a log scale, as Optuna does: continuous in log space, rounded when drawn.
      if (cells >= 2 && p.int_log) return ModelDim{DimKind::kContinuous, 0};
      if (cells >= 2) return ModelDim{DimKind::kDiscrete, cells};
      return std::nullopt;
    }
    case ParamKind::kChoice:
      if (p.values.size() >= 2) return ModelDim{DimKind::kCategorical, p.values.size()};
      return std::nullopt;
    case ParamKind::kConstant:
      return std::nullopt;
  }
  return std::nullopt;
}

Json FixedValue(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kUniform:
    case ParamKind::kLogUniform: return p.low;
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: return NormalFromUnit(p, 0.5);  // never fixed: sigma > 0
    case ParamKind::kInt: return p.int_low;
    case ParamKind::kChoice: return p.values.front();
    case ParamKind::kConstant: return p.constant;
  }
  return nullptr;
}

}  // namespace

TpeSpace::TpeSpace(const SearchSpace& space) : space_(space) {
  dim_of_param_.assign(space_.params.size(), -1);
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    if (const std::optional<ModelDim> dim = DimOf(space_.params[i])) {
      dim_of_param_[i] = static_cast<int>(dims_.size());
      dims_.push_back(*dim);
      param_of_dim_.push_back(i);
      const ParamSpec& p = space_.params[i];
      const bool log = p.kind == ParamKind::kLogUniform;
      if (p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) {
        origin_.push_back(0);  // unused: NormalToUnit gives the model value
        span_.push_back(1);
        continue;
      }
      if (p.kind == ParamKind::kInt && p.int_log) {
        const auto [log_low, log_high] = LogIntBounds(p);
        origin_.push_back(log_low);
        span_.push_back(log_high - log_low);
        continue;
      }
      origin_.push_back(log ? std::log(p.low) : p.low);
      span_.push_back(log ? std::log(p.high) - std::log(p.low) : p.high - p.low);
    }
  }
}

const Json* TpeSpace::FindValue(const Json& params, int dim) const {
  if (!params.is_object()) return nullptr;
  const auto& object = params.get_ref<const Json::object_t&>();
  const std::size_t position = param_of_dim_[dim];
  const std::string& name = space_.params[position].name;
  if (position < object.size()) {  // ordered_map is a vector of (key, value) pairs
    const auto& [key, value] = object.begin()[static_cast<std::ptrdiff_t>(position)];
    if (key == name) return &value;
  }
  const auto it = params.find(name);
  return it == params.end() ? nullptr : &*it;
}

std::optional<double> TpeSpace::ToModel(int dim, const Json& value) const {
  const ParamSpec& p = space_.params[param_of_dim_[dim]];
  if (p.kind == ParamKind::kChoice) {
    const auto it = std::find(p.values.begin(), p.values.end(), value);
    if (it == p.values.end()) return std::nullopt;
    return static_cast<double>(it - p.values.begin());
  }
  double x = 0;
  if (const double* stored = value.get_ptr<const double*>()) {
    x = *stored;  // the common case, read without nlohmann's conversion machinery
  } else if (value.is_number()) {
    x = value.get<double>();
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(x)) return std::nullopt;
  if (p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) return NormalToUnit(p, x);
  if (p.kind == ParamKind::kUniform)
    return std::clamp((x - origin_[dim]) / span_[dim], 0.0, 1.0);
  if (p.kind == ParamKind::kLogUniform || p.int_log) {
    if (x <= 0) return std::nullopt;
    return std::clamp((std::log(x) - origin_[dim]) / span_[dim], 0.0, 1.0);
  }
  // kInt: the nearest grid index.
  const double cells = static_cast<double>(dims_[dim].size);
  const double index = std::round((x - static_cast<double>(p.int_low)) /
                                  static_cast<double>(p.int_step));
  return std::clamp(index, 0.0, cells - 1.0);
}

Json TpeSpace::FromModel(const ParamSpec& p, double value) const {
  switch (p.kind) {
    case ParamKind::kUniform:
      return RoundToQ(p, std::clamp(p.low + value * (p.high - p.low), p.low, p.high));
    case ParamKind::kLogUniform: {
      const double log_low = std::log(p.low), log_high = std::log(p.high);
      return RoundToQ(p, std::clamp(std::exp(log_low + value * (log_high - log_low)), p.low,
                                    p.high));
    }
    case ParamKind::kNormal:
    case ParamKind::kLogNormal:
      return RoundToQ(p, NormalFromUnit(p, value));
    case ParamKind::kInt: {
      const std::int64_t x =
          p.int_log ? LogIntValue(p, value) : IntValue(p, static_cast<std::uint64_t>(value));
      return p.q > 0 ? RoundToQ(p, static_cast<double>(x)) : Json(x);
    }
    case ParamKind::kChoice:
      return p.values[static_cast<std::size_t>(value)];
    case ParamKind::kConstant:
      return p.constant;
  }
  return nullptr;
}

Json TpeSpace::ParamValue(std::size_t param, double model) const {
  const ParamSpec& p = space_.params[param];
  return dim_of_param_[param] < 0 ? FixedValue(p) : FromModel(p, model);
}

Params TpeSpace::ToParams(const std::vector<double>& model) const {
  Params out = Json::object();
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    const ParamSpec& p = space_.params[i];
    out[p.name] = dim_of_param_[i] < 0 ? FixedValue(p) : FromModel(p, model[dim_of_param_[i]]);
  }
  return out;
}

}  // namespace gpusweep::search
