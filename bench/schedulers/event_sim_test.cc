#include "event_sim.h"

#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include <gtest/gtest.h>

namespace gpusweep::bench {
namespace {

WorkloadSpec SmallSpec(int configurations, int max_steps) {
  WorkloadSpec spec;
  spec.configurations = configurations;
  spec.max_steps = max_steps;
  spec.seed = 7;
  spec.fail_fraction = 0;
  return spec;
}

double AllStepSeconds(const Workload& workload, int config, int last_step) {
  double total = 0;
  for (int step = 1; step <= last_step; ++step) total += workload.StepSeconds(config, step);
  return total;
}

// Hands out a fixed list of jobs, then kDone; for budgeted-style accounting.
class ScriptedScheduler final : public Scheduler {
 public:
  ScriptedScheduler(TrialStyle style, std::deque<Job> jobs)
      : style_(style), jobs_(std::move(jobs)) {}
  TrialStyle style() const override { return style_; }
  Job NextJob() const override {
    if (jobs_.empty()) return Job{};
    if (running_ > 0) return Job{Job::Kind::kWait};
    return jobs_.front();
  }
  void JobStarted(const Job&) override { jobs_.pop_front(); ++running_; }
  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    return std::nullopt;
  }
  Decision OnJobFinished(const Job& job, std::optional<double>) override {
    --running_;
    Decision decision;
    decision.trial = job.trial;
    decision.verdict = jobs_.empty() ? Verdict::kComplete : Verdict::kPause;
    return decision;
  }
  void OnJobInterrupted(const Job&) override {}

