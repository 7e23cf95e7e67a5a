// The multi-objective / constrained TPE split (tpe_mo_history.h): which trials are good,
// the greedy hypervolume subset and the hypervolume-contribution weights.
#include "search/tpe_mo_history.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

const Objective kTwo({{"f1", Mode::kMin}, {"f2", Mode::kMin}});

SearchSpace OneParam() {
  ParamSpec x;
  x.name = "x";
  x.kind = ParamKind::kUniform;
  x.low = 0;
  x.high = 100;
  return SearchSpace{{x}};
}

// Trial `number` at x = number (model value number / 100) with the given metrics.
TrialRecord Trial(int number, TrialState state, Json metrics) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.params = Json{{"x", number}};
  if (metrics.contains("f1")) t.objective = metrics["f1"].get<double>();
  t.last_metrics = std::move(metrics);
  return t;
}

std::vector<int> Numbers(const std::vector<double>& column) {
  std::vector<int> out;
  for (double v : column) out.push_back(static_cast<int>(std::lround(v * 100)));
  return out;
}

TEST(TpeMoHistoryTest, ReferenceIsOptunasWorstPointMovedOutwards) {
  const std::vector<LossPoint> points{{1, -2, 0, 3}, {2, -4, 0, HUGE_VAL}};
  const std::vector<double> reference = MoTpeReference(points);
  const std::vector<double> expected{2.2, -1.8, 1e-12, 3.3};
  ASSERT_EQ(reference.size(), expected.size());
  for (std::size_t j = 0; j < expected.size(); ++j) EXPECT_DOUBLE_EQ(reference[j], expected[j]) << j;
}

TEST(TpeMoHistoryTest, GreedySubsetTakesTheLargestBoxThenTheLargestGain) {
  // Reference (1.1, 1.1): boxes 0.11, 0.36, 0.11, 0.27; once (0.5, 0.5) is taken, (0, 1)
  // adds 0.05, (1, 0) 0.05, (0.2, 0.8) 0.09; then (0, 1) adds 0.02 and (1, 0) 0.05.
  const std::vector<LossPoint> points{{0, 1}, {0.5, 0.5}, {1, 0}, {0.2, 0.8}};
  EXPECT_EQ(GreedyHypervolumeSubset(points, 2), (std::vector<std::size_t>{1, 3}));
  EXPECT_EQ(GreedyHypervolumeSubset(points, 3), (std::vector<std::size_t>{1, 3, 2}));
  EXPECT_EQ(GreedyHypervolumeSubset(points, 9).size(), 4u);
  // Ties go to the lowest index: after (0.5, 0.5), (1, 0) and (0, 1) add 0.05 each.
  const std::vector<LossPoint> symmetric{{1, 0}, {0.5, 0.5}, {0, 1}};
  EXPECT_EQ(GreedyHypervolumeSubset(symmetric, 2), (std::vector<std::size_t>{1, 0}));
}

TEST(TpeMoHistoryTest, WeightsAreHypervolumeContributionsRelativeToTheLargest) {
  // Reference (1.1, 1.1): exclusive areas 0.05, 0.09 (0.5^2 less the 0.4^2 that the
  // dominated (0.6, 0.6) covers too), 0.05; (0.6, 0.6) adds nothing; the infeasible point
  // gets Optuna's 1e-12.
  const std::vector<LossPoint> points{{0, 1}, {0.5, 0.5}, {1, 0}, {0.6, 0.6}, {-5, -5}};
  const std::vector<double> w =
      HypervolumeContributionWeights(points, {true, true, true, true, false});
  ASSERT_EQ(w.size(), 5u);
  EXPECT_NEAR(w[0], 0.05 / 0.09, 1e-9);
  EXPECT_DOUBLE_EQ(w[1], 1.0);
  EXPECT_NEAR(w[2], 0.05 / 0.09, 1e-9);
  EXPECT_LT(w[3], 1e-9);
  EXPECT_GT(w[3], 0);
  EXPECT_DOUBLE_EQ(w[4], 1e-12);
  EXPECT_EQ(HypervolumeContributionWeights(std::vector<LossPoint>{{3, 4}}, {true}),
            std::vector<double>{1.0});
}

// 30 trials: gamma = 3. The front is {0, 1} (two points); the next front {2, 3, 4, 5}
// gives one more, the largest box among them: (1.5, 1.5) (trial 4).
std::vector<TrialRecord> TwoFronts() {
  std::vector<TrialRecord> history;
  history.push_back(Trial(0, TrialState::kCompleted, {{"f1", 0.0}, {"f2", 1.0}}));
  history.push_back(Trial(1, TrialState::kCompleted, {{"f1", 1.0}, {"f2", 0.0}}));
  history.push_back(Trial(2, TrialState::kCompleted, {{"f1", 0.5}, {"f2", 2.0}}));
  history.push_back(Trial(3, TrialState::kCompleted, {{"f1", 2.0}, {"f2", 0.5}}));
  history.push_back(Trial(4, TrialState::kCompleted, {{"f1", 1.5}, {"f2", 1.5}}));
  history.push_back(Trial(5, TrialState::kCompleted, {{"f1", 1.9}, {"f2", 1.0}}));
  for (int k = 6; k < 30; ++k)
    history.push_back(Trial(k, TrialState::kCompleted, {{"f1", 5.0 + k}, {"f2", 5.0 + k}}));
  return history;
}

