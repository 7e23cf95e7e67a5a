// Runner tests with real processes (small shell commands) and a fake GPU inventory.
#include "run/runner.h"

#include <signal.h>
#include <unistd.h>

#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "run/run_plan.h"
#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

const char* kHeader = R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 2}
kill_grace: 0.5s
)";

TEST_F(RunnerTest, CompletesTrialsAndRecordsIntermediateResults) {
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'for e in 1 2 3; do echo "{\"epoch\": $e, \"score\": "{{x}}"$e}" >> "$GPUSWEEP_METRICS"; done'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3]}
)");
  auto outcome = Run(config);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 3u);
  for (const TrialRecord& trial : outcome->trials) {
    EXPECT_EQ(trial.state, TrialState::kCompleted) << trial.failure_reason;
    EXPECT_EQ(trial.exit_code, 0);
    // {{x}} is shell-quoted ('2'), so "..."{{x}}"$e}" gives 23 for x=2 at epoch 3.
    EXPECT_EQ(trial.objective, (trial.number + 1) * 10 + 3);
  }
  auto journal = OpenReadOnly();
  auto results = journal->LoadResults(1);
  ASSERT_TRUE(results);
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[2].step, 3);
  EXPECT_TRUE(std::filesystem::exists(experiment_dir() / "trials/0002/params.json"));
}

TEST_F(RunnerTest, FailureModesAreRecordedWithReasons) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, '{{cmd}}']
timeout: 1s
sampler: {type: grid}
search_space:
  cmd:
    type: choice
    values:
      - exit 3
      - kill -SEGV $$
      - sleep 30
      - trap "" TERM; sleep 30
      - echo not-a-metric
      - "echo '{\"score\": 1}' >> $GPUSWEEP_METRICS"
      - "echo '{\"scor\": 1, \"epoch\": 1}' >> $GPUSWEEP_METRICS"
      - "echo '{\"score\": \"0.5\"}' >> $GPUSWEEP_METRICS"
      - "echo 'score=1' >> $GPUSWEEP_METRICS; echo '{\"score\": 1' >> $GPUSWEEP_METRICS"
)");
  auto outcome = Run(config);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& t = outcome->trials;
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t[0].state, TrialState::kFailed);
  EXPECT_EQ(t[0].failure_reason, "exit code 3");
  EXPECT_EQ(t[1].term_signal, SIGSEGV);
  EXPECT_EQ(t[1].failure_reason, "killed by SIGSEGV");
  EXPECT_EQ(t[2].failure_reason, "timed out after 1s");
  EXPECT_EQ(t[2].term_signal, SIGTERM);
  EXPECT_NE(t[3].failure_reason.find("timed out after 1s (killed with SIGKILL"), std::string::npos);
  EXPECT_EQ(t[3].term_signal, SIGKILL);
  EXPECT_LT(t[3].end_time - t[3].start_time, 5.0);
  EXPECT_EQ(t[4].failure_reason,
            "exited 0 but reported no JSON object to $GPUSWEEP_METRICS (needs 'score')");
  EXPECT_EQ(t[6].failure_reason,
            "exited 0 but never reported the metric 'score' (it reported: scor, epoch); did you "
            "mean 'scor'?");
  EXPECT_FALSE(t[6].objective);
  EXPECT_EQ(t[7].failure_reason, "exited 0 but its last 'score' was \"0.5\", not a number");
  EXPECT_EQ(t[5].state, TrialState::kCompleted);
  // Every line skipped: why is kept with the trial, not only printed as a warning.
  EXPECT_TRUE(t[8].failure_reason.starts_with(
      "exited 0 but reported no JSON object to $GPUSWEEP_METRICS (needs 'score'); 2 warnings "
      "reading its metrics, the first: "))
      << t[8].failure_reason;
  EXPECT_NE(t[8].failure_reason.find("metrics.jsonl:1: not valid JSON, skipped"), std::string::npos)
      << t[8].failure_reason;
}

