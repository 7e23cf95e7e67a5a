#include "web/charted_trials.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpusweep::web {
namespace {

std::vector<TrialRecord> Trials(int n, TrialState state = TrialState::kCompleted) {
  std::vector<TrialRecord> trials(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    trials[i].number = i;
    trials[i].state = state;
  }
  return trials;
}

// Trial numbers from the worst to the best: the last ones are the best.
std::vector<int> BestLast(int n) {
  std::vector<int> best(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) best[i] = n - 1 - i;
  return best;
}

TEST(ChartedTrialsTest, UpToTheCapEveryTrialIsHeldAndTheGenerationNeverChanges) {
  ChartedTrials charted;
  EXPECT_EQ(charted.Update(Trials(3), BestLast(3)).size(), 3u);
  EXPECT_TRUE(charted.Holds(0) && charted.Holds(2));
  EXPECT_FALSE(charted.Holds(3));
  EXPECT_FALSE(charted.Holds(-1));
  const auto joined = charted.Update(Trials(ChartedTrials::kMaxHeld), {});
  EXPECT_EQ(joined.size(), ChartedTrials::kMaxHeld - 3);  // only the new ones join
  EXPECT_EQ(charted.held(), ChartedTrials::kMaxHeld);
  EXPECT_EQ(charted.stride(), 1u);
  EXPECT_EQ(charted.generation(), 1);
  EXPECT_EQ(charted.Describe(), (Json{{"held", ChartedTrials::kMaxHeld},
                                      {"recorded", ChartedTrials::kMaxHeld},
                                      {"stride", 1},
                                      {"best", 0}}));
}

TEST(ChartedTrialsTest, BeyondTheCapTheBestTheUnsettledAndAnEvenSampleAreHeld) {
  const int n = 100000;
  std::vector<TrialRecord> trials = Trials(n);
  trials[77777].state = TrialState::kRunning;
  trials[77778].state = TrialState::kPaused;
  ChartedTrials charted;
  const std::vector<int> best = BestLast(n);
  charted.Update(trials, best);
  EXPECT_EQ(charted.stride(), 13u);  // ceil(100,000 / 8,000)
  for (int k = 0; k < 2000; ++k) EXPECT_TRUE(charted.Holds(best[k])) << best[k];
  EXPECT_TRUE(charted.Holds(77777));
  EXPECT_TRUE(charted.Holds(77778));
  // The rest: those whose hash the stride divides, never those whose number it does
  // (a sweep that cycles a parameter with the number would alias with that).
  int sampled = 0, numbered = 0;
  for (int k = 0; k < n - 2000; ++k) {  // not among the best
    const bool hashed = ChartedTrials::SampleHash(k) % 13 == 0;
    EXPECT_EQ(charted.Holds(k), hashed || k == 77777 || k == 77778) << k;
    sampled += hashed;
    numbered += hashed && k % 13 == 0;
  }
  EXPECT_NEAR(sampled, (n - 2000) / 13, 300);  // 1 in 13, give or take
  EXPECT_NEAR(numbered, sampled / 13, 100);    // as often multiples of 13 as any number
  EXPECT_LE(charted.held(), ChartedTrials::kMaxHeld);
  EXPECT_GT(charted.held(), ChartedTrials::kMaxHeld * 9 / 10);
  EXPECT_EQ(charted.Describe()["best"], 2000);
  EXPECT_EQ(charted.Describe()["recorded"], n);
}

// While a run goes on, a held trial stays held (the page keeps its row) and new trials
// join; a changed stride chooses anew and says so by the generation.
TEST(ChartedTrialsTest, TheSetGrowsUntilTheStrideChangesThenItIsChosenAnew) {
  std::vector<TrialRecord> trials = Trials(20000);
  ChartedTrials charted;
  charted.Update(trials, BestLast(20000));
  ASSERT_EQ(charted.stride(), 3u);  // ceil(20,000 / 8,000)
  const std::size_t before = charted.held();
  EXPECT_TRUE(charted.Holds(19999));  // among the best
  // 10 more trials, one still running; the best are now the new ones.
  for (int i = 20000; i < 20010; ++i) {
    trials.emplace_back().number = i;
    trials.back().state = i == 20004 ? TrialState::kRunning : TrialState::kCompleted;
  }
  std::vector<int> best = BestLast(20010);
  const std::vector<int> joined = charted.Update(trials, best);
  EXPECT_EQ(charted.generation(), 1);
  EXPECT_TRUE(charted.Holds(19999));  // pushed down the ranking, still held
  for (int i = 20000; i < 20010; ++i) EXPECT_TRUE(charted.Holds(i)) << i;  // best or running
  EXPECT_EQ(joined.size(), 10u);
  EXPECT_EQ(charted.held(), before + 10);

  charted.Update(Trials(24001), BestLast(24001));  // stride 4 now
  EXPECT_EQ(charted.stride(), 4u);
  EXPECT_EQ(charted.generation(), 2);
  int left = 0;  // held at stride 3 and not at stride 4 (and not among the best)
  for (int k = 0; k < 20000; ++k)
    left += ChartedTrials::SampleHash(k) % 3 == 0 && ChartedTrials::SampleHash(k) % 4 != 0;
  ASSERT_GT(left, 0);
  for (int k = 0; k < 20000; ++k) {
    if (ChartedTrials::SampleHash(k) % 3 == 0 && ChartedTrials::SampleHash(k) % 4 != 0) {
      EXPECT_FALSE(charted.Holds(k)) << k;
    }
  }
}

}  // namespace
}  // namespace gpusweep::web
