#include "search/tpe_math.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpusweep::search {

double GaussMass(double a, double b) {
  // Beyond 37 standard deviations erfc underflows (slowly, through errno); clamping
  // makes a far-out interval's mass exactly 0 instead.
  constexpr double kFar = 37.0;
  // Beyond 9 on both sides the mass is 1 to double precision: skip the two erfc calls
  // (the common case for narrow kernels well inside the domain).
  constexpr double kWhole = 9.0;
  if (a <= -kWhole && b >= kWhole) return 1.0;
  if (a >= kFar || b <= -kFar) return 0.0;
  a = std::clamp(a, -kFar, kFar);
  b = std::clamp(b, -kFar, kFar);
  const double inv_sqrt2 = 1.0 / std::numbers::sqrt2;
  if (a >= 0) return 0.5 * (std::erfc(a * inv_sqrt2) - std::erfc(b * inv_sqrt2));  // upper tail
  if (b <= 0) return 0.5 * (std::erfc(-b * inv_sqrt2) - std::erfc(-a * inv_sqrt2));  // lower
  return 1.0 - 0.5 * (std::erfc(-a * inv_sqrt2) + std::erfc(b * inv_sqrt2));
}

double StandardNormal(SplitMix64& rng) {
  // 1 - u is in (0, 1], so the log is finite.
  const double radius = std::sqrt(-2.0 * std::log(1.0 - UnitFromBits(rng.Next())));
  return radius * std::cos(2.0 * std::numbers::pi * UnitFromBits(rng.Next()));
}

double TruncatedNormal(SplitMix64& rng, double mu, double sigma, double low, double high) {
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const double x = mu + sigma * StandardNormal(rng);
    if (x >= low && x <= high) return x;
  }
  return std::clamp(mu, low, high);
}

}  // namespace gpusweep::search