// A resumed sweep does not check its completed trials again (issue 25): trial 0 names a
// program that does not exist. Checked, the plan is refused; completed and without a
// scheduler, trial 0 never runs again and the plan stands. With a scheduler (which
// could promote it) it is checked all the same.
TEST_F(RunnerTest, PlanRunSkipsCompletedTrialsOnlyWithoutAScheduler) {
  const std::string space = R"(
sampler: {type: grid}
search_space:
  prog: {type: choice, values: [/nonexistent/gpusweep-no-such-program, /bin/true]}
)";
  auto config = Config(std::string(kHeader) + "command: ['{{prog}}']\n" + space);
  FakeGpuProbe probe(0);
  const std::vector<std::string> env{"PATH=/usr/bin:/bin"};
  auto never = [] { return 0; };
  auto checked = PlanRun(config, experiment_dir(), probe, env, std::nullopt, 2, never);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("gpusweep-no-such-program"), std::string::npos)
      << checked.error().message;
  EXPECT_TRUE(PlanRun(config, experiment_dir(), probe, env, std::nullopt, 2, never, {0}));
  EXPECT_FALSE(PlanRun(config, experiment_dir(), probe, env, std::nullopt, 2, never, {1}));

  auto scheduled = Config(std::string(kHeader) + "command: ['{{prog}}', '{{budget}}']\n" + space +
                          "scheduler: {type: asha, max_resource: 9, min_resource: 1, "
                          "reduction_factor: 3}\n");
  auto promoted = PlanRun(scheduled, experiment_dir(), probe, env, std::nullopt, 2, never, {0});
  ASSERT_FALSE(promoted);
  EXPECT_NE(promoted.error().message.find("gpusweep-no-such-program"), std::string::npos)
      << promoted.error().message;
}

TEST_F(RunnerTest, GpusAreExclusiveAndSetInEnvironment) {
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'echo "{\"score\": 1, \"gpus\": \"$CUDA_VISIBLE_DEVICES\", \"order\": \"$CUDA_DEVICE_ORDER\", \"t0\": $(date +%s.%N)}" >> "$GPUSWEEP_METRICS"; sleep 0.3; echo "{\"t1\": $(date +%s.%N)}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  i: {type: int, low: 1, high: 6}
)");
  auto outcome = Run(config, /*gpus=*/2);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 6u);
  EXPECT_EQ(observer_.info.concurrency, 2);
  std::map<std::string, std::vector<std::pair<double, double>>> busy;
  for (const TrialRecord& trial : outcome->trials) {
    ASSERT_EQ(trial.state, TrialState::kCompleted) << trial.failure_reason;
    ASSERT_EQ(trial.gpus.size(), 1u);
    std::string gpus = trial.last_metrics["gpus"];
    EXPECT_EQ(gpus, std::to_string(trial.gpus[0]));
    EXPECT_EQ(trial.last_metrics["order"], "PCI_BUS_ID");
    busy[gpus].emplace_back(trial.last_metrics["t0"].get<double>(),
                            trial.last_metrics["t1"].get<double>());
  }
  EXPECT_EQ(busy.size(), 2u);  // both GPUs were used
  for (auto& [gpu, spans] : busy) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      EXPECT_GE(spans[i].first, spans[i - 1].second) << "GPU " << gpu << " shared";
  }
}

