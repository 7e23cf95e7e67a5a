// Cross-validation through a real run: once a configuration has failed, its other folds
// do not hold slots (queued ones never run, running ones stop), with and without a
// scheduler; max_failures counts configurations; --retry-failed runs the failed
// configuration's folds again.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// Configuration 0 (x = 1): fold 0 fails at once, fold 1 would run for a minute, folds
// 2 and 3 are queued behind them (2 slots). Configuration 1 (x = 2) completes.
constexpr std::string_view kFailingConfiguration = R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 2}
kill_grace: 1s
shell: true
command: 'if [ {{x}} = 1 ] && [ {{fold}} = 0 ]; then echo "bad data in fold 0" >&2; exit 1; fi; echo "{\"epoch\": 1, \"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"; if [ {{x}} = 1 ]; then sleep 60; fi; echo "{\"epoch\": 2, \"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
cv: {folds: 4}
)";

class CvRunTest : public RunnerTest {
 protected:
  std::vector<TrialRecord> Trials() {
    auto trials = OpenReadOnly()->LoadTrials();
    EXPECT_TRUE(trials) << trials.error().message;
    return trials ? *trials : std::vector<TrialRecord>{};
  }
  bool Started(int number) const {
    return std::find(observer_.started.begin(), observer_.started.end(), number) !=
           observer_.started.end();
  }
  // The failed configuration 0: fold 0 failed, fold 1 stopped, folds 2 and 3 never ran.
  void ExpectConfigurationZeroAbandoned() {
    const std::vector<TrialRecord> trials = Trials();
    ASSERT_EQ(trials.size(), 8u);
    EXPECT_EQ(trials[0].state, TrialState::kFailed);
    EXPECT_EQ(trials[1].state, TrialState::kPruned) << trials[1].failure_reason;
    EXPECT_THAT(trials[1].failure_reason, HasSubstr("pruned: configuration 0 failed"));
    for (int number : {2, 3}) {
      EXPECT_FALSE(Started(number)) << number;
      EXPECT_EQ(trials[number].state, TrialState::kPruned) << number;
      EXPECT_THAT(trials[number].failure_reason, HasSubstr("not run: configuration 0 failed ("))
          << number;
      EXPECT_EQ(trials[number].params, trials[0].params);
    }
    for (int number = 4; number < 8; ++number)
      EXPECT_EQ(trials[number].state, TrialState::kCompleted) << number << ": " << trials[number].failure_reason;
  }
};

TEST_F(CvRunTest, AFailedConfigurationsOtherFoldsDoNotRunWithoutAScheduler) {
  auto outcome = Run(Config(std::string(kFailingConfiguration)));
  ASSERT_TRUE(outcome) << outcome.error().message;
  ExpectConfigurationZeroAbandoned();
  EXPECT_THAT(Trials()[2].failure_reason,
              HasSubstr("not run: configuration 0 failed (fold 0 failed; cv.allow_failed_folds is 0)"));
}

TEST_F(CvRunTest, AFailedConfigurationsOtherFoldsDoNotRunUnderAScheduler) {
  auto outcome = Run(Config(std::string(kFailingConfiguration) +
                            "scheduler: {type: asha, resource: epoch, min_resource: 1, "
                            "max_resource: 2, reduction_factor: 2}\n"));
  ASSERT_TRUE(outcome) << outcome.error().message;
  ExpectConfigurationZeroAbandoned();
  EXPECT_THAT(Trials()[2].failure_reason,
              HasSubstr("configuration 0 failed (fold 0 failed; cv.allow_failed_folds is 0)"));
}

TEST_F(CvRunTest, FoldsWithinTheAllowanceKeepRunning) {
  std::string allowing(kFailingConfiguration);
  allowing.replace(allowing.find("sleep 60"), 8, "true");
  allowing.replace(allowing.find("cv: {folds: 4}"), 14, "cv: {folds: 4, allow_failed_folds: 1}");
  auto outcome = Run(Config(allowing));
  ASSERT_TRUE(outcome) << outcome.error().message;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 8u);
  for (int number = 1; number < 8; ++number)
    EXPECT_EQ(trials[number].state, TrialState::kCompleted) << number << ": " << trials[number].failure_reason;
}

