// The fold policy: ASHA (and any scheduler) over cross-validated configurations.
#include "policy/fold_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "policy/scheduled_policy.h"
#include "schedule/test_util.h"
#include "policy/test_util.h"

namespace gpusweep {
namespace {

using schedule_detail::Describe;
using schedule_detail::Make;
using schedule_detail::RungConfig;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using policy_test::Random;

FoldPolicy Asha(TrialStyle style, int folds, int allowed_failures, double max = 9,
                int configurations = 10) {
  return FoldPolicy(std::make_unique<ScheduledPolicy>(
                        Random(configurations),
                        Make(RungConfig(SchedulerKind::kAsha, 1, max, 3), Mode::kMax,
                             configurations, style)),
                    CvConfig{folds, allowed_failures, 1});
}

// Asks for the next job and, if it is one to run, launches it.
Job Launch(SearchPolicy& policy) {
  Job job = policy.NextJob({});
  if (job.kind == Job::Kind::kStart || job.kind == Job::Kind::kPromote) policy.JobStarted(job);
  return job;
}

std::string Settled(const SearchPolicy& scheduler) {
  std::string text;
  for (const Decision& d : scheduler.Eliminated())
    text += fmt::format("{} {}; ", d.trial, ToString(d.verdict));
  return text;
}

TEST(FoldPolicyTest, EachConfigurationJobRunsAsOneJobPerFold) {
  FoldPolicy folds = Asha(TrialStyle::kIterative, 3, 0);
  EXPECT_EQ(Describe(Launch(folds)), "start 0 b0 r0 @9");
  EXPECT_EQ(Describe(Launch(folds)), "start 1 b0 r0 @9");
  EXPECT_EQ(Describe(Launch(folds)), "start 2 b0 r0 @9");
  EXPECT_EQ(Describe(Launch(folds)), "start 3 b0 r0 @9");  // configuration 1, fold 0
  EXPECT_EQ(folds.StopPoints(4), folds.StopPoints(0));
}

TEST(FoldPolicyTest, AshaComparesConfigurationsByTheirFoldsMean) {
  FoldPolicy folds = Asha(TrialStyle::kIterative, 3, 0);
  std::vector<Job> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(Launch(folds));
  // Configuration 1 (trials 3-5): 0.7 on every fold.
  EXPECT_FALSE(folds.OnReport(3, 1, 0.7));
  EXPECT_FALSE(folds.OnReport(4, 1, 0.7));
  auto first = folds.OnReport(5, 1, 0.7);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->verdict, Verdict::kContinue);
  EXPECT_EQ(first->trial, 5);
  // Configuration 0 has one lucky fold (0.9), but its mean (0.6) ranks second of two.
  EXPECT_FALSE(folds.OnReport(0, 1, 0.9));
  EXPECT_FALSE(folds.OnReport(1, 1, 0.5));
  auto stop = folds.OnReport(2, 1, 0.4);
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->verdict, Verdict::kStop);
  EXPECT_EQ(stop->trial, 2);
  EXPECT_NEAR(*stop->value, 0.6, 1e-12);
  EXPECT_THAT(stop->reason, HasSubstr("rank 2 of 2 at rung 0"));
  EXPECT_THAT(stop->reason, HasSubstr("(mean over 3 folds)"));
  // Its running siblings stop too.
  EXPECT_EQ(Settled(folds), "0 stop; 1 stop; ");
  auto late = folds.OnReport(0, 3, 0.95);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->verdict, Verdict::kStop);
  // The configuration's job ends once all its folds have.
  EXPECT_EQ(folds.OnJobFinished(jobs[2], 0.4).verdict, Verdict::kComplete);  // provisional
  EXPECT_EQ(folds.OnJobFinished(jobs[0], 0.9).verdict, Verdict::kComplete);
  EXPECT_EQ(folds.OnJobFinished(jobs[1], 0.5).verdict, Verdict::kStop);
}

TEST(FoldPolicyTest, AllowedFailedFoldsLeaveTheOthersToDecide) {
  FoldPolicy folds = Asha(TrialStyle::kIterative, 3, 1);
  std::vector<Job> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(Launch(folds));
  folds.OnJobFinished(jobs[0], std::nullopt);  // fold 0 crashed before any report
  EXPECT_FALSE(folds.OnReport(1, 1, 0.8));
  auto judged = folds.OnReport(2, 1, 0.6);
  ASSERT_TRUE(judged);
  EXPECT_NEAR(*judged->value, 0.7, 1e-12);  // the two live folds
  EXPECT_THAT(judged->reason, HasSubstr("(mean over 2 folds)"));
}

TEST(FoldPolicyTest, TooManyFailedFoldsFailTheConfiguration) {
  FoldPolicy folds = Asha(TrialStyle::kBudgeted, 2, 0);
  const Job fold0 = Launch(folds);
  const Job fold1 = Launch(folds);
  EXPECT_EQ(Describe(fold1), "start 1 b0 r0 @1");
  const Decision waiting = folds.OnJobFinished(fold0, std::nullopt);
  EXPECT_EQ(waiting.verdict, Verdict::kPause);
  EXPECT_EQ(waiting.reason, "waiting for the other folds of configuration 0");
  const Decision decided = folds.OnJobFinished(fold1, 0.9);
  EXPECT_FALSE(decided.value);  // the configuration failed: it ranks worst
}

