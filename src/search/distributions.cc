// Inverse-CDF draws, q-rounding and weighted choices (contract in distributions.h).
#include "search/distributions.h"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace gpusweep::search {
namespace {

const boost::math::normal kStandardNormal(0.0, 1.0);

// Keeps Phi^-1 finite: u never reaches 0 or 1 (|z| <= about 8.2 at the ends).
constexpr double kUnitMargin = 0x1.0p-53;

// The bounds of the normal variable (log x for kLogNormal), standardised.
std::pair<double, double> StandardBounds(const ParamSpec& p) {
  double low = p.low, high = p.high;
  if (p.kind == ParamKind::kLogNormal) {
    low = low > 0 ? std::log(low) : -std::numeric_limits<double>::infinity();
    high = std::log(high);  // log(+inf) = +inf
  }
  return {(low - p.mu) / p.sigma, (high - p.mu) / p.sigma};
}

double Cdf(double z) {
  if (std::isinf(z)) return z < 0 ? 0.0 : 1.0;
  return boost::math::cdf(kStandardNormal, z);
}
double UpperTail(double z) {
  if (std::isinf(z)) return z < 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::complement(kStandardNormal, z));
}

double Quantile(double probability) {
  const double clamped = std::clamp(probability, std::numeric_limits<double>::min(),
                                    1.0 - kUnitMargin);
  return boost::math::quantile(kStandardNormal, clamped);
}

}  // namespace

double NormalFromUnit(const ParamSpec& p, double u) {
  u = std::clamp(u, kUnitMargin, 1.0 - kUnitMargin);
  const auto [a, b] = StandardBounds(p);
  double z = 0;
  if (a > 0) {  // all mass in the upper tail: work with tail probabilities (precision)
    const double ta = UpperTail(a), tb = UpperTail(b);
    z = -Quantile(ta - u * (ta - tb));
  } else {
    const double pa = Cdf(a), pb = Cdf(b);
    z = Quantile(pa + u * (pb - pa));
  }
  z = std::clamp(z, a, b);
  const double y = p.mu + p.sigma * z;
  const double x = p.kind == ParamKind::kLogNormal ? std::exp(y) : y;
  return std::clamp(x, p.low, p.high);
}

std::optional<double> NormalToUnit(const ParamSpec& p, double x) {
  if (!std::isfinite(x)) return std::nullopt;
  double y = x;
  if (p.kind == ParamKind::kLogNormal) {
    if (x <= 0) return std::nullopt;
    y = std::log(x);
  }
  const auto [a, b] = StandardBounds(p);
  const double z = std::clamp((y - p.mu) / p.sigma, a, b);
  double u = 0;
  if (a > 0) {
    const double ta = UpperTail(a), tb = UpperTail(b);
    u = (ta - UpperTail(z)) / (ta - tb);
  } else {
    const double pa = Cdf(a), pb = Cdf(b);
    u = (Cdf(z) - pa) / (pb - pa);
  }
  return std::clamp(u, 0.0, 1.0);
}

bool RoundsToIntegers(const ParamSpec& p) {
  const auto integral = [](double v) { return std::isinf(v) || std::trunc(v) == v; };
  if (!(p.q > 0) || std::trunc(p.q) != p.q || p.q > 0x1.0p52) return false;
  return !p.q_clip || (integral(p.low) && integral(p.high));
}

Json RoundToQ(const ParamSpec& p, double x) {
  if (!(p.q > 0)) return x;
  const double k = std::nearbyint(x / p.q);  // ties to even under the default rounding mode
  // With q = 1/n (0.1, 0.25) k / n is the nearest double to the decimal, k * q may not be.
  const double inverse = 1.0 / p.q, n = std::nearbyint(inverse);
  double value = inverse >= 1 && std::abs(inverse - n) < 1e-9 * inverse ? k / n : k * p.q;
  if (p.q_clip) value = std::clamp(value, p.low, p.high);
  value += 0.0;  // -0.0 (a negative draw rounded to 0) prints as 0
  if (RoundsToIntegers(p) && std::abs(value) < 0x1.0p62)
    return static_cast<std::int64_t>(value);
  return value;
}

std::size_t WeightedIndex(const ParamSpec& p, double u) {
  const std::size_t n = p.values.size();
  if (p.weights.size() != n) return std::min(static_cast<std::size_t>(u * n), n - 1);
  double cumulative = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    cumulative += p.weights[i];
    if (u < cumulative) return i;
  }
  return n - 1;
}

}  // namespace gpusweep::search