TEST(TpeMoHistoryTest, TheGoodTrialsAreTheFrontThenAHypervolumeSubsetOfTheNext) {
  const TpeSpace space(OneParam());
  std::vector<TrialRecord> history = TwoFronts();
  std::shuffle(history.begin(), history.end(), std::mt19937(3));
  const TpeGroups groups = SplitMoHistory(history, 99, space, kTwo, RunningTrials::kIgnore);
  EXPECT_EQ(groups.scored, 30);
  EXPECT_EQ(Numbers(groups.below[0]), (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(groups.above[0].size(), 27u);
  // Weights in trial order; reference (1.65, 1.65): the corners (0, 1) and (1, 0) add
  // 0.65 each, (1.5, 1.5), which (0, 1) dominates, nothing.
  ASSERT_EQ(groups.below_weights.size(), 3u);
  EXPECT_DOUBLE_EQ(groups.below_weights[0], 1.0);
  EXPECT_DOUBLE_EQ(groups.below_weights[1], 1.0);
  EXPECT_LT(groups.below_weights[2], 1e-9);
  // Maximising f2 changes the front to 0, 2 and 6..29 (f2 = -(5 + k) as a loss): the
  // trials that were good under min (1, 4) are now dominated.
  const Objective max_f2({{"f1", Mode::kMin}, {"f2", Mode::kMax}});
  const TpeGroups flipped = SplitMoHistory(history, 99, space, max_f2, RunningTrials::kIgnore);
  ASSERT_EQ(flipped.below[0].size(), 3u);
  for (const int k : Numbers(flipped.below[0])) EXPECT_TRUE(k == 0 || k == 2 || k >= 6) << k;
}

TEST(TpeMoHistoryTest, PrunedRankAfterCompletedAndFailedOrLaterTrialsAreLeftOut) {
  const TpeSpace space(OneParam());
  std::vector<TrialRecord> history = TwoFronts();
  // Better than everything, but pruned (tier after the completed) or failed (ignored).
  history[0] = Trial(0, TrialState::kPruned, {{"f1", -9.0}, {"f2", -9.0}});
  history[1] = Trial(1, TrialState::kFailed, {{"f1", -9.0}, {"f2", -9.0}});
  TrialRecord running = Trial(40, TrialState::kRunning, Json::object());
  history.push_back(running);
  const TpeGroups groups = SplitMoHistory(history, 99, space, kTwo, RunningTrials::kWorst);
  EXPECT_EQ(groups.scored, 29);  // not the failed nor the running one
  // gamma(29) = 3: the completed front {2, 3, 4, 5} gives three by hypervolume.
  const std::vector<int> below = Numbers(groups.below[0]);
  EXPECT_EQ(below.size(), 3u);
  EXPECT_TRUE(std::ranges::count(below, 0) == 0);
  EXPECT_TRUE(std::ranges::count(Numbers(groups.above[0]), 40) == 1);  // the liar
  // `before` hides trial 5 and later ones.
  const TpeGroups early = SplitMoHistory(history, 5, space, kTwo, RunningTrials::kIgnore);
  EXPECT_EQ(early.scored, 4);
  // gamma(4) = 1: of the completed front {2, 3, 4}, the largest box, (1.5, 1.5).
  EXPECT_EQ(Numbers(early.below[0]), (std::vector<int>{4}));
}

TEST(TpeMoHistoryTest, FeasibleTrialsComeFirstThenInfeasibleBySmallerViolation) {
  const TpeSpace space(OneParam());
  const Objective constrained({{"f1", Mode::kMin}, {"f2", Mode::kMin}}, {{"c", std::nullopt, 0.0}});
  std::vector<TrialRecord> history;
  // 25 trials: gamma 3. Trial 0 is feasible but poor; the others are better but violate,
  // by 25 - k: so the good ones are 0, then 24 and 23 (smallest violations).
  history.push_back(Trial(0, TrialState::kCompleted, {{"f1", 9.0}, {"f2", 9.0}, {"c", 0.0}}));
  for (int k = 1; k < 25; ++k)
    history.push_back(Trial(k, TrialState::kCompleted, {{"f1", 0.0}, {"f2", 0.0}, {"c", 25.0 - k}}));
  const TpeGroups groups = SplitMoHistory(history, 99, space, constrained, RunningTrials::kIgnore);
  EXPECT_EQ(Numbers(groups.below[0]), (std::vector<int>{0, 23, 24}));
  EXPECT_EQ(groups.below_weights, (std::vector<double>{1.0, 1e-12, 1e-12}));
  // No feasible trial at all: the least violating are good and lead l(x), weight 1 each
  // (Optuna 3.1's 1e-12 would leave l(x) to its prior).
  history[0].last_metrics["c"] = 30.0;
  const TpeGroups none = SplitMoHistory(history, 99, space, constrained, RunningTrials::kIgnore);
  EXPECT_EQ(Numbers(none.below[0]), (std::vector<int>{22, 23, 24}));
  EXPECT_EQ(none.below_weights, (std::vector<double>{1.0, 1.0, 1.0}));
  history[0].last_metrics["c"] = 0.0;
  // One metric with a constraint: the feasible ones by loss, default weights (empty).
  const Objective one({{"f1", Mode::kMin}}, {{"c", std::nullopt, 0.0}});
  const TpeGroups single = SplitMoHistory(history, 99, space, one, RunningTrials::kIgnore);
  EXPECT_EQ(Numbers(single.below[0]), (std::vector<int>{0, 23, 24}));
  EXPECT_TRUE(single.below_weights.empty());
  // Enough feasible trials: those with the best losses, whatever the violations.
  for (int k = 1; k < 5; ++k) history[k].last_metrics["c"] = 0.0;
  history[4].last_metrics["f1"] = 1.0;
  const TpeGroups feasible = SplitMoHistory(history, 99, space, one, RunningTrials::kIgnore);
  EXPECT_EQ(Numbers(feasible.below[0]), (std::vector<int>{1, 2, 3}));
}

}  // namespace
}  // namespace gpusweep::search
