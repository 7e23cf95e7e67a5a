// CV arithmetic: fold numbering, means, standard deviations, failed folds, states.
#include "gpusweep/cv.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "gpusweep/objective.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TrialRecord Fold(int number, TrialState state, std::optional<double> objective = std::nullopt) {
  TrialRecord record;
  record.number = number;
  record.state = state;
  record.objective = objective;
  record.params = Json{{"lr", 0.1 * (number / 3 + 1)}};
  record.start_time = 100 + number;
  record.end_time = state == TrialState::kRunning ? 0 : 200 + number;
  if (state == TrialState::kFailed) record.failure_reason = "exit code 1";
  return record;
}

TEST(CvTest, FoldNumbersRoundTrip) {
  EXPECT_EQ(FoldTrialNumber(3, 2, 5), 17);
  EXPECT_EQ(FoldOf(17, 5).configuration, 3);
  EXPECT_EQ(FoldOf(17, 5).fold, 2);
  EXPECT_EQ(FoldOf(0, 5).fold, 0);
  EXPECT_EQ(FoldOf(4, 5).configuration, 0);
}

TEST(CvTest, MeanAndSampleStandardDeviationOverFolds) {
  const std::vector<TrialRecord> trials{Fold(0, TrialState::kCompleted, 0.80),
                                        Fold(1, TrialState::kCompleted, 0.90),
                                        Fold(2, TrialState::kCompleted, 0.85)};
  auto groups = GroupFolds(trials, CvConfig{3, 0, 1});
  ASSERT_EQ(groups.size(), 1u);
  const CvConfiguration& c = groups[0];
  EXPECT_EQ(c.state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(*c.mean, 0.85);
  EXPECT_NEAR(*c.stddev, 0.05, 1e-12);  // sqrt(((-.05)^2 + .05^2 + 0) / 2)
  EXPECT_THAT(c.values, ElementsAre(0.80, 0.90, 0.85));
  EXPECT_EQ(c.completed, 3);
  EXPECT_EQ(c.params, trials[0].params);
  TrialRecord record = ConfigurationRecord(c);
  EXPECT_EQ(record.number, 0);
  EXPECT_EQ(record.state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(*record.objective, 0.85);
  EXPECT_EQ(record.start_time, 100);
  EXPECT_EQ(record.end_time, 202);
}

TEST(CvTest, OneValueHasZeroDeviation) {
  const std::vector<TrialRecord> trials{Fold(0, TrialState::kCompleted, 0.5),
                                        Fold(1, TrialState::kFailed)};
  auto groups = GroupFolds(trials, CvConfig{2, 1, 1});
  EXPECT_EQ(groups[0].state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(*groups[0].mean, 0.5);
  EXPECT_DOUBLE_EQ(*groups[0].stddev, 0.0);
}

TEST(CvTest, AFailedFoldFailsItsConfigurationUnlessAllowed) {
  const std::vector<TrialRecord> trials{Fold(0, TrialState::kCompleted, 0.8),
                                        Fold(1, TrialState::kFailed),
                                        Fold(2, TrialState::kCompleted, 0.6)};
  auto strict = GroupFolds(trials, CvConfig{3, 0, 1});
  EXPECT_EQ(strict[0].state, TrialState::kFailed);
  EXPECT_EQ(strict[0].failure_reason, "fold 1 failed (exit code 1); cv.allow_failed_folds is 0");
  EXPECT_DOUBLE_EQ(*strict[0].mean, 0.7);  // kept for reference, never ranked
  EXPECT_TRUE(RankConfigurations(strict, MetricSpec{"m", Mode::kMax}).empty());

  auto lenient = GroupFolds(trials, CvConfig{3, 1, 1});
  EXPECT_EQ(lenient[0].state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(*lenient[0].mean, 0.7);  // over the two completed folds
  EXPECT_EQ(lenient[0].failed, 1);
  EXPECT_EQ(lenient[0].completed, 2);
}

TEST(CvTest, AFailedConfigurationFailsEvenWhileOtherFoldsRun) {
  const std::vector<TrialRecord> trials{Fold(0, TrialState::kFailed), Fold(1, TrialState::kRunning)};
  auto groups = GroupFolds(trials, CvConfig{3, 0, 1});
  EXPECT_EQ(groups[0].state, TrialState::kFailed);
}

TEST(CvTest, StatesOfUnfinishedConfigurations) {
  const CvConfig cv{2, 0, 1};
  auto queued = GroupFolds({Fold(0, TrialState::kCompleted, 1.0)}, cv);
  EXPECT_EQ(queued[0].state, TrialState::kRunning);
  EXPECT_TRUE(queued[0].queued);
  EXPECT_EQ(ConfigurationRecord(queued[0]).end_time, 0);
  auto running = GroupFolds({Fold(0, TrialState::kCompleted, 1.0), Fold(1, TrialState::kRunning)}, cv);
  EXPECT_EQ(running[0].state, TrialState::kRunning);
  EXPECT_FALSE(running[0].queued);
  auto interrupted =
      GroupFolds({Fold(0, TrialState::kCompleted, 1.0), Fold(1, TrialState::kInterrupted)}, cv);
  EXPECT_EQ(interrupted[0].state, TrialState::kInterrupted);
  auto pruned = GroupFolds({Fold(0, TrialState::kPruned, 1.0), Fold(1, TrialState::kPruned, 3.0)}, cv);
  EXPECT_EQ(pruned[0].state, TrialState::kPruned);
  EXPECT_DOUBLE_EQ(*pruned[0].mean, 2.0);  // last values, as the scheduler ranked them
  auto paused = GroupFolds({Fold(0, TrialState::kPaused, 1.0), Fold(1, TrialState::kPaused, 2.0)}, cv);
  EXPECT_EQ(paused[0].state, TrialState::kPaused);
}

TEST(CvTest, ConfigurationsAreGroupedAndRankedByMean) {
  // Configuration 0 has one lucky fold (0.99); configuration 1 is better on average.
  const std::vector<TrialRecord> trials{
      Fold(5, TrialState::kCompleted, 0.80), Fold(0, TrialState::kCompleted, 0.99),
      Fold(1, TrialState::kCompleted, 0.60), Fold(2, TrialState::kCompleted, 0.61),
      Fold(3, TrialState::kCompleted, 0.82), Fold(4, TrialState::kCompleted, 0.81),
      Fold(-1, TrialState::kCompleted, 5.0)};  // warm-start history: left out
  auto groups = GroupFolds(trials, CvConfig{3, 0, 1});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].configuration, 1);
  EXPECT_EQ(groups[1].folds[2]->number, 5);
  auto best_max = RankConfigurations(groups, MetricSpec{"acc", Mode::kMax});
  ASSERT_EQ(best_max.size(), 2u);
  EXPECT_EQ(best_max[0]->configuration, 1);
  auto best_min = RankConfigurations(groups, MetricSpec{"loss", Mode::kMin});
  EXPECT_EQ(best_min[0]->configuration, 0);
}

// Several objectives: each reported key's mean over the folds that count, the failed
// fold left out, a key one counted fold lacks (or reports NaN) missing.
TEST(CvTest, MetricsAreMeansOverTheCountedFolds) {
  std::vector<TrialRecord> trials{Fold(0, TrialState::kCompleted, 0.6), Fold(1, TrialState::kFailed),
                                  Fold(2, TrialState::kCompleted, 0.9), Fold(3, TrialState::kPruned, 0.3)};
  trials[0].last_metrics = Json{{"acc", 0.6}, {"size", 4}, {"note", "a"}, {"lat", 1.0}, {"gap", 1.0}};
  trials[1].last_metrics = Json{{"acc", 0.1}, {"size", 100}};  // failed: does not count
  trials[2].last_metrics = Json{{"acc", 0.9}, {"size", 2}, {"note", "b"}, {"gap", NAN}};
  trials[3].last_metrics = Json{{"acc", 0.3}, {"size", 6}, {"note", "c"}, {"lat", 3.0}, {"gap", 2.0}};
  const auto groups = GroupFolds(trials, CvConfig{4, 1, 1});
  ASSERT_EQ(groups.size(), 1u);
  const Json& m = groups[0].metrics;
  EXPECT_NEAR(m.at("acc").get<double>(), 0.6, 1e-12);
  EXPECT_NEAR(m.at("size").get<double>(), 4.0, 1e-12);
  EXPECT_FALSE(m.contains("note"));  // not a number
  EXPECT_FALSE(m.contains("lat"));   // fold 2 did not report it
  EXPECT_FALSE(m.contains("gap"));   // fold 2 reported NaN
  EXPECT_EQ(ConfigurationRecord(groups[0]).last_metrics, m);
}

TEST(CvTest, ConfigurationRecordsCarryTheMeansAnObjectiveReads) {
  std::vector<TrialRecord> trials;
  for (int n = 0; n < 4; ++n) {
    trials.push_back(Fold(n, TrialState::kCompleted, 0.5 + 0.1 * n));
    trials.back().last_metrics = Json{{"acc", 0.5 + 0.1 * n}, {"size", 10.0 * n}};
  }
  const std::vector<TrialRecord> records = ConfigurationRecords(trials, CvConfig{2, 0, 1});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].number, 1);
  const Objective objective({MetricSpec{"acc", Mode::kMax}, MetricSpec{"size", Mode::kMin}},
                            {ConstraintSpec{"size", std::nullopt, 20.0}});
  const std::vector<double> values = objective.Values(records[1].last_metrics);
  EXPECT_NEAR(values[0], 0.75, 1e-12);
  EXPECT_NEAR(values[1], 25.0, 1e-12);
  // The violation of the means: 25 - 20, though fold 2 alone (size 20) is feasible.
  EXPECT_NEAR(objective.Violation(records[1].last_metrics), 5.0, 1e-12);
}

}  // namespace
}  // namespace gpusweep
