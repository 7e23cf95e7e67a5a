#include "schedule/asha.h"

#include <cmath>

#include <gtest/gtest.h>

#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

std::unique_ptr<Scheduler> Iterative(Mode mode, int configurations = 10) {
  return Make(RungConfig(SchedulerKind::kAsha, 1, 9, 3), mode, configurations,
              TrialStyle::kIterative);
}

Verdict VerdictOf(const std::optional<Decision>& decision) {
  EXPECT_TRUE(decision.has_value());
  return decision ? decision->verdict : Verdict::kPause;
}

TEST(AshaIterative, KeepsTheTopCeilNOverEtaAtEachRungMaxMode) {
  auto asha = Iterative(Mode::kMax);
  // n=1: ceil(1/3) = 1 continues.
  EXPECT_EQ(VerdictOf(asha->OnReport(0, 1, 0.5)), Verdict::kContinue);
  // n=2: only the best 1; 0.4 ranks 2nd.
  auto stop = asha->OnReport(1, 1, 0.4);
  EXPECT_EQ(VerdictOf(stop), Verdict::kStop);
  EXPECT_EQ(stop->reason, "rank 2 of 2 at rung 0 (epoch 1): only the top 1 continue");
  EXPECT_EQ(stop->rung, 0);
  EXPECT_EQ(VerdictOf(asha->OnReport(2, 1, 0.6)), Verdict::kContinue);  // rank 1 of 3
  // n=4: ceil(4/3) = 2; 0.55 ranks 2nd of 0.6, 0.55, 0.5, 0.4.
  auto keep = asha->OnReport(3, 1, 0.55);
  EXPECT_EQ(VerdictOf(keep), Verdict::kContinue);
  EXPECT_EQ(keep->reason, "rank 2 of 4 at rung 0 (epoch 1): in the top 2, continues");
}

TEST(AshaIterative, MinModeKeepsLowValues) {
  auto asha = Iterative(Mode::kMin);
  EXPECT_EQ(VerdictOf(asha->OnReport(0, 1, 0.5)), Verdict::kContinue);
  EXPECT_EQ(VerdictOf(asha->OnReport(1, 1, 0.4)), Verdict::kContinue);
  EXPECT_EQ(VerdictOf(asha->OnReport(2, 1, 0.6)), Verdict::kStop);
}

TEST(AshaIterative, TiesGoToTheLowerTrial) {
  auto asha = Iterative(Mode::kMax);
  EXPECT_EQ(VerdictOf(asha->OnReport(0, 1, 0.5)), Verdict::kContinue);
  EXPECT_EQ(VerdictOf(asha->OnReport(1, 1, 0.5)), Verdict::kStop);
}

TEST(AshaIterative, MissingAndNanValuesRankWorst) {
  for (Mode mode : {Mode::kMin, Mode::kMax}) {
    auto asha = Iterative(mode);
    EXPECT_EQ(VerdictOf(asha->OnReport(0, 1, -1e9)), Verdict::kContinue);
    EXPECT_EQ(VerdictOf(asha->OnReport(1, 1, std::nullopt)), Verdict::kStop);
    EXPECT_EQ(VerdictOf(asha->OnReport(2, 1, std::nan(""))), Verdict::kStop);
  }
  // Alone at a rung even a missing value is in the top ceil(1/3).
  auto alone = Iterative(Mode::kMax);
  EXPECT_EQ(VerdictOf(alone->OnReport(0, 1, std::nullopt)), Verdict::kContinue);
}

TEST(AshaIterative, DecidesOnlyWhenARungIsFirstReached) {
  auto asha = Iterative(Mode::kMax);
  EXPECT_FALSE(asha->OnReport(0, 0.5, 0.1).has_value());   // below rung 0
  EXPECT_TRUE(asha->OnReport(0, 1, 0.1).has_value());       // rung 0
  EXPECT_FALSE(asha->OnReport(0, 1, 0.2).has_value());      // rung 0 again
  EXPECT_FALSE(asha->OnReport(0, 2, 0.2).has_value());      // between rungs
  auto rung1 = asha->OnReport(0, 3, 0.3);
  ASSERT_TRUE(rung1.has_value());
  EXPECT_EQ(rung1->rung, 1);
  EXPECT_FALSE(asha->OnReport(0, 9, 0.3).has_value());      // the last rung compares nothing
}

