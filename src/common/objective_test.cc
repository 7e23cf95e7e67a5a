#include "gpusweep/objective.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ObjectiveTest, BetterFollowsTheDirection) {
  EXPECT_TRUE(Better(Mode::kMax, 2, 1));
  EXPECT_FALSE(Better(Mode::kMax, 1, 2));
  EXPECT_TRUE(Better(Mode::kMin, 1, 2));
  EXPECT_FALSE(Better(Mode::kMin, 1, 1));
}

TEST(ObjectiveTest, MissingAndNanRankAfterEveryNumberAndTieWithEachOther) {
  for (Mode mode : {Mode::kMin, Mode::kMax}) {
    EXPECT_TRUE(RanksBefore(mode, -kInf, std::nullopt));
    EXPECT_TRUE(RanksBefore(mode, kInf, kNan));
    EXPECT_FALSE(RanksBefore(mode, kNan, 0.0));
    EXPECT_EQ(Order(mode, kNan, std::nullopt), std::weak_ordering::equivalent);
    EXPECT_EQ(Order(mode, 3.0, 3.0), std::weak_ordering::equivalent);
  }
  EXPECT_EQ(Order(Mode::kMax, kInf, 1e308), std::weak_ordering::less);
  EXPECT_EQ(Order(Mode::kMin, kInf, 1e308), std::weak_ordering::greater);
}

TEST(ObjectiveTest, SortingWithRanksBeforePutsTheBestFirstAndMissingLast) {
  std::vector<std::optional<double>> values{0.5, kNan, 0.9, std::nullopt, 0.1, 0.9};
  std::stable_sort(values.begin(), values.end(),
                   [](auto a, auto b) { return RanksBefore(Mode::kMax, a, b); });
  ASSERT_EQ(values.size(), 6u);
  EXPECT_EQ(values[0], 0.9);
  EXPECT_EQ(values[1], 0.9);
  EXPECT_EQ(values[2], 0.5);
  EXPECT_EQ(values[3], 0.1);
  EXPECT_TRUE(std::isnan(*values[4]));  // stable: NaN came before nullopt
  EXPECT_FALSE(values[5].has_value());
}

TEST(ObjectiveTest, AsLossIsLowerIsBetterAndFromLossInvertsIt) {
  EXPECT_EQ(AsLoss(Mode::kMin, 2.5), 2.5);
  EXPECT_EQ(AsLoss(Mode::kMax, 2.5), -2.5);
  EXPECT_EQ(AsLoss(Mode::kMax, kNan), kInf);
  EXPECT_EQ(AsLoss(Mode::kMin, std::nullopt), kInf);
  for (Mode mode : {Mode::kMin, Mode::kMax}) EXPECT_EQ(FromLoss(mode, AsLoss(mode, -7.0)), -7.0);
  // The loss order agrees with the ranking: lower loss exactly when it ranks before.
  for (Mode mode : {Mode::kMin, Mode::kMax})
    for (double a : {-1.0, 0.0, 3.0})
      for (double b : {-1.0, 0.0, 3.0})
        EXPECT_EQ(AsLoss(mode, a) < AsLoss(mode, b), RanksBefore(mode, a, b)) << a << " " << b;
}

TEST(ObjectiveTest, ModeWords) {
  EXPECT_EQ(ModeName(Mode::kMin), "min");
  EXPECT_EQ(ModeName(Mode::kMax), "max");
  EXPECT_EQ(DirectionName(Mode::kMin), "minimize");
  EXPECT_EQ(DirectionName(Mode::kMax), "maximize");
}

TEST(ObjectiveTest, ParetoDominanceOverMixedDirections) {
  const Objective objective({{"acc", Mode::kMax}, {"latency_ms", Mode::kMin}});
  ASSERT_TRUE(objective.multi());
  EXPECT_EQ(objective.primary().name, "acc");
  const std::vector<double> a{0.9, 10}, b{0.8, 12}, c{0.95, 20}, d{0.9, 10};
  EXPECT_EQ(objective.Compare(a, b), Dominance::kDominates);
  EXPECT_EQ(objective.Compare(b, a), Dominance::kDominated);
  EXPECT_EQ(objective.Compare(a, c), Dominance::kIncomparable);
  EXPECT_EQ(objective.Compare(a, d), Dominance::kEqual);
  EXPECT_TRUE(objective.Dominates(a, b));
  EXPECT_FALSE(objective.Dominates(a, d));  // equal is not dominance
  const std::vector<double> better_in_one{0.9, 9};
  EXPECT_TRUE(objective.Dominates(better_in_one, a));
}