TEST(FoldPolicyTest, BudgetedConfigurationsArePromotedFoldByFoldAndSettleTogether) {
  // One configuration, rungs at 1 and 3: once it is evaluated at 1, ASHA promotes it.
  FoldPolicy folds = Asha(TrialStyle::kBudgeted, 2, 0, 3, 1);
  const Job fold0 = Launch(folds);
  const Job fold1 = Launch(folds);
  EXPECT_EQ(folds.OnJobFinished(fold0, 0.5).verdict, Verdict::kPause);
  const Decision rung0 = folds.OnJobFinished(fold1, 0.7);
  EXPECT_NEAR(*rung0.value, 0.6, 1e-12);
  EXPECT_EQ(rung0.verdict, Verdict::kPause);
  const Job promote0 = Launch(folds);
  const Job promote1 = Launch(folds);
  EXPECT_EQ(Describe(promote0), "promote 0 b0 r1 @3");
  EXPECT_EQ(Describe(promote1), "promote 1 b0 r1 @3");
  EXPECT_EQ(folds.OnJobFinished(promote1, 0.8).verdict, Verdict::kPause);  // waits for fold 0
  EXPECT_EQ(folds.OnJobFinished(promote0, 0.9).verdict, Verdict::kComplete);
  EXPECT_EQ(Settled(folds), "1 complete; ");  // the fold that waited completes too
}

TEST(FoldPolicyTest, AFailedConfigurationsOtherFoldsAreDroppedOrStopped) {
  FoldPolicy folds = Asha(TrialStyle::kIterative, 4, 0);
  const Job fold0 = Launch(folds);
  const Job fold1 = Launch(folds);  // folds 2 and 3 are not started yet
  EXPECT_EQ(folds.OnJobFinished(fold0, std::nullopt).verdict, Verdict::kComplete);
  // Configuration 0 has failed: folds 2 and 3 never start, fold 1 stops.
  EXPECT_EQ(Settled(folds), "2 stop; 3 stop; 1 stop; ");
  EXPECT_THAT(folds.Eliminated()[0].reason,
              HasSubstr("configuration 0 failed (fold 0 failed; cv.allow_failed_folds is 0)"));
  EXPECT_EQ(Describe(folds.NextJob({})), "start 4 b0 r0 @9");  // configuration 1
  auto late = folds.OnReport(1, 1, 0.9);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->verdict, Verdict::kStop);
  // Its job ends with its last running fold, as a failure (ranked worst).
  const Decision decided = folds.OnJobFinished(fold1, 0.9);
  EXPECT_FALSE(decided.value);
  EXPECT_THAT(decided.reason, HasSubstr("(mean over 4 folds)"));
}

TEST(FoldPolicyTest, ABudgetedFailedConfigurationEndsWithoutItsUnstartedFolds) {
  FoldPolicy folds = Asha(TrialStyle::kBudgeted, 3, 0, 3);
  const Job fold0 = Launch(folds);
  const Job fold1 = Launch(folds);  // fold 2 not started
  EXPECT_EQ(folds.OnJobFinished(fold0, std::nullopt).verdict, Verdict::kPause);
  EXPECT_EQ(Settled(folds), "2 stop; 1 stop; ");
  EXPECT_EQ(Describe(folds.NextJob({})), "start 3 b0 r0 @1");  // configuration 1
  // Fold 1, stopped, ends: the configuration's job ends as a failure, nothing waits.
  const Decision decided = folds.OnJobFinished(fold1, 0.5);
  EXPECT_FALSE(decided.value);
  EXPECT_THAT(decided.reason, HasSubstr("(mean over 3 folds)"));
  EXPECT_EQ(Describe(folds.NextJob({})), "start 3 b0 r0 @1");
}

TEST(FoldPolicyTest, AnInterruptedFoldRunsAgainFirstAndItsSiblingsKeepTheirResults) {
  FoldPolicy folds = Asha(TrialStyle::kBudgeted, 3, 0, 3);
  const Job fold0 = Launch(folds);
  const Job fold1 = Launch(folds);
  const Job fold2 = Launch(folds);
  folds.OnJobFinished(fold0, 0.5);
  folds.OnJobInterrupted(fold1);
  EXPECT_EQ(Describe(folds.NextJob({})), "start 1 b0 r0 @1");
  const Job again = Launch(folds);
  folds.OnJobFinished(fold2, 0.7);
  const Decision decided = folds.OnJobFinished(again, 0.6);
  EXPECT_NEAR(*decided.value, 0.6, 1e-12);  // (0.5 + 0.6 + 0.7) / 3
  EXPECT_THAT(decided.reason, HasSubstr("(mean over 3 folds)"));
}

TEST(FoldPolicyTest, SameCallsSameDecisions) {
  auto run = [] {
    FoldPolicy folds = Asha(TrialStyle::kIterative, 2, 0);
    std::string log;
    for (int i = 0; i < 6; ++i) log += Describe(Launch(folds)) + "; ";
    const double values[] = {0.1, 0.3, 0.9, 0.2, 0.4, 0.4};
    for (int trial = 0; trial < 6; ++trial)
      if (auto d = folds.OnReport(trial, 1, values[trial])) log += std::string(ToString(d->verdict)) + "; ";
    return log + Settled(folds);
  };
  EXPECT_EQ(run(), run());
  EXPECT_THAT(run(), HasSubstr("continue; continue; stop; "));  // 0.2, 0.55 then 0.4 ranks 2 of 3
}

}  // namespace
}  // namespace gpusweep
