#include "schedule/median_rule.h"

#include <gtest/gtest.h>

#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

SchedulerConfig MedianConfig(int min_trials, double grace_steps) {
  SchedulerConfig config;
  config.kind = SchedulerKind::kMedian;
  config.min_trials = min_trials;
  config.grace_steps = grace_steps;
  return config;
}

// Trials 0 and 1 report epochs 1..3 (values exact in binary). Running averages at
// epoch 1: 0.5 and 0.25 (median 0.375); at epoch 2: 0.625 and 0.375 (median 0.5).
std::unique_ptr<Scheduler> WithTwoCurves(Mode mode, int min_trials = 2, double grace = 0) {
  auto median = Make(MedianConfig(min_trials, grace), mode, 5, TrialStyle::kIterative);
  for (int epoch = 1; epoch <= 3; ++epoch) {
    median->OnReport(0, epoch, 0.25 + 0.25 * epoch);
    median->OnReport(1, epoch, 0.25 * epoch);
  }
  return median;
}

TEST(Median, StopsABestStrictlyWorseThanTheMedian) {
  auto median = WithTwoCurves(Mode::kMax);
  auto decision = median->OnReport(2, 1, 0.2);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->verdict, Verdict::kStop);
  EXPECT_EQ(decision->rung, -1);
  EXPECT_EQ(decision->reason,
            "best 0.2 is worse than the median 0.375 of 2 other trials' running averages at "
            "epoch 1");
}

TEST(Median, EqualToTheMedianContinues) {
  auto median = WithTwoCurves(Mode::kMax);
  EXPECT_FALSE(median->OnReport(2, 2, 0.5).has_value());
}

TEST(Median, UsesTheBestValueSoFar) {
  auto median = WithTwoCurves(Mode::kMax);
  EXPECT_FALSE(median->OnReport(2, 1, 0.9).has_value());
  EXPECT_FALSE(median->OnReport(2, 2, 0.1).has_value());  // best 0.9 > 0.5
}

TEST(Median, MinModeStopsHighValues) {
  auto median = WithTwoCurves(Mode::kMin);
  EXPECT_FALSE(median->OnReport(2, 1, 0.2).has_value());
  auto decision = median->OnReport(3, 1, 0.8);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->verdict, Verdict::kStop);
}

TEST(Median, NeedsMinTrialsOthersThatReachedTheStep) {
  EXPECT_FALSE(WithTwoCurves(Mode::kMax, 3)->OnReport(2, 1, 0.0).has_value());
  // Nobody else reached epoch 4.
  EXPECT_FALSE(WithTwoCurves(Mode::kMax)->OnReport(2, 4, 0.0).has_value());
}

TEST(Median, GraceStepsProtectEarlySteps) {
  auto median = WithTwoCurves(Mode::kMax, 2, 2);
  EXPECT_FALSE(median->OnReport(2, 1, 0.0).has_value());
  EXPECT_TRUE(median->OnReport(2, 2, 0.0).has_value());
}

TEST(Median, NoNumericValueRanksWorst) {
  auto median = WithTwoCurves(Mode::kMax);
  auto decision = median->OnReport(2, 1, std::nullopt);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->verdict, Verdict::kStop);
}

TEST(Median, JobsAndFinishingDecisions) {
  auto median = Make(MedianConfig(1, 0), Mode::kMax, 2, TrialStyle::kIterative);
  const Job first = Launch(*median);
  const Job second = Launch(*median);
  EXPECT_EQ(Describe(first), "start 0 b0 r0 @0");
  EXPECT_EQ(Describe(second), "start 1 b0 r0 @0");
  EXPECT_EQ(median->NextJob().kind, Job::Kind::kDone);
  median->OnReport(0, 1, 0.9);
  ASSERT_TRUE(median->OnReport(1, 1, 0.1).has_value());
  EXPECT_FALSE(median->OnReport(1, 2, 0.0).has_value());  // already stopped
  EXPECT_EQ(median->OnJobFinished(second, 0.0).verdict, Verdict::kStop);
  EXPECT_EQ(median->OnJobFinished(first, 0.9).verdict, Verdict::kComplete);
}

TEST(MedianCurve, RestartReplacesLaterPoints) {
  Curve curve;
  curve.Add(1, 1.0, Mode::kMin);
  curve.Add(2, 3.0, Mode::kMin);
  curve.Add(2, 5.0, Mode::kMin);  // restarted at 2
  EXPECT_EQ(curve.RunningAverage(2), 3.0);
  EXPECT_EQ(curve.RunningAverage(0.5), std::nullopt);
  EXPECT_EQ(curve.Best(), 1.0);
  curve.Add(1, 7.0, Mode::kMin);  // restarted at 1: only 7 remains
  EXPECT_EQ(curve.Best(), 7.0);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 2, 3}), 2.5);
}

}  // namespace
}  // namespace gpusweep::schedule_detail