TEST(AshaIterative, OneReportPassingTwoRungsRecordsBoth) {
  auto asha = Iterative(Mode::kMax);
  asha->OnReport(0, 1, 0.9);
  asha->OnReport(0, 3, 0.9);
  // Trial 1's first report is at epoch 4: rung 0 (rank 2 of 2) already stops it.
  auto decision = asha->OnReport(1, 4, 0.5);
  EXPECT_EQ(VerdictOf(decision), Verdict::kStop);
  EXPECT_EQ(decision->rung, 0);
  // Trial 2 passes both with the best value; the decision returned is rung 1's.
  auto both = asha->OnReport(2, 5, 0.95);
  EXPECT_EQ(VerdictOf(both), Verdict::kContinue);
  EXPECT_EQ(both->rung, 1);
  EXPECT_EQ(both->reason, "rank 1 of 2 at rung 1 (epoch 3): in the top 1, continues");
}

TEST(AshaIterative, StoppedTrialGetsNoMoreDecisionsAndEndsStopped) {
  auto asha = Iterative(Mode::kMax, 2);
  const Job first = Launch(*asha);
  const Job second = Launch(*asha);
  EXPECT_EQ(Describe(first), "start 0 b0 r0 @9");
  EXPECT_EQ(Describe(second), "start 1 b0 r0 @9");
  EXPECT_EQ(asha->NextJob().kind, Job::Kind::kDone);
  asha->OnReport(0, 1, 0.9);
  EXPECT_EQ(VerdictOf(asha->OnReport(1, 1, 0.1)), Verdict::kStop);
  EXPECT_FALSE(asha->OnReport(1, 3, 0.99).has_value());
  EXPECT_EQ(asha->OnJobFinished(second, 0.1).verdict, Verdict::kStop);
  const Decision done = asha->OnJobFinished(first, 0.95);
  EXPECT_EQ(done.verdict, Verdict::kComplete);
  EXPECT_EQ(done.rung, 2);
}

class AshaBudgeted : public ::testing::Test {
 protected:
  // Rungs 1, 2, 4 (eta 2), maximise.
  std::unique_ptr<Scheduler> asha_ = Make(RungConfig(SchedulerKind::kAsha, 1, 4, 2),
                                          Mode::kMax, 6, TrialStyle::kBudgeted);
  Decision Finish(int trial, int rung, std::optional<double> value) {
    Job job;
    job.trial = trial;
    job.rung = rung;
    return asha_->OnJobFinished(job, value);
  }
};

TEST_F(AshaBudgeted, PromotesTheTopFloorNOverEtaFromTheHighestRungFirst) {
  EXPECT_EQ(Describe(Launch(*asha_)), "start 0 b0 r0 @1");
  EXPECT_EQ(Describe(Launch(*asha_)), "start 1 b0 r0 @1");
  EXPECT_EQ(Finish(0, 0, 0.5).verdict, Verdict::kPause);
  // n=1 at rung 0: floor(1/2) = 0, nobody promotable yet.
  EXPECT_EQ(Describe(asha_->NextJob()), "start 2 b0 r0 @1");
  EXPECT_EQ(Finish(1, 0, 0.6).verdict, Verdict::kPause);
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 1 b0 r1 @2");
  EXPECT_EQ(Describe(Launch(*asha_)), "start 2 b0 r0 @1");
  EXPECT_EQ(Describe(Launch(*asha_)), "start 3 b0 r0 @1");
  Finish(2, 0, 0.7);
  Finish(3, 0, 0.8);
  // Rung 0 now 3, 2, 1, 0: top 2 = {3, 2}, best first.
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 3 b0 r1 @2");
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 2 b0 r1 @2");
  Finish(1, 1, 0.65);  // rung 1: n=1, floor(1/2) = 0 promotable
  EXPECT_EQ(Describe(Launch(*asha_)), "start 4 b0 r0 @1");
  Finish(4, 0, 0.9);
  Finish(3, 1, 0.85);
  // Rung 0's top 2 is {4, 3}: 4 promotable; rung 1's top 1 is 3: promotable. Rung 1 first.
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 3 b0 r2 @4");
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 4 b0 r1 @2");
  const Decision complete = Finish(3, 2, 0.95);
  EXPECT_EQ(complete.verdict, Verdict::kComplete);
  EXPECT_EQ(complete.resource, 4);
}

