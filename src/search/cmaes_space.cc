#include "search/cmaes_space.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

#include "search/distributions.h"
#include "search/samplers.h"

namespace gpusweep::search {
namespace {

bool CmaesHasCoordinate(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kUniform: return p.high > p.low;
    case ParamKind::kLogUniform:
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: return true;
    case ParamKind::kInt: return IntCardinality(p) >= 2;
    case ParamKind::kChoice:
    case ParamKind::kConstant: return false;
  }
  return false;
}

Json CmaesFixedValue(const ParamSpec& p) {
  switch (p.kind) {
    case ParamKind::kUniform:
    case ParamKind::kLogUniform: return p.low;
    case ParamKind::kNormal:
    case ParamKind::kLogNormal: return NormalFromUnit(p, 0.5);
    case ParamKind::kInt: return p.int_low;
    case ParamKind::kChoice: return p.values.front();
    case ParamKind::kConstant: return p.constant;
  }
  return nullptr;
}

bool CmaesLogScale(const ParamSpec& p) {
  return p.kind == ParamKind::kLogUniform || (p.kind == ParamKind::kInt && p.int_log);
}

}  // namespace

CmaesSpace::CmaesSpace(const SearchSpace& space) : space_(space) {
  dim_of_param_.assign(space_.params.size(), -1);
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    const ParamSpec& p = space_.params[i];
    if (!CmaesHasCoordinate(p)) continue;
    dim_of_param_[i] = static_cast<int>(param_of_dim_.size());
    param_of_dim_.push_back(i);
    double low = 0, high = 1;
    if (p.kind == ParamKind::kInt && p.int_log) {
      std::tie(low, high) = LogIntBounds(p);
    } else if (p.kind == ParamKind::kInt) {
      low = static_cast<double>(p.int_low) - 0.5 * static_cast<double>(p.int_step);
      high = static_cast<double>(IntValue(p, IntCardinality(p) - 1)) +
             0.5 * static_cast<double>(p.int_step);
    } else if (p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) {
      low = 0;  // the coordinate is the CDF itself
      high = 1;
    } else if (p.kind == ParamKind::kLogUniform) {
      low = std::log(p.low);
      high = std::log(p.high);
    } else {
      low = p.low;
      high = p.high;
    }
    origin_.push_back(low);
    span_.push_back(high - low);
  }
}

std::optional<double> CmaesSpace::ToUnit(const Params& params, int dim) const {
  const ParamSpec& p = space_.params[param_of_dim_[dim]];
  const auto it = params.find(p.name);
  if (it == params.end() || !it->is_number()) return std::nullopt;
  double x = it->get<double>();
  if (!std::isfinite(x)) return std::nullopt;
  if (p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) return NormalToUnit(p, x);
  if (CmaesLogScale(p)) {
    if (x <= 0) return std::nullopt;
    x = std::log(x);
  }
  return std::clamp((x - origin_[dim]) / span_[dim], 0.0, 1.0);
}

Params CmaesSpace::ToParams(const std::vector<double>& unit) const {
  Params out = Json::object();
  for (std::size_t i = 0; i < space_.params.size(); ++i) {
    const ParamSpec& p = space_.params[i];
    const int dim = dim_of_param_[i];
    if (dim < 0) {
      out[p.name] = CmaesFixedValue(p);
      continue;
    }
    const double u = std::clamp(unit[dim], 0.0, 1.0);
    const double x = origin_[dim] + u * span_[dim];
    switch (p.kind) {
      case ParamKind::kUniform:
        out[p.name] = RoundToQ(p, std::clamp(x, p.low, p.high));
        break;
      case ParamKind::kLogUniform:
        out[p.name] = RoundToQ(p, std::clamp(std::exp(x), p.low, p.high));
        break;
      case ParamKind::kNormal:  // the coordinate is the truncated CDF (distributions.h)
      case ParamKind::kLogNormal:
        out[p.name] = RoundToQ(p, NormalFromUnit(p, u));
        break;
      case ParamKind::kInt: {
        if (p.int_log) {
          out[p.name] = p.q > 0 ? RoundToQ(p, static_cast<double>(LogIntValue(p, u)))
                                : Json(LogIntValue(p, u));
          break;
        }
        const double cells = static_cast<double>(IntCardinality(p));
        const double index = std::clamp(
            std::round((x - static_cast<double>(p.int_low)) / static_cast<double>(p.int_step)),
            0.0, cells - 1);
        const std::int64_t value = IntValue(p, static_cast<std::uint64_t>(index));
        out[p.name] = p.q > 0 ? RoundToQ(p, static_cast<double>(value)) : Json(value);
        break;
      }
      case ParamKind::kChoice:
      case ParamKind::kConstant:
        out[p.name] = CmaesFixedValue(p);  // unreachable: they have no coordinate
        break;
    }
  }
  return out;
}

}  // namespace gpusweep::search