TEST_F(RunnerTest, CpuTrialsGetThreadShareAndHiddenGpus) {
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'echo "{\"score\": 1, \"omp\": \"$OMP_NUM_THREADS\", \"cvd\": \"${CUDA_VISIBLE_DEVICES-unset}\", \"id\": \"$GPUSWEEP_TRIAL_ID\", \"pwd\": \"$PWD\"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: random, trials: 2, seed: 1}
search_space:
  lr: {type: uniform, low: 0, high: 1}
)");
  auto outcome = Run(config, /*gpus=*/0, /*cores=*/4);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(observer_.warnings.size(), 1u);
  EXPECT_NE(observer_.warnings[0].find("no GPU visible"), std::string::npos);
  for (const TrialRecord& trial : outcome->trials) {
    EXPECT_EQ(trial.last_metrics["omp"], "2");  // 4 cores / 2 slots
    EXPECT_EQ(trial.last_metrics["cvd"], "");
    EXPECT_EQ(trial.last_metrics["id"], std::to_string(trial.number));
    EXPECT_EQ(trial.last_metrics["pwd"],
              (experiment_dir() / "trials" / TrialDirName(trial.number)).string());
  }
}

TEST_F(RunnerTest, TooManyGpusPerTrialIsAnErrorBeforeAnythingStarts) {
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'true'
sampler: {type: grid}
search_space: {}
)");
  config.resources.gpus_per_trial = {3};
  auto outcome = Run(config, /*gpus=*/2);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kInvalidConfig);
  EXPECT_NE(outcome.error().message.find(
                "resources.gpus_per_trial (not set: 3 per trial by default): each trial needs 3 "
                "GPUs but only 2 are available; lower gpus_per_trial or add GPUs (GPUs allowed "
                "by NVML detection)"),
            std::string::npos)
      << outcome.error().message;
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
}

TEST_F(RunnerTest, MissingTemplateNameFailsBeforeAnythingIsWritten) {
  WriteFile(dir_.path() / "setup.mustache", "lr = {{lr}}\nmomentum = {{momentum}}\n");
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'true'
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [0.1]}
templates:
  - {src: setup.mustache, dst: setup.py}
)");
  auto outcome = Run(config);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kInvalidConfig);
  EXPECT_NE(outcome.error().message.find("momentum"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
}

TEST_F(RunnerTest, MistypedProgramFailsBeforeAnythingIsWritten) {
  auto config = Config(std::string(kHeader) + R"(
command: [pythn3, train.py]
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [0.1, 0.2]}
)");
  auto outcome = Run(config);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kInvalidConfig);
  EXPECT_NE(outcome.error().message.find("sweep.yaml: command[0]: command not found: pythn3"),
            std::string::npos)
      << outcome.error().message;
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
}

TEST_F(RunnerTest, RelativeProgramMustBeARenderedTemplate) {
  WriteFile(dir_.path() / "run.sh.mustache", "#!/bin/sh\necho '{\"score\": {{lr}}}' >> \"$GPUSWEEP_METRICS\"\n");
  std::string yaml = std::string(kHeader) + R"(
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [0.1]}
templates:
  - {src: run.sh.mustache, dst: run.sh}
)";
  auto missing = Run(Config(yaml + "command: [./train.sh]\n"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("command[0]: './train.sh' is relative to the trial's "
                                         "directory"),
            std::string::npos)
      << missing.error().message;
  // A rendered template is there when the trial starts: allowed (via sh, as it is not +x).
  auto rendered = Run(Config(yaml + "command: [/bin/sh, ./run.sh]\n"));
  ASSERT_TRUE(rendered) << rendered.error().message;
  EXPECT_EQ(rendered->trials[0].state, TrialState::kCompleted) << rendered->trials[0].failure_reason;
}

TEST_F(RunnerTest, ResumeKeepsFinishedTrialsAndRefusesChangedConfig) {
  std::string yaml = std::string(kHeader) + R"(
shell: true
command: 'echo "{\"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"; echo run >> {{config_dir}}/runs.log'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
)";
  ASSERT_TRUE(Run(Config(yaml)));
  auto again = Run(Config(yaml));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(observer_.info.to_run, 0);
  EXPECT_TRUE(observer_.info.resumed);
  EXPECT_EQ(ReadFile(dir_.path() / "runs.log"), "run\nrun\n");  // nothing ran twice

  std::string changed = yaml;
  changed.replace(changed.find("[1, 2]"), 6, "[1, 3]");
  auto refused = Run(Config(changed));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kConfigChanged);
  EXPECT_NE(refused.error().message.find("search_space.x.values[1] (2 -> 3)"), std::string::npos)
      << refused.error().message;
}

