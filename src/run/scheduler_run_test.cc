// Runs with a scheduler, real processes and a fake GPU inventory: pruning of iterative
// trials, promotions of budgeted ones, and the journaled decisions.
#include <signal.h>

#include <map>
#include <set>

#include "run/runner_test_fixture.h"

namespace gpusweep {
namespace {

const char* kHeader = R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 1}
kill_grace: 0.5s
)";

std::optional<double> PruneTime(Journal& journal, int trial) {
  auto events = journal.LoadSchedulerEvents(trial);
  EXPECT_TRUE(events);
  for (const SchedulerEventRecord& event : *events)
    if (event.kind == "report" && event.detail.contains("decision") &&
        event.detail["decision"]["verdict"] == "stop")
      return event.time;
  return std::nullopt;
}

// Trial 1 reports a bad first epoch and then ignores SIGTERM: ASHA stops it at rung 0,
// SIGKILL follows the grace period, and the only GPU goes to trial 2 at once.
TEST_F(RunnerTest, AshaPrunesABadIterativeTrialAndHandsItsGpuOn) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, '{{cmd}}']
sampler: {type: grid}
scheduler: {type: asha, resource: epoch, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  cmd:
    type: choice
    values:
      - 'for e in 1 2 3 4; do echo "{\"epoch\": $e, \"score\": 1$e}" >> $GPUSWEEP_METRICS; done'
      - 'trap "" TERM; echo "{\"epoch\": 1, \"score\": 1}" >> $GPUSWEEP_METRICS; sleep 30'
      - 'for e in 1 2 3 4; do echo "{\"epoch\": $e, \"score\": 2$e}" >> $GPUSWEEP_METRICS; done'
)");
  auto outcome = Run(config, /*gpus=*/1);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& t = outcome->trials;
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].state, TrialState::kCompleted) << t[0].failure_reason;
  EXPECT_EQ(t[2].state, TrialState::kCompleted) << t[2].failure_reason;
  EXPECT_EQ(t[1].state, TrialState::kPruned);
  EXPECT_EQ(t[1].objective, 1.0);
  EXPECT_EQ(t[1].term_signal, SIGKILL);
  EXPECT_NE(t[1].failure_reason.find("pruned: rank 2 of 2 at rung 0"), std::string::npos)
      << t[1].failure_reason;
  EXPECT_EQ(observer_.pruned, std::vector<int>{1});

  auto journal = OpenReadOnly();
  const std::optional<double> pruned_at = PruneTime(*journal, 1);
  ASSERT_TRUE(pruned_at);
  const double grace = 0.5;
  EXPECT_LT(t[1].end_time - *pruned_at, grace + 1.0);   // its processes are gone
  EXPECT_EQ(t[2].gpus, t[1].gpus);
  EXPECT_LT(t[2].start_time - *pruned_at, grace + 1.0);  // and its GPU is in use again
}

TEST_F(RunnerTest, MedianRuleStopsATrialBelowTheOthersRunningAverages) {
  auto config = Config(std::string(kHeader) + R"(
shell: true
command: 'for e in 1 2 3; do echo "{\"epoch\": $e, \"score\": "{{level}}"$e}" >> $GPUSWEEP_METRICS; sleep 0.05; done'
sampler: {type: grid}
scheduler: {type: median, resource: epoch, grace_steps: 1, min_trials: 2, max_resource: 3}
search_space:
  level: {type: choice, values: [5, 6, 1, 7]}
)");
  auto outcome = Run(config, /*gpus=*/0);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& t = outcome->trials;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[2].state, TrialState::kPruned) << t[2].failure_reason;
  for (int i : {0, 1, 3}) EXPECT_EQ(t[i].state, TrialState::kCompleted) << i;
}