TEST(ObjectiveTest, AMissingEntryNeverDominatesANumberThere) {
  const Objective objective({{"acc", Mode::kMax}, {"latency_ms", Mode::kMin}});
  const std::vector<double> full{0.5, 100}, missing_latency{0.99, kNan};
  EXPECT_EQ(objective.Compare(missing_latency, full), Dominance::kIncomparable);
  const std::vector<double> worse_acc{0.4, kNan};
  EXPECT_EQ(objective.Compare(worse_acc, full), Dominance::kDominated);
}

TEST(ObjectiveTest, OneMetricDominanceIsTheSingleObjectiveRanking) {
  for (Mode mode : {Mode::kMin, Mode::kMax}) {
    const Objective objective(MetricSpec{"loss", mode});
    EXPECT_FALSE(objective.multi());
    for (double a : {-kInf, -1.0, 0.0, 2.0, kNan})
      for (double b : {-kInf, -1.0, 0.0, 2.0, kNan}) {
        const double va[] = {a}, vb[] = {b};
        EXPECT_EQ(objective.Dominates(va, vb), RanksBefore(mode, a, b)) << a << " vs " << b;
      }
  }
}

TEST(ObjectiveTest, ViolationSumsHowFarEachConstraintIsBrokenAndMissingIsInfinite) {
  const Objective objective(MetricSpec{"acc", Mode::kMax},
                            {{"latency_ms", std::nullopt, 10.0}, {"mem_gib", 1.0, 20.0}});
  ASSERT_TRUE(objective.constrained());
  EXPECT_EQ(objective.Violation(Json{{"acc", 1}, {"latency_ms", 10}, {"mem_gib", 1}}), 0);
  EXPECT_TRUE(objective.Feasible(Json{{"latency_ms", 3}, {"mem_gib", 5}}));
  EXPECT_EQ(objective.Violation(Json{{"latency_ms", 12.5}, {"mem_gib", 0.5}}), 3.0);
  EXPECT_EQ(objective.Violation(Json{{"latency_ms", 1}, {"mem_gib", 21}}), 1.0);
  EXPECT_EQ(objective.Violation(Json{{"latency_ms", 1}}), kInf);
  EXPECT_EQ(objective.Violation(Json{{"latency_ms", "fast"}, {"mem_gib", 2}}), kInf);
  EXPECT_FALSE(objective.Feasible(Json{{"latency_ms", 1}, {"mem_gib", true}}));
  EXPECT_EQ(Objective(MetricSpec{"acc", Mode::kMax}).Violation(Json::object()), 0);
}

TEST(ObjectiveTest, ConstraintDominationPutsFeasibleFirstThenLessViolation) {
  const Objective objective({{"acc", Mode::kMax}, {"params_m", Mode::kMin}},
                            {{"latency_ms", std::nullopt, 10.0}});
  const std::vector<double> good{0.9, 1}, bad{0.1, 100};
  // Feasible beats infeasible whatever the objectives say.
  EXPECT_EQ(objective.ConstrainedCompare(bad, 0, good, 0.5), Dominance::kDominates);
  EXPECT_EQ(objective.ConstrainedCompare(good, 0.5, bad, 0), Dominance::kDominated);
  // Two infeasible: the smaller violation, objectives ignored; equal violations tie.
  EXPECT_EQ(objective.ConstrainedCompare(bad, 1, good, 2), Dominance::kDominates);
  EXPECT_EQ(objective.ConstrainedCompare(good, kInf, bad, 3), Dominance::kDominated);
  // Equal violations compare by the objectives (both +inf: a constraint never reported).
  EXPECT_EQ(objective.ConstrainedCompare(good, 2, bad, 2), Dominance::kDominates);
  EXPECT_EQ(objective.ConstrainedCompare(bad, kInf, good, kInf), Dominance::kDominated);
  EXPECT_EQ(objective.ConstrainedCompare(good, 2, good, 2), Dominance::kEqual);
  // Two feasible: Pareto dominance.
  EXPECT_EQ(objective.ConstrainedCompare(good, 0, bad, 0), Dominance::kDominates);
  const std::vector<double> other{0.95, 50};
  EXPECT_EQ(objective.ConstrainedCompare(good, 0, other, 0), Dominance::kIncomparable);
}

TEST(ObjectiveTest, ValuesAndLossesFollowTheMetricOrderAndDirections) {
  const Objective objective({{"acc", Mode::kMax}, {"params_m", Mode::kMin}});
  const std::vector<double> values = objective.Values(Json{{"params_m", 3}, {"acc", 0.5}, {"x", 1}});
  EXPECT_EQ(values, (std::vector<double>{0.5, 3}));
  EXPECT_EQ(objective.Losses(values), (std::vector<double>{-0.5, 3}));
  const std::vector<double> missing = objective.Values(Json{{"acc", "high"}});
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_TRUE(std::isnan(missing[0]) && std::isnan(missing[1]));
  EXPECT_EQ(objective.Losses(missing), (std::vector<double>{kInf, kInf}));
}

}  // namespace
}  // namespace gpusweep
