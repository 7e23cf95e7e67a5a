#include "schedule/hyperband.h"

#include <gtest/gtest.h>

#include "schedule/asha.h"
#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

SchedulerConfig Hyperband(double min, double max, double eta) {
  return RungConfig(SchedulerKind::kHyperband, min, max, eta);
}

TEST(HyperbandSMax, FloorOfLogEta) {
  EXPECT_EQ(HyperbandSMax(1, 27, 3), 3);
  EXPECT_EQ(HyperbandSMax(1, 26, 3), 2);
  EXPECT_EQ(HyperbandSMax(1, 81, 3), 4);
  EXPECT_EQ(HyperbandSMax(2, 2, 3), 0);
  EXPECT_EQ(HyperbandSMax(1, 10, 3), 2);
}

TEST(PlanHyperband, PaperProportionsAndRungs) {
  const HyperbandPlan plan = PlanHyperband(Hyperband(1, 27, 3));
  EXPECT_EQ(plan.s_max, 3);
  EXPECT_EQ(plan.brackets, (std::vector<int>{3, 2, 1, 0}));
  // n_s = ceil(4 / (s + 1) * 3^s): 27, 12, 6, 4.
  EXPECT_EQ(plan.slots, (std::vector<int>{27, 12, 6, 4}));
  EXPECT_EQ(plan.rungs[0], (std::vector<double>{1, 3, 9, 27}));
  EXPECT_EQ(plan.rungs[1], (std::vector<double>{3, 9, 27}));
  EXPECT_EQ(plan.rungs[2], (std::vector<double>{9, 27}));
  EXPECT_EQ(plan.rungs[3], (std::vector<double>{27}));
  ASSERT_EQ(plan.cycle.size(), 49u);
  EXPECT_EQ(plan.cycle[26], 0);
  EXPECT_EQ(plan.cycle[27], 1);
  EXPECT_EQ(plan.cycle[38], 1);
  EXPECT_EQ(plan.cycle[39], 2);
  EXPECT_EQ(plan.cycle[45], 3);
}

TEST(PlanHyperband, BracketsOptionKeepsTheMostAggressive) {
  SchedulerConfig config = Hyperband(1, 27, 3);
  config.brackets = 2;
  const HyperbandPlan plan = PlanHyperband(config);
  EXPECT_EQ(plan.brackets, (std::vector<int>{3, 2}));
  EXPECT_EQ(plan.cycle.size(), 39u);
}

TEST(PlanHyperband, MaxNotAPowerOfEtaAnchorsRungsAtMax) {
  const HyperbandPlan plan = PlanHyperband(Hyperband(1, 10, 3));
  ASSERT_EQ(plan.rungs.size(), 3u);
  ASSERT_EQ(plan.rungs[0].size(), 3u);
  EXPECT_DOUBLE_EQ(plan.rungs[0][0], 10.0 / 9);
  EXPECT_DOUBLE_EQ(plan.rungs[0][1], 10.0 / 3);
  EXPECT_EQ(plan.rungs[0][2], 10);
  EXPECT_EQ(plan.rungs[2], (std::vector<double>{10}));
}

TEST(HyperbandScheduler, TrialsStartInTheirBracketsFirstRung) {
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kBudgeted);
  std::vector<std::string> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(Describe(Launch(*hyperband)));
  EXPECT_EQ(jobs[0], "start 0 b3 r0 @1");
  EXPECT_EQ(jobs[26], "start 26 b3 r0 @1");
  EXPECT_EQ(jobs[27], "start 27 b2 r0 @3");
  EXPECT_EQ(jobs[39], "start 39 b1 r0 @9");
  EXPECT_EQ(jobs[45], "start 45 b0 r0 @27");
  EXPECT_EQ(jobs[49], "start 49 b3 r0 @1");
}

TEST(HyperbandScheduler, BracketZeroCompletesAtOnceAndBracketsRankSeparately) {
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kBudgeted);
  for (int i = 0; i < 46; ++i) Launch(*hyperband);
  Job job45;
  job45.trial = 45;
  job45.bracket = 0;
  EXPECT_EQ(hyperband->OnJobFinished(job45, 0.1).verdict, Verdict::kComplete);
  // Three bracket-2 trials at rung 0 (resource 3): floor(3/3) = 1 promotion, to 9.
  for (int trial : {27, 28, 29}) {
    Job job;
    job.trial = trial;
    job.bracket = 2;
    EXPECT_EQ(hyperband->OnJobFinished(job, trial * 0.01).verdict, Verdict::kPause);
  }
  EXPECT_EQ(Describe(hyperband->NextJob()), "promote 29 b2 r1 @9");
}

TEST(HyperbandScheduler, IterativeRungsFollowTheBracket) {
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kIterative);
  // Trial 27 is in bracket 2: its first rung is at 3, so epoch 1 decides nothing.
  EXPECT_FALSE(hyperband->OnReport(27, 1, 0.5).has_value());
  auto decision = hyperband->OnReport(27, 3, 0.5);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->bracket, 2);
  EXPECT_EQ(decision->rung, 0);
  // Trial 0 (bracket 3) is not compared with trial 27.
  auto other = hyperband->OnReport(0, 1, 0.1);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->verdict, Verdict::kContinue);
  EXPECT_EQ(Describe(hyperband->NextJob()), "start 0 b3 r0 @27");
}

}  // namespace
}  // namespace gpusweep::schedule_detail