TEST_F(RunnerTest, FailedTrialsAreKeptUnlessRetried) {
  // Trial 1 fails until the "fix" file exists, like a script bug fixed between runs.
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'test {{x}} = 1 || test -f {{config_dir}}/fixed && echo "{\"score\": 1}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
)");
  auto first = Run(config);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->trials[1].state, TrialState::kFailed);
  WriteFile(dir_.path() / "fixed", "");
  auto kept = Run(config);
  ASSERT_TRUE(kept);
  EXPECT_EQ(observer_.info.to_run, 0);
  EXPECT_EQ(observer_.info.failed_kept, 1);
  EXPECT_EQ(kept->trials[1].state, TrialState::kFailed);

  FakeGpuProbe probe(0);
  RealRunServices real;
  real.services.gpu_probe = &probe;
  RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python",
                     FailedTrials::kRetry};
  observer_ = RecordingObserver{};
  auto retried = Whole(RunExperimentWith(config, options, real.services, observer_));
  ASSERT_TRUE(retried) << retried.error().message;
  EXPECT_EQ(observer_.started, std::vector<int>{1});
  EXPECT_EQ(retried->trials[1].state, TrialState::kCompleted);
  EXPECT_EQ(retried->trials[1].attempt, 2);
  EXPECT_EQ(retried->trials[0].attempt, 1);
}

TEST_F(RunnerTest, RandomSweepCanBeExtendedButNotShrunk) {
  auto yaml = [](int trials) {
    return std::string(kHeader) + fmt::format(R"(
shell: true
command: 'echo "{{\"score\": "{{{{lr}}}}"}}" >> "$GPUSWEEP_METRICS"'
sampler: {{type: random, trials: {}, seed: 3}}
search_space:
  lr: {{type: uniform, low: 0, high: 1}}
)", trials);
  };
  auto first = Run(Config(yaml(3)));
  ASSERT_TRUE(first) << first.error().message;
  auto extended = Run(Config(yaml(5)));
  ASSERT_TRUE(extended) << extended.error().message;
  EXPECT_EQ(observer_.info.to_run, 2);
  ASSERT_EQ(extended->trials.size(), 5u);
  for (int i = 0; i < 3; ++i)  // the first three are the same trials, not re-sampled
    EXPECT_EQ(extended->trials[i].params, first->trials[i].params);
  auto shrunk = Run(Config(yaml(4)));
  ASSERT_FALSE(shrunk);
  EXPECT_NE(shrunk.error().message.find("sampler.trials (5 -> 4)"), std::string::npos)
      << shrunk.error().message;
  EXPECT_NE(shrunk.error().message.find("trials must be at least 5"), std::string::npos);
  // Back to the count it was created with is a shrink too (the identity still says 3).
  auto original = Run(Config(yaml(3)));
  ASSERT_FALSE(original);
  EXPECT_NE(original.error().message.find("sampler.trials (5 -> 3)"), std::string::npos)
      << original.error().message;
}

