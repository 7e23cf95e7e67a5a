#include "search/tpe_history.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace gpusweep::search {
namespace {

SearchSpace OneParam() {
  ParamSpec x;
  x.name = "x";
  x.kind = ParamKind::kUniform;
  x.low = 0;
  x.high = 100;
  return SearchSpace{{x}};
}

// Trial `number` at x = number (model value number / 100).
TrialRecord Trial(int number, TrialState state, std::optional<double> objective = {}) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.objective = objective;
  t.params = Json{{"x", number}};
  return t;
}

std::vector<int> Numbers(const std::vector<double>& column) {
  std::vector<int> out;
  for (double v : column) out.push_back(static_cast<int>(std::lround(v * 100)));
  return out;
}

TEST(TpeHistoryTest, GammaIsATenthCappedAt25) {
  EXPECT_EQ(TpeGamma(0), 0);
  EXPECT_EQ(TpeGamma(1), 1);
  EXPECT_EQ(TpeGamma(10), 1);
  EXPECT_EQ(TpeGamma(11), 2);
  EXPECT_EQ(TpeGamma(1000), 25);
}

TEST(TpeHistoryTest, BestCompletedAreBelowInTrialOrderWhateverTheInputOrder) {
  const TpeSpace space(OneParam());
  std::vector<TrialRecord> history;
  for (int k = 0; k < 12; ++k)  // objective (k - 7)^2: best are 7, then 6 and 8
    history.push_back(Trial(k, TrialState::kCompleted, (k - 7.0) * (k - 7.0)));
  history.push_back(Trial(12, TrialState::kFailed, -100.0));
  history.push_back(Trial(13, TrialState::kInterrupted, -100.0));
  std::reverse(history.begin(), history.end());
  const TpeGroups groups = SplitHistory(history, 99, space, Mode::kMin, RunningTrials::kWorst);
  EXPECT_EQ(groups.scored, 12);
  EXPECT_EQ(Numbers(groups.below[0]), (std::vector<int>{6, 7}));  // gamma(12) = 2, tie: 6 first
  EXPECT_EQ(Numbers(groups.above[0]), (std::vector<int>{0, 1, 2, 3, 4, 5, 8, 9, 10, 11}));
  const TpeGroups max = SplitHistory(history, 99, space, Mode::kMax, RunningTrials::kWorst);
  EXPECT_EQ(Numbers(max.below[0]), (std::vector<int>{0, 1}));
}

TEST(TpeHistoryTest, PrunedRankAfterCompletedAndRunningLastWithConstantLiar) {
  const TpeSpace space(OneParam());
  std::vector<TrialRecord> history;
  for (int k = 0; k < 11; ++k) history.push_back(Trial(k, TrialState::kCompleted, 10.0 + k));
  history.push_back(Trial(11, TrialState::kPruned, -5.0));  // better value, but pruned
  history.push_back(Trial(12, TrialState::kRunning));
  history.push_back(Trial(13, TrialState::kPaused, 1.0));
  const TpeGroups liar = SplitHistory(history, 99, space, Mode::kMin, RunningTrials::kWorst);
  EXPECT_EQ(liar.scored, 13);  // gamma(13) = 2
  EXPECT_EQ(Numbers(liar.below[0]), (std::vector<int>{0, 1}));
  EXPECT_EQ(liar.above[0].size(), 12u);
  EXPECT_EQ(Numbers(liar.above[0])[10], 12) << "running trial kept, in trial order";
  const TpeGroups honest = SplitHistory(history, 99, space, Mode::kMin, RunningTrials::kIgnore);
  EXPECT_EQ(honest.above[0].size(), 11u);

  // With only pruned trials, the one stopped at the larger budget ranks first.
  TrialRecord early = Trial(0, TrialState::kPruned, 1.0), late = Trial(1, TrialState::kPruned, 9.0);
  early.budget = 1;
  late.budget = 27;
  const TpeGroups pruned =
      SplitHistory({early, late}, 99, space, Mode::kMin, RunningTrials::kWorst);
  EXPECT_EQ(Numbers(pruned.below[0]), (std::vector<int>{1}));
}

TEST(TpeHistoryTest, IgnoresLaterTrialsAndParamsOutsideTheSpace) {
  const TpeSpace space(OneParam());
  std::vector<TrialRecord> history;
  for (int k = 0; k < 6; ++k) history.push_back(Trial(k, TrialState::kCompleted, 1.0));
  history[2].params = Json{{"x", "not a number"}};
  history[3].params = Json{{"y", 3}};
  const TpeGroups groups = SplitHistory(history, 5, space, Mode::kMin, RunningTrials::kWorst);
  EXPECT_EQ(groups.scored, 3);  // trials 0, 1, 4
  EXPECT_EQ(groups.below[0].size() + groups.above[0].size(), 3u);
}

TEST(TpeHistoryTest, FindsParamsByNameInAnyKeyOrder) {
  SearchSpace space = OneParam();
  ParamSpec y = space.params[0];
  y.name = "y";
  space.params.push_back(y);
  const TpeSpace two(space);
  std::vector<TrialRecord> history;
  for (int k = 0; k < 3; ++k) history.push_back(Trial(k, TrialState::kCompleted, k));
  history[0].params = Json{{"x", 10}, {"y", 20}};             // declaration order
  history[1].params = Json{{"y", 40}, {"x", 30}};             // swapped
  history[2].params = Json{{"extra", 1}, {"x", 50}, {"y", 60}};  // shifted by another key
  const TpeGroups groups = SplitHistory(history, 99, two, Mode::kMin, RunningTrials::kWorst);
  EXPECT_EQ(Numbers(groups.below[0]), (std::vector<int>{10}));
  EXPECT_EQ(Numbers(groups.below[1]), (std::vector<int>{20}));
  EXPECT_EQ(Numbers(groups.above[0]), (std::vector<int>{30, 50}));
  EXPECT_EQ(Numbers(groups.above[1]), (std::vector<int>{40, 60}));
}

}  // namespace
}  // namespace gpusweep::search