TEST_F(CvRunTest, MaxFailuresCountsFailedConfigurationsNotFolds) {
  // Every fold of an odd x fails: configurations 0 and 2 fail (two folds each at once,
  // with 2 slots), configuration 1 completes. max_failures: 2 stops the sweep after
  // configuration 2, not after configuration 0's two folds.
  auto outcome = Run(Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 2}
max_failures: 2
shell: true
command: 'case {{x}} in 1|3) exit 1;; esac; echo "{\"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3, 4]}
cv: {folds: 3}
)"));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kTooManyFailures);
  EXPECT_THAT(outcome.error().message, HasSubstr("configurations finished in this run failed "
                                                 "(max_failures: 2)"));
  EXPECT_THAT(outcome.error().message, HasSubstr("failed: configurations 0, 2; the last, "
                                                 "configuration 2: fold "));
  // Configuration 2's folds 6 and 7 fail at once on the 2 slots: either is named first.
  EXPECT_THAT(outcome.error().message, ContainsRegex("see `gpusweep show [67]`"));
  const std::vector<TrialRecord> trials = Trials();
  for (int number = 3; number < 6; ++number) {
    ASSERT_LT(static_cast<std::size_t>(number), trials.size());
    EXPECT_EQ(trials[number].state, TrialState::kCompleted) << number << ": " << trials[number].failure_reason;
  }
  for (const TrialRecord& trial : trials) EXPECT_LT(trial.number, 9);  // configuration 3 never ran
}

TEST_F(CvRunTest, ResumingSkipsTheMissingFoldsOfAConfigurationThatFailedBefore) {
  auto config = Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 1}
shell: true
command: 'echo "{\"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
cv: {folds: 3}
)");
  ASSERT_TRUE(Run(config));
  {  // As a run killed right after fold 0 failed would leave it: fold 2 still to run.
    auto journal = OpenJournal(experiment_dir() / "gpusweep.db", JournalAccess::kReadWrite);
    ASSERT_TRUE(journal) << journal.error().message;
    std::vector<TrialRecord> trials = Trials();
    trials[0].state = TrialState::kFailed;
    trials[0].objective.reset();
    trials[0].failure_reason = "exit code 1";
    trials[2].state = TrialState::kInterrupted;
    ASSERT_TRUE((*journal)->UpsertTrial(trials[0], {}));
    ASSERT_TRUE((*journal)->UpsertTrial(trials[2], {}));
  }
  ASSERT_TRUE(Run(config));
  EXPECT_TRUE(observer_.started.empty());
  const std::vector<TrialRecord> trials = Trials();
  EXPECT_EQ(trials[2].state, TrialState::kPruned);
  EXPECT_THAT(trials[2].failure_reason,
              HasSubstr("not run: configuration 0 failed (fold 0 failed; cv.allow_failed_folds is 0)"));
}

TEST_F(CvRunTest, RetryFailedRunsTheFailedConfigurationsFoldsAgain) {
  auto config = Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 1}
shell: true
command: 'if [ -e {{config_dir}}/broken ] && [ {{fold}} = 1 ]; then exit 1; fi; echo "{\"score\": "{{x}}"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1]}
cv: {folds: 3}
)");
  WriteFile(dir_.path() / "broken", "");
  ASSERT_TRUE(Run(config));
  std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[1].state, TrialState::kFailed);
  EXPECT_EQ(trials[2].state, TrialState::kPruned);  // not run
  EXPECT_FALSE(Started(2));

  // Resuming without --retry-failed runs nothing; with it, folds 1 and 2 run.
  ASSERT_TRUE(Run(config));
  EXPECT_TRUE(observer_.started.empty());
  std::filesystem::remove(dir_.path() / "broken");
  FakeGpuProbe probe(0);
  RealRunServices real(ProcessOptionsFor(config, experiment_dir(), {}));
  real.services.gpu_probe = &probe;
  real.services.usable_cores = 2;
  RunOptions options{experiment_dir(), std::nullopt, dir_.path() / "python"};
  options.failed_trials = FailedTrials::kRetry;
  observer_ = RecordingObserver{};
  auto retried = RunExperimentWith(config, options, real.services, observer_);
  ASSERT_TRUE(retried) << retried.error().message;
  EXPECT_EQ(observer_.started, (std::vector<int>{1, 2}));
  for (const TrialRecord& trial : Trials()) EXPECT_EQ(trial.state, TrialState::kCompleted);
}

}  // namespace
}  // namespace gpusweep
