// FitToParam (gpusweep/config.h): whether a value is one a parameter can take.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

tl::unexpected<Error> Outside(std::string problem) {
  return Fail(ErrorCode::kInvalidConfig, std::move(problem));
}

Expected<Json> FitRange(const ParamSpec& spec, const Json& value) {
  if (!value.is_number()) return Outside(fmt::format("{} is not a number", DumpForPeople(value)));
  const double x = value.get<double>();
  if (!(x >= spec.low && x <= spec.high))
    return Outside(fmt::format("{} is outside [{}, {}]", DumpForPeople(value), spec.low, spec.high));
  return Json(x);
}

Expected<Json> FitInt(const ParamSpec& spec, const Json& value) {
  if (!value.is_number() ||
      (value.is_number_float() && std::trunc(value.get<double>()) != value.get<double>()))
    return Outside(fmt::format("{} is not an integer", DumpForPeople(value)));
  if (value.is_number_float() && std::abs(value.get<double>()) > 9.0e18)
    return Outside(fmt::format("{} is outside {}..{}", DumpForPeople(value), spec.int_low, spec.int_high));
  const std::int64_t x = value.is_number_float() ? static_cast<std::int64_t>(value.get<double>())
                         : value.is_number_unsigned()
                             ? static_cast<std::int64_t>(std::min<std::uint64_t>(
                                   value.get<std::uint64_t>(), INT64_MAX))
                             : value.get<std::int64_t>();
  if (x < spec.int_low || x > spec.int_high)
    return Outside(fmt::format("{} is outside {}..{}", x, spec.int_low, spec.int_high));
  // Unsigned: x - low may not fit in int64.
  const std::uint64_t offset = static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(spec.int_low);
  if (offset % static_cast<std::uint64_t>(spec.int_step) != 0)
    return Outside(fmt::format("{} is not on the step: {}, {}, ... by {}", x, spec.int_low,
                               spec.int_low + spec.int_step, spec.int_step));
  return Json(x);
}

// A value of a q-rounded parameter (config.h): a multiple of q, within [low, high]
// widened by q/2 on each side (rounding reaches there), or within them when clipped.
Expected<Json> FitRounded(const ParamSpec& spec, const Json& value) {
  if (!value.is_number()) return Outside(fmt::format("{} is not a number", DumpForPeople(value)));
  const double x = value.get<double>();
  const double k = x / spec.q;
  if (!std::isfinite(k) || std::abs(k - std::nearbyint(k)) > 1e-9 * std::max(1.0, std::abs(k)))
    return Outside(fmt::format("{} is not a multiple of q = {}", DumpForPeople(value), spec.q));
  double low = spec.low, high = spec.high;
  if (spec.kind == ParamKind::kInt) {
    low = static_cast<double>(spec.int_low);
    high = static_cast<double>(spec.int_high);
  }
  const double slack = spec.q_clip ? 0 : spec.q / 2;
  if (!(x >= low - slack && x <= high + slack))
    return Outside(fmt::format("{} is outside what rounding [{}, {}] to multiples of {} gives",
                               DumpForPeople(value), low, high, spec.q));
  return value;
}

}  // namespace

Expected<Json> FitToParam(const ParamSpec& spec, const Json& value) {
  if (spec.q > 0) return FitRounded(spec, value);
  switch (spec.kind) {
    case ParamKind::kNormal:
    case ParamKind::kLogNormal:
      if (spec.kind == ParamKind::kLogNormal && value.is_number() && !(value.get<double>() > 0))
        return Outside(fmt::format("{} is not > 0 (a log-normal value)", DumpForPeople(value)));
      return FitRange(spec, value);
    case ParamKind::kChoice:
      for (const Json& candidate : spec.values)
        if (candidate == value) return candidate;
      return Outside(fmt::format("{} is not one of the values", DumpForPeople(value)));
    case ParamKind::kUniform:
    case ParamKind::kLogUniform:
      return FitRange(spec, value);
    case ParamKind::kInt:
      return FitInt(spec, value);
    case ParamKind::kConstant:
      if (value == spec.constant) return spec.constant;
      return Outside(fmt::format("{} differs from the constant {}", DumpForPeople(value),
                                 DumpForPeople(spec.constant)));
  }
  return Outside("unknown parameter kind");
}

}  // namespace gpusweep
