// The run loop with a cluster-like process runner: job ids journaled instead of pids,
// and jobs that end by the cluster's doing (preempted, time limit) judged as the SLURM
// backend reports them. Real processes underneath; only the reports are the cluster's.
#include <csignal>
#include <utility>

#include <gtest/gtest.h>

#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

// Forwards to the real runner; names each process "job-<pid>" and makes the first
// process that ends look `first_end` (e.g. preempted), as a SLURM job would end.
class ClusterLikeRunner final : public ProcessRunner {
 public:
  ClusterLikeRunner(ProcessRunner& inner, JobEnd first_end) : inner_(inner), first_end_(first_end) {}
  Expected<ProcessId> Spawn(const SpawnRequest& request) override {
    gpus_asked_.push_back(request.gpus);
    return inner_.Spawn(request);
  }
  WaitOutcome Wait(double timeout) override {
    WaitOutcome outcome = inner_.Wait(timeout);
    for (ProcessEvent& event : outcome.exited) {
      if (first_end_ == JobEnd::kNone) continue;
      event.exit.job_end = first_end_;
      event.exit.job_detail = first_end_ == JobEnd::kPreempted
                                  ? "preempted by SLURM (job 1); runs again as a new attempt"
                                  : "SLURM time limit reached (job 1, TIMEOUT)";
      event.exit.signaled = true;
      event.exit.signal = 9;
      first_end_ = JobEnd::kNone;
    }
    return outcome;
  }
  void SignalGroup(ProcessId pid, int sig) override { inner_.SignalGroup(pid, sig); }
  std::size_t running() const override { return inner_.running(); }
  int StopLeftovers(double grace) override { return inner_.StopLeftovers(grace); }
  ContainmentKind containment() const override { return inner_.containment(); }
  std::vector<int> TrialProcesses(ProcessId pid) const override { return inner_.TrialProcesses(pid); }
  std::string JobId(ProcessId pid) const override { return "job-" + std::to_string(pid); }

  std::vector<int> gpus_asked_;

 private:
  ProcessRunner& inner_;
  JobEnd first_end_;
};

class ClusterLoopTest : public RunnerTest {
 protected:
  Expected<RunOutcome> RunOn(const ExperimentConfig& config, JobEnd first_end, int gpus) {
    FakeGpuProbe probe(gpus);
    RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
    ClusterLikeRunner runner(*real.services.processes, first_end);
    real.services.processes = &runner;
    real.services.gpu_probe = &probe;
    RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
    auto outcome = Whole(RunExperimentWith(config, options, real.services, observer_));
    gpus_asked_ = runner.gpus_asked_;
    return outcome;
  }
  std::vector<int> gpus_asked_;
};

constexpr const char* kOneTrial = R"(
name: t
command: [/bin/sh, -c, 'echo "{\"loss\": 1}" >> "$GPUSWEEP_METRICS"']
metric: {name: loss, mode: min}
sampler: {type: grid}
search_space: {}
resources: {gpus_per_trial: 2}
)";

TEST_F(ClusterLoopTest, APreemptedJobRunsAgainAsANewAttemptInTheSameRun) {
  auto outcome = RunOn(Config(kOneTrial), JobEnd::kPreempted, 2);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 1u);
  const TrialRecord& trial = outcome->trials[0];
  EXPECT_EQ(trial.state, TrialState::kCompleted);
  EXPECT_EQ(trial.attempt, 2);
  ASSERT_EQ(observer_.finished.size(), 2u);
  EXPECT_EQ(observer_.finished[0].state, TrialState::kInterrupted);
  EXPECT_EQ(observer_.finished[0].failure_reason,
            "preempted by SLURM (job 1); runs again as a new attempt");
  // The job id is journaled where a pid would be, and the request says how many GPUs.
  EXPECT_EQ(trial.job_id.rfind("job-", 0), 0u) << trial.job_id;
  EXPECT_EQ(trial.pid, 0);
  EXPECT_EQ(gpus_asked_, (std::vector<int>{2, 2}));
  auto journaled = OpenReadOnly()->LoadTrial(0);
  ASSERT_TRUE(journaled && *journaled);
  EXPECT_EQ((*journaled)->job_id, trial.job_id);
}

