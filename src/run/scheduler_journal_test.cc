// Replaying journaled scheduler calls on resume, with and without re-attached jobs.
#include "run/scheduler_journal.h"

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

// Records the calls a replay makes, in order.
class RecordingScheduler final : public Scheduler {
 public:
  TrialStyle style() const override { return TrialStyle::kIterative; }
  Job NextJob() const override { return {}; }
  void JobStarted(const Job& job) override { calls.push_back("started " + std::to_string(job.trial)); }
  std::optional<Decision> OnReport(int trial, double resource, std::optional<double>) override {
    calls.push_back("report " + std::to_string(trial) + " at " + std::to_string(int(resource)));
    return std::nullopt;
  }
  Decision OnJobFinished(const Job& job, std::optional<double>) override {
    calls.push_back("finished " + std::to_string(job.trial));
    return {};
  }
  void OnJobInterrupted(const Job& job) override {
    calls.push_back("interrupted " + std::to_string(job.trial));
  }
  std::vector<std::string> calls;
};

Job StartOf(int trial) {
  Job job;
  job.kind = Job::Kind::kStart;
  job.trial = trial;
  job.budget = 9;
  return job;
}

Decision Stop(int trial) {
  Decision stop;
  stop.trial = trial;
  stop.rung = 0;
  stop.resource = 1;
  stop.verdict = Verdict::kStop;
  stop.reason = "rank 2 of 2 at rung 0 (epoch 1): only the top 1 continue";
  return stop;
}

// Trial 0 finished; trials 1 and 2 were running when gpusweep died, and trial 2 had
// been pruned (its stop decision is journaled) but its job had not ended yet.
std::vector<SchedulerEventRecord> KilledWhileTwoRan() {
  return {JobStartedEvent(StartOf(0), 1), JobStartedEvent(StartOf(1), 1),
          JobStartedEvent(StartOf(2), 1), ReportEvent(0, 1, 0.5, std::nullopt, 2),
          ReportEvent(1, 1, 0.7, std::nullopt, 2), ReportEvent(2, 1, 0.9, Stop(2), 2),
          JobFinishedEvent(StartOf(0), 0.5, Decision{}, 3)};
}

TEST(ReplaySchedulerEventsTest, JobsNobodyFollowsAnyMoreAreInterrupted) {
  RecordingScheduler scheduler;
  auto replay = ReplaySchedulerEvents(scheduler, KilledWhileTwoRan(), 10);
  ASSERT_TRUE(replay) << replay.error().message;
  EXPECT_TRUE(replay->in_flight.empty());
  ASSERT_EQ(replay->recovered.size(), 2u);
  EXPECT_EQ(replay->recovered[0].kind, "job_interrupted");
  EXPECT_EQ(replay->recovered[0].trial, 1);
  EXPECT_EQ(replay->recovered[1].trial, 2);
  EXPECT_EQ(scheduler.calls.back(), "interrupted 2");
}

TEST(ReplaySchedulerEventsTest, ReattachedJobsStayRunningWithTheirStopDecision) {
  RecordingScheduler scheduler;
  auto replay = ReplaySchedulerEvents(scheduler, KilledWhileTwoRan(), 10, {1, 2});
  ASSERT_TRUE(replay) << replay.error().message;
  EXPECT_TRUE(replay->recovered.empty());
  EXPECT_EQ(scheduler.calls,
            (std::vector<std::string>{"started 0", "started 1", "started 2", "report 0 at 1",
                                      "report 1 at 1", "report 2 at 1", "finished 0"}));
  ASSERT_EQ(replay->in_flight.size(), 2u);
  EXPECT_EQ(replay->in_flight.at(1).job.trial, 1);
  EXPECT_EQ(replay->in_flight.at(1).job.budget, 9);
  EXPECT_FALSE(replay->in_flight.at(1).stopped);
  ASSERT_TRUE(replay->in_flight.at(2).stopped);
  EXPECT_EQ(replay->in_flight.at(2).stopped->reason, Stop(2).reason);
}

TEST(ReplaySchedulerEventsTest, OnlyTheFollowedTrialsJobsStayRunning) {
  RecordingScheduler scheduler;
  auto replay = ReplaySchedulerEvents(scheduler, KilledWhileTwoRan(), 10, {2});
  ASSERT_TRUE(replay) << replay.error().message;
  ASSERT_EQ(replay->recovered.size(), 1u);
  EXPECT_EQ(replay->recovered[0].trial, 1);
  EXPECT_EQ(replay->in_flight.count(2), 1u);
  EXPECT_EQ(replay->in_flight.count(1), 0u);
}

// Population-based training's jobs carry params, a parent and (at their end) whether
// the trial left a checkpoint: all three survive the journal; other jobs gain no keys.
TEST(ReplaySchedulerEventsTest, AJobsParamsParentAndCheckpointAreJournaledOnlyWhenSet) {
  class Jobs final : public Scheduler {
   public:
    TrialStyle style() const override { return TrialStyle::kBudgeted; }
    Job NextJob() const override { return {}; }
    void JobStarted(const Job& job) override { started.push_back(job); }
    std::optional<Decision> OnReport(int, double, std::optional<double>) override { return std::nullopt; }
    Decision OnJobFinished(const Job& job, std::optional<double>) override {
      finished.push_back(job);
      return {};
    }
    void OnJobInterrupted(const Job&) override {}
    std::vector<Job> started, finished;
  } jobs;
  Job pbt = StartOf(5);
  pbt.params = Params{{"lr", 0.012}, {"act", "tanh"}};
  pbt.parent = 2;
  Job ended = pbt;
  ended.checkpoint = true;
  const SchedulerEventRecord start = JobStartedEvent(pbt, 1);
  EXPECT_FALSE(start.detail["job"].contains("checkpoint"));
  EXPECT_FALSE(JobStartedEvent(StartOf(1), 1).detail["job"].contains("params"));
  EXPECT_FALSE(JobStartedEvent(StartOf(1), 1).detail["job"].contains("parent"));
  auto replay = ReplaySchedulerEvents(jobs, {start, JobFinishedEvent(ended, 0.5, Decision{}, 2)}, 3);
  ASSERT_TRUE(replay) << replay.error().message;
  ASSERT_EQ(jobs.started.size(), 1u);
  EXPECT_EQ(jobs.started[0].params, pbt.params);
  EXPECT_EQ(jobs.started[0].parent, 2);
  EXPECT_FALSE(jobs.started[0].checkpoint);
  ASSERT_EQ(jobs.finished.size(), 1u);
  EXPECT_EQ(jobs.finished[0].checkpoint, true);
  SchedulerEventRecord bad = start;
  bad.detail["job"]["params"] = 3;
  EXPECT_FALSE(ReplaySchedulerEvents(jobs, {bad}, 3));
}

}  // namespace
}  // namespace gpusweep