 private:
  TrialStyle style_;
  std::deque<Job> jobs_;
  int running_ = 0;
};

TEST(EventSimTest, RunToEndKeepsEveryWorkerBusyAndCountsEveryStep) {
  const Workload workload = MakeWorkload(SmallSpec(20, 9));
  auto none = MakeRunEveryTrialToEnd(workload.configurations(), 9);
  const SimResult result = Simulate(*none, workload, SimOptions{4, 0.01, {}});
  double expected_busy = 0;
  for (int config = 0; config < 20; ++config) expected_busy += AllStepSeconds(workload, config, 9);
  EXPECT_TRUE(result.problems.empty());
  EXPECT_EQ(result.started, 20);
  EXPECT_EQ(result.completed, 20);
  EXPECT_NEAR(result.busy, expected_busy, 1e-6 * expected_busy);
  EXPECT_LE(result.Utilisation(4), 1.0 + 1e-12);
  EXPECT_GE(result.makespan, expected_busy / 4);
  EXPECT_LT(result.time_to_target, result.makespan + 1e-9);  // the best one is found
}

TEST(EventSimTest, PromotionChargesOnlyTheExtraSteps) {
  const Workload workload = MakeWorkload(SmallSpec(1, 9));
  Job start{Job::Kind::kStart, 0, 0, 0, 3};
  Job promote{Job::Kind::kPromote, 0, 0, 1, 9};
  ScriptedScheduler scheduler(TrialStyle::kBudgeted, {start, promote});
  const SimResult result = Simulate(scheduler, workload, SimOptions{2, 0.01, {}});
  EXPECT_TRUE(result.problems.empty());
  EXPECT_EQ(result.promotions, 1);
  EXPECT_NEAR(result.busy, AllStepSeconds(workload, 0, 9), 1e-9);
}

TEST(EventSimTest, WaitWithNothingRunningIsReportedAsDeadlock) {
  const Workload workload = MakeWorkload(SmallSpec(2, 3));
  ScriptedScheduler never_starts(TrialStyle::kIterative, {Job{Job::Kind::kWait}});
  const SimResult result = Simulate(never_starts, workload, SimOptions{2, 0.01, {}});
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_NE(result.problems[0].find("deadlock"), std::string::npos);
}

TEST(EventSimTest, IterativeAshaNeverIdlesAWorkerWhileConfigurationsRemain) {
  const Workload workload = MakeWorkload(SmallSpec(200, 27));
  SchedulerConfig config;
  config.kind = SchedulerKind::kAsha;
  config.max_resource = 27;
  auto asha = MakeScheduler(config, Mode::kMax, 200, TrialStyle::kIterative);
  ASSERT_TRUE(asha.has_value());
  const SimResult result = Simulate(**asha, workload, SimOptions{8, 0.01, {}});
  EXPECT_TRUE(result.problems.empty()) << result.problems.front();
  EXPECT_EQ(result.started, 200);
  EXPECT_GT(result.stopped, 100);
  EXPECT_NEAR(result.UtilisationUntilLastLaunch(8), 1.0, 1e-9);
}

// none's schedule computed independently: configuration i starts when the earliest
// worker frees up (list scheduling), runs all its steps, and ends at start + duration.
struct Interval {
  double start, end;
};
std::vector<Interval> ListSchedule(const Workload& workload, int workers, int steps) {
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_at;
  for (int w = 0; w < workers; ++w) free_at.push(0.0);
  std::vector<Interval> jobs;
  for (int config = 0; config < workload.configurations(); ++config) {
    const double start = free_at.top();
    free_at.pop();
    const double end = start + AllStepSeconds(workload, config, steps);
    free_at.push(end);
    jobs.push_back({start, end});
  }
  return jobs;
}

TEST(EventSimTest, HorizonCountsOnlyTheBusyTimeInsideIt) {
  // 6 configurations on 4 workers: two start late, and workers fall idle before the
  // last job ends, so the cut and the idle tail are both inside the horizon.
  const Workload workload = MakeWorkload(SmallSpec(6, 9));
  const std::vector<Interval> jobs = ListSchedule(workload, 4, 9);
  double last_end = 0;
  for (const Interval& job : jobs) last_end = std::max(last_end, job.end);
  const double horizon = 0.9 * last_end;
  double expected_busy = 0;
  int expected_completed = 0;
  for (const Interval& job : jobs) {
    expected_busy += std::max(0.0, std::min(job.end, horizon) - job.start);
    expected_completed += job.end <= horizon;
  }
  auto none = MakeRunEveryTrialToEnd(workload.configurations(), 9);
  SimOptions options{4, 0.01, {}};
  options.horizon = horizon;
  const SimResult result = Simulate(*none, workload, options);
  EXPECT_TRUE(result.problems.empty());
  EXPECT_TRUE(result.cut_at_horizon);
  EXPECT_DOUBLE_EQ(result.makespan, horizon);
  EXPECT_NEAR(result.busy, expected_busy, 1e-9 * expected_busy);
  EXPECT_LT(result.UtilisationOver(4, horizon), 1.0);  // idle tail before the cut
  EXPECT_EQ(result.completed, expected_completed);
  EXPECT_LT(result.completed, 6);  // the cut abandoned a running job
  EXPECT_EQ(result.started, 6);
}

TEST(EventSimTest, HorizonWithWorkLeftKeepsEveryWorkerBusyToTheCut) {
  const Workload workload = MakeWorkload(SmallSpec(200, 9));
  auto none = MakeRunEveryTrialToEnd(workload.configurations(), 9);
  SimOptions options{4, 0.01, {}};
  options.horizon = 3600;
  const SimResult result = Simulate(*none, workload, options);
  EXPECT_TRUE(result.cut_at_horizon);
  EXPECT_NEAR(result.UtilisationOver(4, 3600), 1.0, 1e-12);
  EXPECT_EQ(result.started, result.completed + 4);  // 4 jobs were running at the cut
  EXPECT_TRUE(std::isinf(result.time_to_target) || result.time_to_target <= 3600);
}

TEST(EventSimTest, RunWithoutHorizonIsNotCut) {
  const Workload workload = MakeWorkload(SmallSpec(6, 9));
  auto none = MakeRunEveryTrialToEnd(workload.configurations(), 9);
  const SimResult result = Simulate(*none, workload, SimOptions{4, 0.01, {}});
  EXPECT_FALSE(result.cut_at_horizon);
  EXPECT_EQ(result.completed, 6);
  EXPECT_NEAR(result.UtilisationOver(4, 2 * result.makespan), result.Utilisation(4) / 2,
              1e-12);
}

}  // namespace
}  // namespace gpusweep::bench
