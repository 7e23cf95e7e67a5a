// max_failures: a sweep whose trials fail stops starting new ones, lets the running
// ones finish, and says which failed and why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run/failure_budget.h"
#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;

TrialRecord Ended(int number, TrialState state, std::string reason = "") {
  TrialRecord trial;
  trial.number = number;
  trial.state = state;
  trial.failure_reason = std::move(reason);
  return trial;
}

TEST(FailureBudgetTest, CountStopsAtTheNthFailure) {
  FailureBudget budget(FailureLimit{2, 0, 0});
  budget.Count(Ended(0, TrialState::kFailed, "exit code 1"));
  budget.Count(Ended(1, TrialState::kCompleted));
  budget.Count(Ended(2, TrialState::kInterrupted));  // not finished: does not count
  EXPECT_FALSE(budget.Exhausted());
  EXPECT_TRUE(budget.Verdict());
  budget.Count(Ended(3, TrialState::kFailed, "killed by SIGSEGV"));
  EXPECT_TRUE(budget.Exhausted());
  Status verdict = budget.Verdict();
  ASSERT_FALSE(verdict);
  EXPECT_EQ(verdict.error().code, ErrorCode::kTooManyFailures);
  EXPECT_THAT(verdict.error().message,
              HasSubstr("2 of 3 trials finished in this run failed (max_failures: 2), so no "
                        "further trial was started; failed: trials 0, 3; the last, trial 3: "
                        "killed by SIGSEGV"));
}

TEST(FailureBudgetTest, FractionIsJudgedOnlyAfterEnoughTrialsFinished) {
  FailureBudget budget(FailureLimit{0, 0.5, 4});
  budget.Count(Ended(0, TrialState::kFailed, "x"));
  budget.Count(Ended(1, TrialState::kFailed, "x"));
  EXPECT_FALSE(budget.Exhausted());  // 2 of 2, but fewer than 4 finished
  budget.Count(Ended(2, TrialState::kCompleted));
  budget.Count(Ended(3, TrialState::kPruned));
  EXPECT_TRUE(budget.Exhausted());  // 2 of 4 >= 0.5
  EXPECT_THAT(budget.Verdict().error().message,
              HasSubstr("(max_failures: {fraction: 0.5, after: 4})"));
  FailureBudget lenient(FailureLimit{0, 0.75, 4});
  for (int i = 0; i < 2; ++i) lenient.Count(Ended(i, TrialState::kFailed, "x"));
  for (int i = 2; i < 4; ++i) lenient.Count(Ended(i, TrialState::kCompleted));
  EXPECT_FALSE(lenient.Exhausted());  // 2 of 4 < 0.75
  FailureBudget unlimited(std::nullopt);
  for (int i = 0; i < 5; ++i) unlimited.Count(Ended(i, TrialState::kFailed, "x"));
  EXPECT_FALSE(unlimited.Exhausted());
}

TEST_F(RunnerTest, MaxFailuresStopsLaunchingAndLetsRunningTrialsFinish) {
  // Every trial fails at once (like an import error), except trial 1, which waits until
  // three have failed and then succeeds: it must be allowed to finish after the limit
  // is reached, while the other slot runs the failing trials one after another.
  auto config = Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 2}
max_failures: 3
shell: true
command: 'if [ {{trial.number}} = 1 ]; then i=0; while [ $(ls {{config_dir}} | grep -c "^fail") -lt 3 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo "{\"score\": 1}" >> "$GPUSWEEP_METRICS"; else touch {{config_dir}}/fail.{{trial.number}}; echo "ModuleNotFoundError: torch" >&2; exit 1; fi'
sampler: {type: random, trials: 20, seed: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
)");
  auto outcome = Run(config);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kTooManyFailures);
  EXPECT_EQ(ExitCodeFor(outcome.error().code), 1);
  EXPECT_THAT(outcome.error().message, HasSubstr("(max_failures: 3)"));
  EXPECT_THAT(outcome.error().message, HasSubstr("exit code 1"));
  auto journal = OpenReadOnly();
  auto trials = journal->LoadTrials();
  ASSERT_TRUE(trials);
  int failed = 0;
  for (const TrialRecord& trial : *trials) {
    if (trial.number == 1) EXPECT_EQ(trial.state, TrialState::kCompleted);
    else EXPECT_EQ(trial.state, TrialState::kFailed);
    failed += trial.state == TrialState::kFailed ? 1 : 0;
  }
  EXPECT_EQ(failed, 3);  // with 2 slots, the third failure came before any more started
  EXPECT_EQ(trials->size(), 4u);
}

}  // namespace
}  // namespace gpusweep
