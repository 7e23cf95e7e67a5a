// Multi-objective ASHA's evaluations survive the journal: a resumed run replays the
// losses and violations and makes the same promotions (run/evaluation.h).
#include <limits>

#include <gtest/gtest.h>

#include "run/evaluation.h"
#include "run/scheduler_journal.h"

namespace gpusweep {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Evaluation Two(double a, double b, double violation = 0) { return Evaluation{a, {a, b}, violation}; }

std::unique_ptr<Scheduler> MoAsha() {
  SchedulerConfig config;
  config.kind = SchedulerKind::kAsha;
  config.min_resource = 1;
  config.max_resource = 9;
  config.reduction_factor = 3;
  const Objective objective({MetricSpec{"a", Mode::kMin}, MetricSpec{"b", Mode::kMin}},
                            {ConstraintSpec{"latency", std::nullopt, 1.0}});
  auto made = MakeScheduler(config, objective, 9, TrialStyle::kBudgeted);
  EXPECT_TRUE(made) << (made ? "" : made.error().message);
  return made ? std::move(*made) : nullptr;
}

// As the journal stores it: the detail goes through JSON text.
SchedulerEventRecord Stored(SchedulerEventRecord event) {
  event.detail = Json::parse(event.detail.dump());
  return event;
}

TEST(MoAshaReplayTest, AResumedRunMakesTheSamePromotions) {
  // The front is trials 1, 3 and 5; trial 0 did not report the constraint's metric
  // (violation +inf) and trial 4 missed the second objective (loss +inf): both are
  // journaled as null and must read back as +inf. By the first objective alone trial 8
  // would be promoted instead of 3 or 5.
  const std::vector<Evaluation> rung0{Two(0, 6, kInf), Two(1, 5), Two(4, 4), Two(5, 1),
                                      Two(6, kInf),    Two(2, 2), Two(3, 3), Two(7, 2), Two(2, 7)};
  auto original = MoAsha();
  ASSERT_TRUE(original);
  std::vector<SchedulerEventRecord> journal;
  std::vector<Job> jobs;
  for (int i = 0; i < 9; ++i) {
    const Job job = original->NextJob();
    original->JobStarted(job);
    journal.push_back(Stored(JobStartedEvent(job, 1)));
    jobs.push_back(job);
  }
  for (const Job& job : jobs) {
    const Evaluation& evaluation = rung0[static_cast<size_t>(job.trial)];
    const Decision decision = original->OnJobEvaluated(job, evaluation);
    journal.push_back(Stored(JobFinishedEvent(job, evaluation, decision, 2)));
  }
  const Job first = original->NextJob();
  original->JobStarted(first);
  journal.push_back(Stored(JobStartedEvent(first, 3)));
  EXPECT_EQ(first.trial, 1);
  const Evaluation read = ReadEvaluation(journal[9].detail);  // trial 0's finish
  EXPECT_EQ(read.losses, (std::vector<double>{0, 6}));
  EXPECT_EQ(read.violation, kInf);
  EXPECT_EQ(ReadEvaluation(journal[13].detail).losses[1], kInf);  // trial 4's

  auto resumed = MoAsha();
  ASSERT_TRUE(resumed);
  auto replay = ReplaySchedulerEvents(*resumed, journal, 4, /*followed=*/{1});
  ASSERT_TRUE(replay) << replay.error().message;
  ASSERT_EQ(replay->in_flight.size(), 1u);
  // The same next decisions, in the same order: promote 3, then 5, then wait.
  for (int expected : {3, 5}) {
    const Job a = original->NextJob();
    const Job b = resumed->NextJob();
    ASSERT_EQ(a.kind, Job::Kind::kPromote);
    ASSERT_EQ(b.kind, Job::Kind::kPromote);
    EXPECT_EQ(a.trial, expected);
    EXPECT_EQ(b.trial, expected);
    original->JobStarted(a);
    resumed->JobStarted(b);
  }
  EXPECT_EQ(original->NextJob().kind, Job::Kind::kWait);
  EXPECT_EQ(resumed->NextJob().kind, Job::Kind::kWait);
  const Decision a = original->OnJobEvaluated(first, Two(1, 4));
  const Decision b = resumed->OnJobEvaluated(first, Two(1, 4));
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.verdict, b.verdict);
}

TEST(MoAshaReplayTest, SingleObjectiveEventsAreUnchanged) {
  Job job;
  job.kind = Job::Kind::kStart;
  job.trial = 2;
  const Decision decision{2, 0, 0, 1, 0.5, Verdict::kPause, "paused"};
  const Json plain = JobFinishedEvent(job, 0.5, decision, 1).detail;
  EXPECT_EQ(JobFinishedEvent(job, Evaluation{0.5, {}, 0}, decision, 1).detail, plain);
  EXPECT_FALSE(plain.contains("losses"));
  // An old journal's event reads as the value alone.
  const Evaluation read = ReadEvaluation(plain);
  EXPECT_EQ(read.value, 0.5);
  EXPECT_TRUE(read.losses.empty());
  EXPECT_EQ(read.violation, 0);
  EXPECT_EQ(ReportEvent(2, 1, std::nullopt, std::nullopt, 1).detail,
            ReportEvent(2, 1, Evaluation{}, std::nullopt, 1).detail);
}

TEST(MoAshaReplayTest, EvaluationOfReadsEveryObjectiveOnlyWhenThereAreSeveral) {
  ExperimentConfig config;
  config.metric = MetricSpec{"acc", Mode::kMax};
  const Json metrics{{"acc", 0.9}, {"size", 3.0}, {"latency", 2.5}};
  EXPECT_TRUE(EvaluationOf(config, 0.9, metrics).losses.empty());
  config.metrics = {MetricSpec{"acc", Mode::kMax}, MetricSpec{"size", Mode::kMin}};
  config.constraints = {ConstraintSpec{"latency", std::nullopt, 2.0}};
  const Evaluation both = EvaluationOf(config, 0.9, metrics);
  EXPECT_EQ(both.value, 0.9);
  EXPECT_EQ(both.losses, (std::vector<double>{-0.9, 3.0}));
  EXPECT_DOUBLE_EQ(both.violation, 0.5);
}

}  // namespace
}  // namespace gpusweep