TEST_F(ClusterLoopTest, AJobPastTheClustersTimeLimitFailsWithTheClustersReason) {
  auto outcome = RunOn(Config(kOneTrial), JobEnd::kTimeLimit, 2);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 1u);
  EXPECT_EQ(outcome->trials[0].state, TrialState::kFailed);
  EXPECT_EQ(outcome->trials[0].failure_reason, "SLURM time limit reached (job 1, TIMEOUT)");
  EXPECT_EQ(outcome->trials[0].attempt, 1);
}

// Forwards to the real runner; the first process that ends is reported as a Ctrl-C
// arriving just after it ended: with its end in the same Wait (kSameWait, as the local
// runner reaps and takes a signal together), or, as a SLURM job whose exit record is
// written before the next squeue poll, not by Wait but by TakeEnded (kTakeEnded).
class InterruptAfterEndRunner final : public ProcessRunner {
 public:
  enum class Report { kSameWait, kTakeEnded };
  InterruptAfterEndRunner(ProcessRunner& inner, Report report) : inner_(inner), report_(report) {}
  Expected<ProcessId> Spawn(const SpawnRequest& request) override { return inner_.Spawn(request); }
  WaitOutcome Wait(double timeout) override {
    WaitOutcome outcome = inner_.Wait(timeout);
    // The poll after the interrupt reports what nobody took.
    for (ProcessEvent& event : std::exchange(held_, {})) outcome.exited.push_back(event);
    if (outcome.exited.empty() || interrupted_) return outcome;
    interrupted_ = true;
    outcome.interrupt_signal = SIGINT;
    if (report_ == Report::kTakeEnded) held_ = std::exchange(outcome.exited, {});
    return outcome;
  }
  std::vector<ProcessEvent> TakeEnded() override { return std::exchange(held_, {}); }
  void SignalGroup(ProcessId pid, int sig) override { inner_.SignalGroup(pid, sig); }
  std::size_t running() const override { return inner_.running() + held_.size(); }
  int StopLeftovers(double grace) override { return inner_.StopLeftovers(grace); }
  ContainmentKind containment() const override { return inner_.containment(); }
  std::vector<int> TrialProcesses(ProcessId pid) const override { return inner_.TrialProcesses(pid); }

 private:
  ProcessRunner& inner_;
  Report report_;
  bool interrupted_ = false;
  std::vector<ProcessEvent> held_;
};

class InterruptAfterEndTest : public RunnerTest,
                              public ::testing::WithParamInterface<InterruptAfterEndRunner::Report> {};

TEST_P(InterruptAfterEndTest, ATrialThatEndedBeforeTheInterruptKeepsItsOutcome) {
  const ExperimentConfig config = Config(kOneTrial);
  FakeGpuProbe probe(2);
  RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
  InterruptAfterEndRunner runner(*real.services.processes, GetParam());
  real.services.processes = &runner;
  real.services.gpu_probe = &probe;
  RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
  auto outcome = RunExperimentWith(config, options, real.services, observer_);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kInterrupted) << outcome.error().message;
  auto trial = OpenReadOnly()->LoadTrial(0);
  ASSERT_TRUE(trial && *trial);
  EXPECT_EQ((*trial)->state, TrialState::kCompleted) << (*trial)->failure_reason;
  EXPECT_EQ((*trial)->objective, 1.0);
  EXPECT_EQ((*trial)->attempt, 1);
}

INSTANTIATE_TEST_SUITE_P(Reports, InterruptAfterEndTest,
                         ::testing::Values(InterruptAfterEndRunner::Report::kSameWait,
                                           InterruptAfterEndRunner::Report::kTakeEnded));

}  // namespace
}  // namespace gpusweep