TEST_F(RunnerTest, AbandonedRunningTrialIsKilledAndRunAgain) {
  std::string yaml = std::string(kHeader) + R"(
shell: true
command: 'echo "{\"score\": 1}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
)";
  auto config = Config(yaml);
  ASSERT_TRUE(Run(config));
  // Pretend an earlier gpusweep died while trial 1 ran: a live process group and a
  // journal row saying "running".
  pid_t stray = fork();
  if (stray == 0) {
    setpgid(0, 0);
    execl("/bin/sleep", "sleep", "30", nullptr);
    _exit(127);
  }
  setpgid(stray, stray);
  {
    auto journal = OpenJournal(experiment_dir() / "gpusweep.db", JournalAccess::kReadWrite);
    ASSERT_TRUE(journal);
    auto trial = (*journal)->LoadTrial(1);
    ASSERT_TRUE(trial && *trial);
    TrialRecord running = **trial;
    running.state = TrialState::kRunning;
    running.pid = stray;
    running.pid_start_ticks = ProcessStartTicks(stray).value();
    ASSERT_TRUE((*journal)->UpsertTrial(running));
  }
  auto outcome = Run(config);
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(observer_.started, std::vector<int>{1});
  EXPECT_EQ(outcome->trials[1].attempt, 2);
  EXPECT_EQ(outcome->trials[1].state, TrialState::kCompleted);
  int status = 0;
  EXPECT_EQ(waitpid(stray, &status, 0), stray);  // it was killed, not left running
  EXPECT_TRUE(WIFSIGNALED(status));
}

// Moves the experiment directory while the first trial starts: after the loop's last
// check and before the fsync that opens the WAL by its path (the race CI once lost).
class MovesTheExperimentAtFirstSpawn final : public ProcessRunner {
 public:
  MovesTheExperimentAtFirstSpawn(ProcessRunner& real, std::filesystem::path from,
                                 std::filesystem::path to)
      : real_(real), from_(std::move(from)), to_(std::move(to)) {}
  Expected<ProcessId> Spawn(const SpawnRequest& request) override {
    Expected<ProcessId> pid = real_.Spawn(request);
    if (!moved_) std::filesystem::rename(from_, to_);
    moved_ = true;
    return pid;
  }
  WaitOutcome Wait(double timeout_seconds) override { return real_.Wait(timeout_seconds); }
  void SignalGroup(ProcessId pid, int sig) override { real_.SignalGroup(pid, sig); }
  std::size_t running() const override { return real_.running(); }
  int StopLeftovers(double grace_seconds) override { return real_.StopLeftovers(grace_seconds); }
  ContainmentKind containment() const override { return real_.containment(); }
  std::vector<int> TrialProcesses(ProcessId pid) const override {
    return real_.TrialProcesses(pid);
  }

 private:
  ProcessRunner& real_;
  std::filesystem::path from_, to_;
  bool moved_ = false;
};

TEST_F(RunnerTest, ExperimentMovedAsATrialStartsIsSaidSoNotAsAMissingWal) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sleep, "5"]
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1]}
)");
  FakeGpuProbe probe(0);
  RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
  const std::filesystem::path moved = dir_.path() / "moved";
  MovesTheExperimentAtFirstSpawn moving(*real.services.processes, experiment_dir(), moved);
  real.services.processes = &moving;
  real.services.gpu_probe = &probe;
  RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
  auto outcome = RunExperimentWith(config, options, real.services, observer_);
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("the experiment directory was moved or deleted"),
            std::string::npos)
      << outcome.error().message;
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
  EXPECT_EQ(real.services.processes->running(), 0u);  // stopped, not left to sleep
}

