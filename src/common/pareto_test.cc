#include "gpusweep/pareto.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "gpusweep/objective.h"

namespace gpusweep {
namespace {

constexpr double kParetoTestInf = std::numeric_limits<double>::infinity();
constexpr double kParetoTestNan = std::numeric_limits<double>::quiet_NaN();

// The definition, O(n^3): front k is what nothing left dominates once fronts < k left.
std::vector<int> BruteForceRanks(const std::vector<LossPoint>& p) {
  const Objective objective = [&] {
    std::vector<MetricSpec> metrics;
    for (std::size_t i = 0; i < p.front().size(); ++i) metrics.push_back({"m" + std::to_string(i), Mode::kMin});
    return Objective(metrics);
  }();
  std::vector<int> ranks(p.size(), -1);
  std::size_t assigned = 0;
  for (int rank = 0; assigned < p.size(); ++rank) {
    std::vector<int> front;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (ranks[i] != -1) continue;
      bool dominated = false;
      for (std::size_t j = 0; j < p.size() && !dominated; ++j)
        dominated = (ranks[j] == -1 || ranks[j] == rank) && j != i && objective.Dominates(p[j], p[i]);
      if (!dominated) front.push_back(static_cast<int>(i));
    }
    for (int i : front) ranks[i] = rank;
    assigned += front.size();
  }
  return ranks;
}

// Union of boxes by inclusion-exclusion over every subset: exact, independent of the
// slicing and WFG code, and fine for n <= 10.
double InclusionExclusionVolume(const std::vector<LossPoint>& p, const std::vector<double>& ref) {
  double volume = 0;
  const std::size_t m = ref.size();
  for (unsigned mask = 1; mask < (1u << p.size()); ++mask) {
    std::vector<double> corner(m, -kParetoTestInf);
    for (std::size_t i = 0; i < p.size(); ++i)
      if (mask & (1u << i))
        for (std::size_t d = 0; d < m; ++d) corner[d] = std::max(corner[d], p[i][d]);
    double box = 1;
    for (std::size_t d = 0; d < m; ++d) box *= std::max(0.0, ref[d] - corner[d]);
    volume += (__builtin_popcount(mask) % 2 == 1 ? 1 : -1) * box;
  }
  return volume;
}

std::vector<LossPoint> ParetoRandomPoints(std::mt19937_64& rng, int n, int m, int levels) {
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<LossPoint> points(n, LossPoint(m));
  for (LossPoint& p : points)
    for (double& v : p) v = level(rng) / static_cast<double>(levels);
  return points;
}

TEST(ParetoTest, RanksMatchTheDefinitionWithTiesInEveryDimension) {
  std::mt19937_64 rng(7);
  for (int m = 1; m <= 5; ++m)
    for (int levels : {3, 6, 1000})
      for (int round = 0; round < 30; ++round) {
        const std::vector<LossPoint> points = ParetoRandomPoints(rng, 1 + round, m, levels);
        EXPECT_EQ(NonDominatedRanks(points), BruteForceRanks(points)) << "m=" << m << " levels=" << levels;
      }
}

TEST(ParetoTest, NanIsTreatedAsInfinityAndEqualPointsShareAFront) {
  const std::vector<LossPoint> points{{1, 2}, {1, 2}, {kParetoTestNan, 0}, {kParetoTestInf, 0}, {2, 1}, {1, 3}};
  EXPECT_EQ(NonDominatedRanks(points), (std::vector<int>{0, 0, 0, 0, 0, 1}));
  const std::vector<LossPoint> three{{0, 0, kParetoTestNan}, {0, 0, 1}};
  EXPECT_EQ(NonDominatedRanks(three), (std::vector<int>{1, 0}));
  EXPECT_TRUE(NonDominatedRanks(std::vector<LossPoint>{}).empty());
}

TEST(ParetoTest, ConstrainedRanksPutFeasibleFrontsFirstThenViolationsAscending) {
  const std::vector<LossPoint> points{{0, 0}, {5, 5}, {6, 4}, {9, 9}, {1, 1}, {0, 0}};
  const std::vector<double> violation{2, 0, 0, 0, kParetoTestInf, 0.5};
  EXPECT_EQ(ConstrainedRanks(points, violation), (std::vector<int>{3, 0, 0, 1, 4, 2}));
  // Agrees with ConstrainedCompare: nothing in a later front constraint-dominates an earlier.
  const Objective objective({{"a", Mode::kMin}, {"b", Mode::kMin}}, {{"c", std::nullopt, 1.0}});
  const std::vector<int> ranks = ConstrainedRanks(points, violation);
  for (std::size_t i = 0; i < points.size(); ++i)
    for (std::size_t j = 0; j < points.size(); ++j) {
      if (ranks[j] <= ranks[i]) continue;
      EXPECT_NE(objective.ConstrainedCompare(points[j], violation[j], points[i], violation[i]),
                Dominance::kDominates);
    }
}

// Equal violations (every trial +inf: a constraint's metric never reported) are sorted
// by their objectives: a point beaten in both never shares the first infeasible front.
TEST(ParetoTest, EqualViolationsAreRankedByTheirObjectives) {
  const std::vector<LossPoint> points{{1, 5}, {9, 9}, {5, 1}, {2, 2}, {0, 0}};
  const std::vector<double> violation{kParetoTestInf, kParetoTestInf, kParetoTestInf, kParetoTestInf, 3};
  EXPECT_EQ(ConstrainedRanks(points, violation), (std::vector<int>{1, 2, 1, 1, 0}));
}

TEST(ParetoTest, CrowdingIsInfiniteAtTheEndsAndSumsNormalisedGaps) {
  // One front: ends +inf; (2,8): (4-0)/10 + (10-6)/10 = 0.8; (4,6): (10-2)/10 + (8-0)/10.
  const std::vector<LossPoint> front{{0, 10}, {2, 8}, {4, 6}, {10, 0}};
  const std::vector<int> ranks{0, 0, 0, 0};
  const std::vector<double> crowding = CrowdingDistances(front, ranks);
  EXPECT_EQ(crowding[0], kParetoTestInf);
  EXPECT_EQ(crowding[3], kParetoTestInf);
  EXPECT_DOUBLE_EQ(crowding[1], 0.8);
  EXPECT_DOUBLE_EQ(crowding[2], 1.6);
  EXPECT_EQ(ParetoOrder(ranks, crowding), (std::vector<int>{0, 3, 2, 1}));
  // Per front: a front of two is all +inf; a loss with no range adds nothing.
  const std::vector<LossPoint> mixed{{0, 1}, {5, 5}, {1, 0}, {1, 1}, {2, 1}, {3, 1}};
  const std::vector<int> mixed_ranks = NonDominatedRanks(mixed);
  EXPECT_EQ(mixed_ranks, (std::vector<int>{0, 4, 0, 1, 2, 3}));
  const std::vector<double> mixed_crowding = CrowdingDistances(mixed, mixed_ranks);
  for (double d : mixed_crowding) EXPECT_EQ(d, kParetoTestInf);
}

TEST(ParetoTest, HypervolumeMatchesInclusionExclusionInTwoToSixDimensions) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int m = 1; m <= 6; ++m)
    for (int round = 0; round < 40; ++round) {
      const int n = 1 + round % 10;
      std::vector<LossPoint> points = round % 2 ? ParetoRandomPoints(rng, n, m, 4) : ParetoRandomPoints(rng, n, m, 1 << 20);
      std::vector<double> ref(m);
      for (double& r : ref) r = 0.8 + 0.4 * unit(rng);  // some points lie outside
      std::vector<LossPoint> inside;
      for (const LossPoint& p : points) {
        bool below = true;
        for (int d = 0; d < m; ++d) below &= p[d] < ref[d];
        if (below) inside.push_back(p);
      }
      EXPECT_NEAR(Hypervolume(points, ref), InclusionExclusionVolume(inside, ref), 1e-12)
          << "m=" << m << " n=" << n;
    }
}

