#include "schedule/hyperband.h"

#include <algorithm>

#include <fmt/format.h>
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
  std::vector<int> per_bracket(4, 0);
  for (int b : plan.cycle) ++per_bracket[b];
  EXPECT_EQ(per_bracket, (std::vector<int>{27, 12, 6, 4}));
  // Interleaved: credits after step 1 are 27-49, 12, 6, 4 -> bracket 1 is next; any
  // 13 consecutive trials hold every bracket at least once... the first 13 do.
  EXPECT_EQ(plan.cycle[0], 0);
  EXPECT_EQ(plan.cycle[1], 1);
  std::vector<int> first13(4, 0);
  for (int i = 0; i < 13; ++i) ++first13[plan.cycle[i]];
  for (int b = 0; b < 4; ++b) EXPECT_GE(first13[b], 1) << "bracket position " << b;
}

TEST(PlanHyperband, BracketsOptionKeepsTheMostAggressive) {
  SchedulerConfig config = Hyperband(1, 27, 3);
  config.brackets = 2;
  const HyperbandPlan plan = PlanHyperband(config);
  EXPECT_EQ(plan.brackets, (std::vector<int>{3, 2}));
  EXPECT_EQ(plan.cycle.size(), 39u);
}

TEST(PlanHyperband, MaxNotAPowerOfEtaAnchorsRungsAtMax) {
  SchedulerConfig config = Hyperband(1, 10, 3);
  config.min_resource = 0.5;  // not whole: the paper's fractional rungs stay
  config.max_resource = 10;
  HyperbandPlan plan = PlanHyperband(config);
  ASSERT_EQ(plan.rungs.size(), 3u);
  ASSERT_EQ(plan.rungs[0].size(), 3u);
  EXPECT_DOUBLE_EQ(plan.rungs[0][0], 10.0 / 9);
  EXPECT_DOUBLE_EQ(plan.rungs[0][1], 10.0 / 3);
  EXPECT_EQ(plan.rungs[0][2], 10);
  EXPECT_EQ(plan.rungs[2], (std::vector<double>{10}));
  // Whole min and max (epochs): whole rungs, 10/9 -> 1 and 10/3 -> 3.
  plan = PlanHyperband(Hyperband(1, 10, 3));
  EXPECT_EQ(plan.rungs[0], (std::vector<double>{1, 3, 10}));
  EXPECT_EQ(plan.rungs[1], (std::vector<double>{3, 10}));
}

// The trial numbers the plan deals to bracket s, in order.
std::vector<int> TrialsOfBracket(const HyperbandPlan& plan, int s, int count) {
  std::vector<int> trials;
  const int position = static_cast<int>(
      std::find(plan.brackets.begin(), plan.brackets.end(), s) - plan.brackets.begin());
  for (int k = 0; static_cast<int>(trials.size()) < count; ++k)
    if (plan.cycle[k % plan.cycle.size()] == position) trials.push_back(k);
  return trials;
}

TEST(HyperbandScheduler, TrialsStartInTheirBracketsFirstRung) {
  const HyperbandPlan plan = PlanHyperband(Hyperband(1, 27, 3));
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kBudgeted);
  const std::vector<std::string> first_rung{"@1", "@3", "@9", "@27"};
  for (int k = 0; k < 50; ++k) {
    const int position = plan.cycle[k % plan.cycle.size()];
    const int s = plan.brackets[position];
    EXPECT_EQ(Describe(Launch(*hyperband)),
              fmt::format("start {} b{} r0 {}", k, s, first_rung[3 - s]));
  }
}

TEST(HyperbandScheduler, BracketZeroCompletesAtOnceAndBracketsRankSeparately) {
  const HyperbandPlan plan = PlanHyperband(Hyperband(1, 27, 3));
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kBudgeted);
  for (int i = 0; i < 49; ++i) Launch(*hyperband);
  Job in_bracket0;
  in_bracket0.trial = TrialsOfBracket(plan, 0, 1)[0];
  in_bracket0.bracket = 0;
  EXPECT_EQ(hyperband->OnJobFinished(in_bracket0, 0.1).verdict, Verdict::kComplete);
  // Three bracket-2 trials at rung 0 (resource 3): floor(3/3) = 1 promotion, to 9.
  const std::vector<int> bracket2 = TrialsOfBracket(plan, 2, 3);
  for (int trial : bracket2) {
    Job job;
    job.trial = trial;
    job.bracket = 2;
    EXPECT_EQ(hyperband->OnJobFinished(job, trial * 0.01).verdict, Verdict::kPause);
  }
  EXPECT_EQ(Describe(hyperband->NextJob()), fmt::format("promote {} b2 r1 @9", bracket2[2]));
}

TEST(HyperbandScheduler, IterativeRungsFollowTheBracket) {
  const HyperbandPlan plan = PlanHyperband(Hyperband(1, 27, 3));
  auto hyperband = Make(Hyperband(1, 27, 3), Mode::kMax, 60, TrialStyle::kIterative);
  const int in_bracket2 = TrialsOfBracket(plan, 2, 1)[0];
  const int in_bracket3 = TrialsOfBracket(plan, 3, 1)[0];
  // A bracket-2 trial's first rung is at 3, so epoch 1 decides nothing.
  EXPECT_FALSE(hyperband->OnReport(in_bracket2, 1, 0.5).has_value());
  auto decision = hyperband->OnReport(in_bracket2, 3, 0.5);
  ASSERT_TRUE(decision.has_value());
  EXPECT_EQ(decision->bracket, 2);
  EXPECT_EQ(decision->rung, 0);
  // A bracket-3 trial is not compared with it.
  auto other = hyperband->OnReport(in_bracket3, 1, 0.1);
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->verdict, Verdict::kContinue);
  // Where a trial may be stopped (what it waits for a verdict at): its bracket's rungs
  // below max_resource.
  EXPECT_EQ(hyperband->StopPoints(in_bracket2), (std::vector<double>{3, 9}));
  EXPECT_EQ(hyperband->StopPoints(in_bracket3), (std::vector<double>{1, 3, 9}));
}

}  // namespace
}  // namespace gpusweep::schedule_detail
