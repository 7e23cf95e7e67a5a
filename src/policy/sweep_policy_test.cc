// The plain sweep's policy: number order, backfill, resume and --retry-failed from the
// trial records, interrupted trials first.
#include "policy/sweep_policy.h"

#include <set>

#include <gtest/gtest.h>

#include "policy/test_util.h"

namespace gpusweep {
namespace {

using policy_test::Random;

TrialRecord Recorded(int number, TrialState state) {
  TrialRecord record;
  record.number = number;
  record.state = state;
  return record;
}

int StartNext(SearchPolicy& policy, const std::set<int>& cannot_fit = {}) {
  const Job job = policy.NextJob([&](int number) { return !cannot_fit.contains(number); });
  if (job.kind != Job::Kind::kStart) return -1;
  policy.JobStarted(job);
  return job.trial;
}

TEST(SweepPolicyTest, StartsTrialsInNumberOrderThenIsDone) {
  SweepPolicy sweep(Random(3));
  EXPECT_FALSE(sweep.journaled());
  EXPECT_EQ(sweep.Upcoming(2), (std::vector<int>{0, 1}));
  EXPECT_EQ(StartNext(sweep), 0);
  EXPECT_EQ(StartNext(sweep), 1);
  EXPECT_EQ(StartNext(sweep), 2);
  EXPECT_EQ(sweep.NextJob({}).kind, Job::Kind::kDone);
}

TEST(SweepPolicyTest, ATrialThatCannotFitIsPassedByLaterOnes) {
  SweepPolicy sweep(Random(3));
  EXPECT_EQ(StartNext(sweep, {0}), 1);  // backfill
  EXPECT_EQ(StartNext(sweep, {0, 2}), -1);
  EXPECT_EQ(sweep.NextJob([](int n) { return n != 0 && n != 2; }).kind, Job::Kind::kWait);
  EXPECT_EQ(StartNext(sweep), 0);
}

TEST(SweepPolicyTest, AnInterruptedTrialRunsAgainFirst) {
  SweepPolicy sweep(Random(3));
  Job job;
  job.kind = Job::Kind::kStart;
  job.trial = StartNext(sweep);
  sweep.OnJobInterrupted(job);
  EXPECT_EQ(StartNext(sweep), 0);
  EXPECT_EQ(sweep.OnJobFinished(job, 0.5).verdict, Verdict::kComplete);
}

TEST(SweepPolicyTest, RestoreQueuesWhatIsMissingOrInterruptedAndFailedOnlyOnRetry) {
  const std::vector<TrialRecord> recorded{Recorded(0, TrialState::kCompleted),
                                          Recorded(1, TrialState::kFailed),
                                          Recorded(2, TrialState::kInterrupted),
                                          Recorded(4, TrialState::kPruned)};
  SweepPolicy kept(Random(6));
  EXPECT_TRUE(kept.Restore(recorded, FailedTrials::kKeep).empty());
  EXPECT_EQ(kept.Upcoming(10), (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(kept.ToRun(recorded), 3);
  SweepPolicy retried(Random(6));
  retried.Restore(recorded, FailedTrials::kRetry);
  EXPECT_EQ(retried.Upcoming(10), (std::vector<int>{1, 2, 3, 5}));
  EXPECT_TRUE(retried.AcceptRetryFailed());
}

}  // namespace
}  // namespace gpusweep