// Issue 25: of a plain random sweep, the run keeps each finished trial's number, state,
// objective and the objective's metrics, not its params or other metrics (at 100,000
// trials those were most of the run's memory); the journal keeps them whole. TPE reads
// its history, so a TPE run keeps every record whole.
class FinishedRecordsTest : public RunnerTest {
 protected:
  // Each trial as the run kept it, beside the journal's whole record of it.
  std::vector<std::pair<TrialRecord, TrialRecord>> KeptAndJournaled(const std::string& sampler) {
    auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'echo "{\"score\": "{{x}}", \"note\": \"a note\"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: )" + sampler + R"(, trials: 3, seed: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
)");
    auto outcome = RunAsKept(config);
    EXPECT_TRUE(outcome) << outcome.error().message;
    auto whole = OpenReadOnly()->LoadTrials();
    EXPECT_TRUE(whole) << whole.error().message;
    std::vector<std::pair<TrialRecord, TrialRecord>> pairs;
    if (!outcome || !whole) return pairs;
    EXPECT_EQ(outcome->trials.size(), 3u);
    EXPECT_EQ(whole->size(), 3u);
    for (std::size_t i = 0; i < std::min(outcome->trials.size(), whole->size()); ++i) {
      const TrialRecord& kept = outcome->trials[i];
      const TrialRecord& journaled = (*whole)[i];
      EXPECT_EQ(kept.state, TrialState::kCompleted) << kept.failure_reason;
      EXPECT_EQ(kept.objective, journaled.objective);
      EXPECT_EQ(kept.last_metrics.value("score", Json()), journaled.last_metrics.value("score", Json()));
      EXPECT_TRUE(journaled.params.contains("x"));
      EXPECT_TRUE(journaled.last_metrics.contains("note"));
      pairs.emplace_back(kept, journaled);
    }
    return pairs;
  }
};

TEST_F(FinishedRecordsTest, APlainSweepKeepsOfAFinishedTrialNoParamsAndOnlyTheObjectivesMetrics) {
  const auto pairs = KeptAndJournaled("random");
  ASSERT_EQ(pairs.size(), 3u);
  for (const auto& [kept, journaled] : pairs) {
    EXPECT_TRUE(kept.params.is_null()) << kept.params.dump();
    EXPECT_FALSE(kept.last_metrics.contains("note"));
  }
}

TEST_F(FinishedRecordsTest, TpeReadsItsHistorySoItsRunKeepsEveryRecordWhole) {
  const auto pairs = KeptAndJournaled("tpe");
  ASSERT_EQ(pairs.size(), 3u);
  for (const auto& [kept, journaled] : pairs) {
    EXPECT_EQ(kept.params, journaled.params);
    EXPECT_EQ(kept.last_metrics, journaled.last_metrics);
  }
}

// A resume reads the earlier runs' finished trials one at a time and keeps each as the run
// that recorded them would (KeptTrials::Load): the resume of a 100,000-trial sweep held
// every whole record at once. Extended from 3 to 5 trials, the run keeps all five without
// params and runs only the two new ones, which draw what they would have drawn at once.
TEST_F(FinishedRecordsTest, AResumedPlainSweepKeepsTheEarlierRunsTrialsAsFinishedRecordsToo) {
  auto yaml = [](int trials) {
    return std::string(kHeader) + fmt::format(R"(
shell: true
command: 'echo "{{\"score\": "{{{{x}}}}", \"note\": \"a note\"}}" >> "$GPUSWEEP_METRICS"'
sampler: {{type: random, trials: {}, seed: 1}}
search_space:
  x: {{type: uniform, low: 0, high: 1}}
)", trials);
  };
  ASSERT_TRUE(RunAsKept(Config(yaml(3))));
  auto resumed = RunAsKept(Config(yaml(5)));
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(observer_.started, (std::vector<int>{3, 4}));
  auto whole = OpenReadOnly()->LoadTrials();
  ASSERT_TRUE(whole) << whole.error().message;
  ASSERT_EQ(resumed->trials.size(), 5u);
  ASSERT_EQ(whole->size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    const TrialRecord& kept = resumed->trials[i];
    const TrialRecord& journaled = (*whole)[i];
    EXPECT_EQ(kept.number, journaled.number);
    EXPECT_EQ(kept.state, TrialState::kCompleted) << kept.failure_reason;
    EXPECT_EQ(kept.objective, journaled.objective);
    EXPECT_TRUE(kept.params.is_null()) << i << ": " << kept.params.dump();
    EXPECT_FALSE(kept.last_metrics.contains("note")) << i;
    EXPECT_TRUE(journaled.params.contains("x")) << i;
    EXPECT_EQ(journaled.objective, journaled.params.value("x", -1.0)) << i;
  }
}

}  // namespace
}  // namespace gpusweep