// Budgeted trials read {{budget}}: synchronous successive halving runs 4 -> 2 -> 1 with
// budgets 1, 2, 4, in the same trial directory, and journals every job.
TEST_F(RunnerTest, SuccessiveHalvingPromotesBudgetedTrialsInRounds) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, 'echo "{\"epoch\": $2, \"score\": $(($1 * $2))}" >> $GPUSWEEP_METRICS; echo $2 >> budgets.txt', sh, "{{x}}", "{{budget}}"]
sampler: {type: grid}
scheduler: {type: successive_halving, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  x: {type: choice, values: [3, 1, 4, 2]}
)");
  auto outcome = Run(config, /*gpus=*/0);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& t = outcome->trials;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[2].state, TrialState::kCompleted) << t[2].failure_reason;  // x = 4 wins
  EXPECT_EQ(t[2].objective, 16.0);
  EXPECT_EQ(t[2].budget, 4.0);
  EXPECT_EQ(t[0].state, TrialState::kPruned);  // x = 3 survives round 0, not round 1
  EXPECT_EQ(t[0].budget, 2.0);
  EXPECT_EQ(t[1].state, TrialState::kPruned);
  EXPECT_EQ(t[1].budget, 1.0);
  EXPECT_NE(t[1].failure_reason.find("rank 4 of 4 in round 0"), std::string::npos)
      << t[1].failure_reason;
  // Eliminated when round 0 ended, not only when the whole run did.
  auto when = [&](int trial, TrialState state) {
    for (std::size_t i = 0; i < observer_.finished.size(); ++i)
      if (observer_.finished[i].number == trial && observer_.finished[i].state == state) return i;
    return observer_.finished.size();
  };
  EXPECT_LT(when(1, TrialState::kPruned), when(2, TrialState::kCompleted));
  EXPECT_EQ(ReadFile(experiment_dir() / "trials/0002/budgets.txt"), "1\n2\n4\n");
  EXPECT_TRUE(std::filesystem::exists(experiment_dir() / "trials/0002/output.attempt2.log"));

  auto journal = OpenReadOnly();
  auto events = journal->LoadSchedulerEvents();
  ASSERT_TRUE(events);
  std::map<double, int> jobs_per_budget;
  for (const SchedulerEventRecord& event : *events)
    if (event.kind == "job_started") ++jobs_per_budget[event.detail["job"]["budget"].get<double>()];
  EXPECT_EQ(jobs_per_budget, (std::map<double, int>{{1, 4}, {2, 2}, {4, 1}}));
}

// Successive halving's rounds are cohorts of all trials: more trials would change the
// rounds already run, so growing the sweep is refused (a random sweep may grow).
TEST_F(RunnerTest, GrowingASuccessiveHalvingSweepIsRefused) {
  const std::string body = R"(
command: [/bin/sh, -c, 'echo "{\"epoch\": $2, \"score\": $(($1 * $2))}" >> $GPUSWEEP_METRICS', sh, "{{x}}", "{{budget}}"]
scheduler: {type: successive_halving, min_resource: 1, max_resource: 2, reduction_factor: 2}
search_space:
  x: {type: int, low: 1, high: 9}
)";
  auto first = Run(Config(std::string(kHeader) + "sampler: {type: random, trials: 4, seed: 1}" +
                          body));
  ASSERT_TRUE(first) << first.error().message;
  auto grown = Run(Config(std::string(kHeader) + "sampler: {type: random, trials: 6, seed: 1}" +
                          body));
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.error().code, ErrorCode::kConfigChanged);
  EXPECT_NE(grown.error().message.find("sampler.trials (4 -> 6)"), std::string::npos)
      << grown.error().message;
}

// TPE learns from pruned trials (their last value) and running ones (constant liar);
// a resumed run reuses each trial's recorded params instead of suggesting again.
TEST_F(RunnerTest, TpeWorksUnderAshaAndKeepsRecordedParamsOnResume) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, 'for e in 1 2 3 4; do echo "{\"epoch\": $e, \"score\": $(( $e * (100 - ($1 - 7) * ($1 - 7)) ))}" >> $GPUSWEEP_METRICS; done', sh, "{{x}}"]
sampler: {type: tpe, trials: 24, seed: 3, n_startup_trials: 6}
scheduler: {type: asha, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  x: {type: int, low: 0, high: 20}
)");
  auto outcome = Run(config, /*gpus=*/0);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 24u);
  int pruned = 0, near_optimum_late = 0;
  for (const TrialRecord& t : outcome->trials) {
    pruned += t.state == TrialState::kPruned;
    const int x = t.params["x"].get<int>();
    if (t.number >= 12 && std::abs(x - 7) <= 3) ++near_optimum_late;
  }
  EXPECT_GT(pruned, 0);
  EXPECT_GE(near_optimum_late, 6) << "of 12; random would put about 4 there";
  // Resuming the finished experiment changes nothing: params stay as recorded.
  auto again = Run(config, /*gpus=*/0);
  ASSERT_TRUE(again) << again.error().message;
  for (std::size_t i = 0; i < again->trials.size(); ++i)
    EXPECT_EQ(again->trials[i].params, outcome->trials[i].params);
  EXPECT_EQ(observer_.started.size(), 0u);
}