TEST_F(AshaBudgeted, FailedJobsStopAndAreNeverPromoted) {
  for (int i = 0; i < 4; ++i) Launch(*asha_);
  const Decision failed = Finish(0, 0, std::nullopt);
  EXPECT_EQ(failed.verdict, Verdict::kStop);
  EXPECT_EQ(Finish(1, 0, std::nan("")).verdict, Verdict::kStop);
  // Two failed at rung 0: floor(2/2) = 1 slot, held by a failed trial: start instead.
  EXPECT_EQ(Describe(asha_->NextJob()), "start 4 b0 r0 @1");
  Finish(2, 0, 0.1);
  Finish(3, 0, 0.2);
  // n=4: top 2 = {3, 2}; the failed ones rank below.
  EXPECT_EQ(Describe(asha_->NextJob()), "promote 3 b0 r1 @2");
}

TEST_F(AshaBudgeted, WaitsWhileJobsRunThenIsDone) {
  for (int i = 0; i < 6; ++i) Launch(*asha_);
  EXPECT_EQ(asha_->NextJob().kind, Job::Kind::kWait);
  for (int trial = 0; trial < 6; ++trial) Finish(trial, 0, trial == 5 ? 1.0 : 0.0);
  // Rung 0: 5, 0, 1, 2, 3, 4; top 3 = {5, 0, 1}.
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 5 b0 r1 @2");
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 0 b0 r1 @2");
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 1 b0 r1 @2");
  EXPECT_EQ(asha_->NextJob().kind, Job::Kind::kWait);
  Finish(5, 1, 1.0);
  Finish(0, 1, 0.0);
  EXPECT_EQ(Describe(Launch(*asha_)), "promote 5 b0 r2 @4");
  Finish(1, 1, 0.0);
  EXPECT_EQ(asha_->NextJob().kind, Job::Kind::kWait);  // 5 still runs
  Finish(5, 2, 1.0);
  EXPECT_EQ(asha_->NextJob().kind, Job::Kind::kDone);
}

// Two configurations, eta 2: rung 1 gets one trial, floor(1/2) = 0, and without the
// tail promotion nothing would ever reach max_resource.
TEST(AshaBudgetedTail, WhenNothingRunsTheBestOfTheHighestRungGoesOnUntilOneCompletes) {
  auto asha = Make(RungConfig(SchedulerKind::kAsha, 1, 4, 2), Mode::kMax, 2,
                   TrialStyle::kBudgeted);
  const Job a = Launch(*asha), b = Launch(*asha);
  EXPECT_EQ(asha->NextJob().kind, Job::Kind::kWait);
  asha->OnJobFinished(a, 0.3);
  asha->OnJobFinished(b, 0.4);
  const Job b1 = Launch(*asha);
  EXPECT_EQ(Describe(b1), "promote 1 b0 r1 @2");
  asha->OnJobFinished(b1, 0.5);
  const Job b2 = Launch(*asha);  // tail: floor(1/2) = 0 at rung 1, but nothing runs
  EXPECT_EQ(Describe(b2), "promote 1 b0 r2 @4");
  EXPECT_EQ(asha->OnJobFinished(b2, 0.6).verdict, Verdict::kComplete);
  EXPECT_EQ(asha->NextJob().kind, Job::Kind::kDone);  // one completed: no more tail
}

}  // namespace
}  // namespace gpusweep::schedule_detail
