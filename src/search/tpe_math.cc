#include "search/tpe_math.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <numeric>

namespace gpusweep::search {

namespace {

// Below this size a comparison sort beats the radix sort's fixed cost (8 x 256 counters).
constexpr std::size_t kRadixThreshold = 256;
constexpr std::size_t kRadixMaxSize = 1 << 16;  // indices fit in the keys' low 16 bits

// An unsigned key that orders like the double: flip all bits of negatives, the sign bit
// of the rest. Adding 0.0 first turns -0.0 into +0.0.
std::uint64_t OrderedBits(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value + 0.0);
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  return (bits & kSign) != 0 ? ~bits : bits | kSign;
}

// LSD radix sort of 8-byte items: the key's top 48 bits above a 16-bit index, so only
// the 6 upper bytes are sorted (stable: equal tops keep index order). Values that agree
// in their top 48 bits (relative difference < 2^-36) may come out of order; a final
// insertion pass by the exact (value, index) order puts them right, cheaply, since such
// near-ties are rare and adjacent.
std::vector<std::uint32_t> RadixOrder(const std::vector<double>& values) {
  const std::size_t n = values.size();  // <= kRadixMaxSize
  std::vector<std::uint64_t> items(n), scratch(n);
  std::array<std::array<std::uint32_t, 256>, 6> counts{};
  constexpr std::uint64_t kTopMask = ~std::uint64_t{0xFFFF};
  for (std::size_t i = 0; i < n; ++i) {
    items[i] = (OrderedBits(values[i]) & kTopMask) | i;
    for (int pass = 0; pass < 6; ++pass) ++counts[pass][(items[i] >> (16 + 8 * pass)) & 0xFF];
  }
  for (int pass = 0; pass < 6; ++pass) {
    std::array<std::uint32_t, 256>& count = counts[pass];
    const int shift = 16 + 8 * pass;
    if (count[(items[0] >> shift) & 0xFF] == n) continue;  // one bucket: nothing moves
    std::exclusive_scan(count.begin(), count.end(), count.begin(), std::uint32_t{0});
    for (const std::uint64_t item : items) scratch[count[(item >> shift) & 0xFF]++] = item;
    items.swap(scratch);
  }
  std::vector<std::uint32_t> order(n);
  for (std::size_t r = 0; r < n; ++r) order[r] = static_cast<std::uint32_t>(items[r] & 0xFFFF);
  const auto before = [&](std::uint32_t a, std::uint32_t b) {
    return values[a] < values[b] || (values[a] == values[b] && a < b);
  };
  for (std::size_t r = 1; r < n; ++r) {
    const std::uint32_t item = order[r];
    std::size_t s = r;
    for (; s > 0 && before(item, order[s - 1]); --s) order[s] = order[s - 1];
    order[s] = item;
  }
  return order;
}

}  // namespace

std::vector<std::uint32_t> SortedOrder(const std::vector<double>& values) {
  if (values.size() >= kRadixThreshold && values.size() <= kRadixMaxSize) return RadixOrder(values);
  std::vector<std::uint32_t> order(values.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const double va = values[a], vb = values[b];
    return va < vb || (va == vb && a < b);
  });
  return order;
}

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