TEST_F(RunnerTest, BudgetWithoutASchedulerIsExplained) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/echo, '{{budget}}']
sampler: {type: grid}
)");
  auto outcome = Run(config);
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("{{budget}} is set by a scheduler"), std::string::npos)
      << outcome.error().message;
}

TEST_F(RunnerTest, BudgetedMedianNeedsMaxResourceAndBudgetIsNotAParamName) {
  auto median = Config(std::string(kHeader) + R"(
command: [/bin/echo, '{{budget}}']
sampler: {type: grid}
scheduler: median
)");
  auto outcome = Run(median);
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("scheduler.max_resource"), std::string::npos)
      << outcome.error().message;
  auto shadowed = Config(std::string(kHeader) + R"(
command: [/bin/echo, '{{budget}}']
sampler: {type: grid}
scheduler: {type: asha, max_resource: 4}
search_space:
  budget: 100
)");
  outcome = Run(shadowed);
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("sweep.yaml:11: search_space.budget"), std::string::npos)
      << outcome.error().message;
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
}

// Lines without the metric (a separate training-loss line) are not results at a step;
// a trial that never reports both on one line gets one warning.
TEST_F(RunnerTest, SchedulerJudgesOnlyLinesWithResourceAndMetric) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, 'for e in 1 2 3 4; do echo "{\"epoch\": $e, \"loss\": 1}" >> $GPUSWEEP_METRICS; echo "{\"epoch\": $e, \"score\": $(($1 * $e))}" >> $GPUSWEEP_METRICS; done', sh, "{{x}}"]
sampler: {type: grid}
scheduler: {type: asha, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  x: {type: choice, values: [1, 3, 2]}
)");
  auto outcome = Run(config, /*gpus=*/0);
  ASSERT_TRUE(outcome) << outcome.error().message;
  const auto& t = outcome->trials;
  EXPECT_EQ(t[1].state, TrialState::kCompleted);  // x = 3 is best at every rung
  EXPECT_TRUE(observer_.warnings.size() <= 1u);
  for (const std::string& warning : observer_.warnings)
    EXPECT_EQ(warning.find("could not judge"), std::string::npos) << warning;

  auto typo = Config(std::string(kHeader) + R"(
command: [/bin/sh, -c, 'echo "{\"epoch\": 1, \"score\": 1}" >> $GPUSWEEP_METRICS']
sampler: {type: grid, repeats: 2}
scheduler: {type: asha, resource: step, max_resource: 4}
)");
  std::filesystem::remove_all(experiment_dir());
  outcome = Run(typo, /*gpus=*/0);
  ASSERT_TRUE(outcome) << outcome.error().message;
  int judged_warnings = 0;
  for (const std::string& warning : observer_.warnings)
    judged_warnings += warning.find("never reported 'step' and 'score'") != std::string::npos;
  EXPECT_EQ(judged_warnings, 1);
}

TEST_F(RunnerTest, SuccessiveHalvingNeedsBudgetedTrials) {
  auto config = Config(std::string(kHeader) + R"(
command: [/bin/echo, '{{x}}']
sampler: {type: grid}
scheduler: {type: successive_halving, max_resource: 4}
search_space:
  x: {type: choice, values: [1, 2]}
)");
  auto outcome = Run(config);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::kInvalidConfig);
  EXPECT_NE(outcome.error().message.find("{{budget}}"), std::string::npos)
      << outcome.error().message;
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));
}

}  // namespace
}  // namespace gpusweep
