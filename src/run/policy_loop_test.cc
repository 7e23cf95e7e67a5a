// The trial loop drives any search policy: a policy whose jobs carry their own params
// and a parent trial (what population-based training needs) runs through the same loop,
// with no change to it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/experiment_setup.h"
#include "run/runner_test_fixture.h"
#include "run/trial_loop.h"

namespace gpusweep {
namespace {

using ::testing::EndsWith;

// Trial 0 runs with its suggestion; once it has finished, trial 1 continues from trial
// 0's directory with params of its own (an exploit step); then nothing more.
class ExploitOncePolicy final : public SearchPolicy {
 public:
  int total_trials() const override { return 2; }
  TrialStyle style() const override { return TrialStyle::kIterative; }
  bool journaled() const override { return false; }
  Job NextJob(const CanStart& can_start) const override {
    if (!started_0_) return Start(0, std::nullopt, std::nullopt, can_start);
    if (!finished_0_) return Job{Job::Kind::kWait};
    if (!started_1_) return Start(1, Params{{"lr", 0.5}}, 0, can_start);
    return Job{Job::Kind::kDone};
  }
  void JobStarted(const Job& job) override { (job.trial == 0 ? started_0_ : started_1_) = true; }
  Suggestion Suggest(int number, const std::vector<TrialRecord>&) const override {
    return Suggestion{number, 0, Params{{"lr", 0.1}}};
  }
  std::optional<Decision> OnReport(int, double, std::optional<double>) override { return std::nullopt; }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    if (job.trial == 0) finished_0_ = true;
    Decision decision;
    decision.trial = job.trial;
    decision.value = value;
    decision.verdict = Verdict::kComplete;
    return decision;
  }
  void OnJobInterrupted(const Job& job) override { (job.trial == 0 ? started_0_ : started_1_) = false; }

 private:
  static Job Start(int trial, std::optional<Params> params, std::optional<int> parent,
                   const CanStart& can_start) {
    if (!Startable(can_start, trial)) return Job{Job::Kind::kWait};
    Job job;
    job.kind = Job::Kind::kStart;
    job.trial = trial;
    job.params = std::move(params);
    job.parent = parent;
    return job;
  }
  bool started_0_ = false;
  bool finished_0_ = false;
  bool started_1_ = false;
};

class PolicyLoopTest : public RunnerTest {};

TEST_F(PolicyLoopTest, AJobsOwnParamsAndParentReachTheTrial) {
  const ExperimentConfig config = Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: none, cpu_slots: 2}
shell: true
command: |
  printf '{"score": %s, "parent": "%s"}\n' {{lr}} "$GPUSWEEP_PARENT_DIR" >> "$GPUSWEEP_METRICS"
sampler: {type: random, trials: 2}
search_space:
  lr: {type: uniform, low: 0.01, high: 1}
)");
  RunPlan plan;
  plan.policy = std::make_unique<ExploitOncePolicy>();
  plan.gpus_needed = {0, 0};
  plan.cpu_slots = 2;
  plan.concurrency = 2;
  auto opened = OpenExperimentForRun(config, experiment_dir(), 2, 0);
  ASSERT_TRUE(opened) << opened.error().message;
  FakeGpuProbe probe(0);
  RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
  real.services.gpu_probe = &probe;
  RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
  TrialLoop loop(config, options, real.services, observer_, plan, *opened->journal, {});
  ASSERT_TRUE(loop.Run());

  const std::vector<TrialRecord>& trials = loop.trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[0].state, TrialState::kCompleted) << trials[0].failure_reason;
  EXPECT_EQ(trials[0].params, (Params{{"lr", 0.1}}));
  EXPECT_EQ(trials[0].last_metrics["parent"], "");
  EXPECT_EQ(trials[1].state, TrialState::kCompleted) << trials[1].failure_reason;
  EXPECT_EQ(trials[1].params, (Params{{"lr", 0.5}}));  // the job's, not the suggestion
  EXPECT_EQ(trials[1].objective, 0.5);
  EXPECT_THAT(trials[1].last_metrics["parent"].get<std::string>(), EndsWith("/trials/0000"));
  EXPECT_NE(ReadFile(experiment_dir() / "trials" / "0001" / "params.json").find("0.5"), std::string::npos);
}

}  // namespace
}  // namespace gpusweep
