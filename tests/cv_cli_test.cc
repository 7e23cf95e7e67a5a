// End-to-end: cross-validation (cv: {folds: k}) with the real binary and real trial
// processes: what folds see, what status/best/export say, resume after Ctrl-C, and a
// configuration stopped by ASHA stopping all its running folds.
#include <signal.h>

#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "cli_harness.h"

namespace gpusweep {
namespace {

using testing::RunGpusweep;
using testing::StartGpusweep;
using testing::WaitExit;
using testing::WaitUntil;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(CliTest, CrossValidatedSweepJudgesConfigurationsByTheirFoldsMean) {
  // score = 10 x + fold; configuration 2 (x = 3) fails on fold 1, so its lucky fold 2
  // (32, the best single trial) cannot make it the best configuration.
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "$GPUSWEEP_FOLD/$GPUSWEEP_FOLDS/$GPUSWEEP_CONFIGURATION" > fold.txt;
  if [ {{x}} = 3 ] && [ {{fold}} = 1 ]; then echo "fold {{fold}} of {{folds}} broke" >&2; exit 3; fi;
  echo "{\"score\": $(( {{x}} * 10 + {{fold}} ))}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3]}
cv: {folds: 3}
resources: {gpus: none, cpu_slots: 2}
)");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(run.exit_code, 2) << run.out;
  EXPECT_TRUE(Contains(run.out, "Top 2 of 2 configurations by the mean score over 3 folds")) << run.out;
  ASSERT_EQ(Trials().size(), 9u);
  EXPECT_EQ(ReadFile(exp() / "trials/0005/fold.txt"), "2/3/1\n");
  EXPECT_EQ(ReadFile(exp() / "trials/0003/params.json"), ReadFile(exp() / "trials/0005/params.json"));

  auto best = RunGpusweep({"best"}, dir_.path());
  EXPECT_EQ(best.exit_code, 0) << best.out;
  EXPECT_TRUE(Contains(best.out, "Best configuration 1 of e2e")) << best.out;
  EXPECT_TRUE(Contains(best.out, "score = 21 ± 1 (n=3) (max)")) << best.out;
  EXPECT_TRUE(Contains(best.out, "Folds      0: 20, 1: 21, 2: 22")) << best.out;

  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_TRUE(Contains(status.out, "3-fold cross-validation: 3 configurations recorded, 2 completed, 1 failed,"))
      << status.out;
  EXPECT_TRUE(Contains(status.out, "fold 1 failed (exit code 3")) << status.out;

  auto show = RunGpusweep({"show", "4"}, dir_.path());
  EXPECT_TRUE(Contains(show.out, "Fold       1 of 3 (0..2) of configuration 1 (trials 3..5)"))
      << show.out;
  EXPECT_TRUE(Contains(show.out, "completed, score = 21 ± 1 (n=3) over its folds")) << show.out;

  auto csv = RunGpusweep({"export", "--format", "csv"}, dir_.path());
  EXPECT_TRUE(Contains(csv.out, "trial,configuration,fold,state")) << csv.out;
  EXPECT_TRUE(Contains(csv.out, "\r\n4,1,1,completed,1,0,21.0,completed,21.0,1.0,")) << csv.out;
}

TEST_F(CliTest, ResumeKeepsFinishedFoldsAndRunsOnlyTheMissingOnes) {
  // Trial 4 (configuration 1, fold 1) hangs on its first attempt; Ctrl-C stops the run.
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'if [ "$GPUSWEEP_TRIAL_ID" = 4 ] && [ "$GPUSWEEP_ATTEMPT" = 1 ]; then
  touch ../../hanging; sleep 300; fi; echo "{\"score\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2]}
cv: {folds: 3}
resources: {gpus: none, cpu_slots: 1}
kill_grace: 1s
)");
  pid_t gpusweep = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "run.log");
  ASSERT_TRUE(WaitUntil(60, [&] { return std::filesystem::exists(exp() / "hanging"); }))
      << ReadFile(dir_.path() / "run.log");
  ASSERT_EQ(kill(gpusweep, SIGINT), 0);
  EXPECT_EQ(WaitExit(gpusweep), 130) << ReadFile(dir_.path() / "run.log");
  const std::vector<TrialRecord> before = Trials();
  ASSERT_EQ(before.size(), 5u);
  EXPECT_EQ(before[4].state, TrialState::kInterrupted);

  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(resumed.exit_code, 0) << resumed.out;
  const std::vector<TrialRecord> after = Trials();
  ASSERT_EQ(after.size(), 6u);
  for (int t = 0; t < 4; ++t) {  // finished folds are kept, not rerun
    EXPECT_EQ(after[t].attempt, 1) << t;
    EXPECT_EQ(after[t].start_time, before[t].start_time) << t;
  }
  EXPECT_EQ(after[4].attempt, 2);
  EXPECT_EQ(after[4].state, TrialState::kCompleted);
  EXPECT_EQ(after[5].attempt, 1);
  auto best = RunGpusweep({"best"}, dir_.path());
  EXPECT_TRUE(Contains(best.out, "Best configuration 1 of e2e")) << best.out;
}

TEST_F(CliTest, AshaStopsAConfigurationAndAllItsRunningFolds) {
  // Configuration 0 (x = 2) runs first; configuration 1 (x = 1) ranks below it at
  // epoch 1, so both its folds, each waiting before epoch 2, are stopped together.
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"epoch\": 1, \"score\": {{x}}}" >> "$GPUSWEEP_METRICS";
  if [ {{x}} = 1 ]; then sleep 300; fi; echo "{\"epoch\": 2, \"score\": {{x}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: score, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [2, 1]}
cv: {folds: 2}
scheduler: {type: asha, resource: epoch, min_resource: 1, max_resource: 2, reduction_factor: 2}
resources: {gpus: none, cpu_slots: 2}
kill_grace: 1s
)");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(run.exit_code, 0) << run.out;
  const std::vector<TrialRecord> trials = Trials();
  ASSERT_EQ(trials.size(), 4u);
  EXPECT_EQ(trials[0].state, TrialState::kCompleted);
  EXPECT_EQ(trials[1].state, TrialState::kCompleted);
  for (int t : {2, 3}) {
    EXPECT_EQ(trials[t].state, TrialState::kPruned) << t << ": " << trials[t].failure_reason;
    EXPECT_TRUE(Contains(trials[t].failure_reason, "rank 2 of 2 at rung 0")) << trials[t].failure_reason;
  }
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_TRUE(Contains(status.out, "pruned")) << status.out;
}

}  // namespace
}  // namespace gpusweep