TEST(ParetoTest, HypervolumeOfKnownFrontsAndDegenerateInput) {
  EXPECT_DOUBLE_EQ(Hypervolume(std::vector<LossPoint>{{0.5, 0.5}, {0.2, 0.8}}, std::vector<double>{1, 1}), 0.31);
  EXPECT_DOUBLE_EQ(Hypervolume(std::vector<LossPoint>{{0, 0, 0, 0}}, std::vector<double>{1, 2, 3, 4}), 24);
  EXPECT_EQ(Hypervolume(std::vector<LossPoint>{}, std::vector<double>{1, 1}), 0);
  EXPECT_EQ(Hypervolume(std::vector<LossPoint>{{1, 0}, {kParetoTestNan, 0}}, std::vector<double>{1, 1}), 0);
  // The 2-objective front of ZDT1 sampled densely approaches 120 + 2/3 at (11, 11).
  std::vector<LossPoint> zdt1;
  for (int i = 0; i <= 20000; ++i) {
    const double f1 = i / 20000.0;
    zdt1.push_back({f1, 1 - std::sqrt(f1)});
  }
  EXPECT_NEAR(Hypervolume(zdt1, std::vector<double>{11, 11}), 120 + 2.0 / 3, 1e-3);
}

TEST(ParetoTest, DerivedReferenceLiesPastTheWorstPoint) {
  const std::vector<LossPoint> points{{0, 5, 3}, {10, 1, 3}, {kParetoTestInf, 2, 3}};
  EXPECT_EQ(HypervolumeReference(points), (std::vector<double>{11, 5.4, 4}));
  EXPECT_EQ(HypervolumeReference(std::vector<LossPoint>{{kParetoTestNan}}), (std::vector<double>{1}));
  EXPECT_GT(Hypervolume(points, HypervolumeReference(points)), 0);
}

}  // namespace
}  // namespace gpusweep
