#include "search/tpe_math.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

// The reference: sort the pairs (value, index).
std::vector<std::uint32_t> PairOrder(const std::vector<double>& values) {
  std::vector<std::pair<double, std::uint32_t>> pairs;
  for (std::uint32_t i = 0; i < values.size(); ++i) pairs.push_back({values[i], i});
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::uint32_t> order;
  for (const auto& [value, index] : pairs) order.push_back(index);
  return order;
}

TEST(SortedOrderTest, MatchesSortingPairsForEverySizeAndTies) {
  SplitMix64 rng(11);
  // Sizes on both sides of the radix sort's threshold (256).
  for (std::size_t n : {0u, 1u, 7u, 255u, 256u, 1000u, 5000u}) {
    std::vector<double> values(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double u = UnitFromBits(rng.Next());
      switch (i % 5) {
        case 0: values[i] = u; break;
        case 1: values[i] = std::floor(u * 8) / 8; break;          // exact duplicates
        case 2: values[i] = 0.5 + std::ldexp(static_cast<double>(i % 7), -53); break;  // ulps apart
        case 3: values[i] = i % 2 ? 0.0 : -0.0; break;            // signed zeros tie
        default: values[i] = u * 1e-300; break;                   // tiny values
      }
    }
    EXPECT_EQ(SortedOrder(values), PairOrder(values)) << "n = " << n;
  }
}

TEST(SortedOrderTest, HandlesNegativeAndLargeValues) {
  std::vector<double> values(600);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::ldexp(static_cast<double>(i % 37) - 18.0, static_cast<int>(i % 11));
  EXPECT_EQ(SortedOrder(values), PairOrder(values));
}

}  // namespace
}  // namespace gpusweep::search
