// End-to-end: what a trial learns from gpusweep (the verdict at a rung, its attempt)
// and what gpusweep says about it afterwards (where it was stopped, why it failed).
#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "cli_harness.h"

namespace gpusweep {
namespace {

using testing::RunGpusweep;

// ASHA over 4 epochs (rungs at epochs 1 and 2); trials run one at a time, each worse
// than the one before, so trials 1-3 are stopped at their first rung. Every trial marks
// an epoch's file before it trains it: a trial that went on after its report would
// leave trained-2 behind.
constexpr const char* kPrunedSweep = R"(
name: e2e
command: [/usr/bin/python3, "{{config_dir}}/trial.py"]
metric: {name: acc, mode: max}
sampler: {type: grid}
scheduler: {type: asha, resource: epoch, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  a: {type: choice, values: [4, 3, 2, 1]}
resources: {cpu_slots: 1}
kill_grace: 60s
)";

constexpr const char* kEpochTrial = R"(import pathlib, sys, gpusweep
a = gpusweep.params()["a"]
for epoch in range(1, 5):
    pathlib.Path("trained-%d" % epoch).touch()
    if gpusweep.report(epoch=epoch, acc=a * epoch):
        print("told to stop at epoch %d" % epoch, flush=True)
        sys.exit(0)
)";

TEST_F(CliTest, PrunedTrialDoesNotTrainPastItsRungAndSaysWhereItStopped) {
  Write(kPrunedSweep);
  WriteFile(dir_.path() / "trial.py", kEpochTrial);
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  for (const TrialRecord& t : Trials()) {
    const auto trial_dir = exp() / "trials" / TrialDirName(t.number);
    if (t.number == 0) {
      EXPECT_EQ(t.state, TrialState::kCompleted) << t.failure_reason;
      EXPECT_TRUE(std::filesystem::exists(trial_dir / "trained-4"));
      continue;
    }
    EXPECT_EQ(t.state, TrialState::kPruned) << t.number << ": " << t.failure_reason;
    EXPECT_TRUE(std::filesystem::exists(trial_dir / "trained-1"));
    EXPECT_FALSE(std::filesystem::exists(trial_dir / "trained-2"))
        << "trial " << t.number << " trained past the rung where it was stopped";
    EXPECT_NE(ReadFile(trial_dir / "verdicts.jsonl").find("\"verdict\":\"stop\""),
              std::string::npos);
  }
  auto show = RunGpusweep({"show", "1"}, dir_.path());
  EXPECT_NE(show.out.find("Stopped    at epoch 1 by asha: rank 2 of 2 at rung 0 (epoch 1)"),
            std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find("exit code"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("Budget     epoch 4\n"), std::string::npos) << show.out;
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("rank 3 of 3 at rung 0 (epoch 1)"), std::string::npos) << status.out;
}

// A trial that only appends lines (no helper, never reads verdicts.jsonl) is still
// stopped by SIGTERM and recorded with where it was stopped.
TEST_F(CliTest, TrialThatOnlyAppendsLinesIsStillPrunedBySignal) {
  std::string yaml = kPrunedSweep;
  yaml.replace(yaml.find("command:"), yaml.find('\n', yaml.find("command:")) - yaml.find("command:"),
               R"(command: [/bin/sh, -c, 'for e in 1 2 3 4; do echo "{\"epoch\": $e, \"acc\": $(({{a}} * e))}" >> "$GPUSWEEP_METRICS"; sleep 0.5; done'])");
  yaml.replace(yaml.find("values: [4, 3, 2, 1]"), 20, "values: [4, 3]");
  Write(yaml);
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto trials = Trials();
  ASSERT_EQ(trials.size(), 2u);
  EXPECT_EQ(trials[1].state, TrialState::kPruned) << trials[1].failure_reason;
  EXPECT_NE(trials[1].failure_reason.find("rank 2 of 2 at rung 0 (epoch 1)"), std::string::npos)
      << trials[1].failure_reason;
  EXPECT_TRUE(trials[1].term_signal.has_value());  // the shell was ended by SIGTERM
}

TEST_F(CliTest, FailedTrialLineCarriesItsLastOutputLine) {
  Write(R"y(
name: e2e
command: [/usr/bin/python3, -c, "print('loading'); raise ValueError('lr must be positive, got {{lr}}')"]
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [-1]}
)y");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(run.out.find("trial 0 failed after"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("exit code 1: ValueError: lr must be positive, got -1 (gpusweep show 0)"),
            std::string::npos)
      << run.out;
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("exit code 1: ValueError: lr must be"), std::string::npos)
      << status.out;
}

// A trial's output may hold terminal control sequences: on a terminal `show` shows
// them ("\x1b[2J"), never sends them (a cleared screen, a new window title); piped, it
// writes the output as the trial wrote it. (Failure reasons are sanitized when recorded.)
TEST_F(CliTest, ShowOnATerminalShowsControlSequencesInsteadOfObeyingThem) {
  Write(R"y(
name: e2e
command: [/bin/sh, -c, 'printf "epoch 1 \033[31mred\033[0m\r\n"; printf "boom\033[2J\033]0;pwned\007\n"; exit 1']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  lr: {type: choice, values: [1]}
)y");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(run.out.find("trial 0 failed"), std::string::npos) << run.out;
  auto shown = testing::RunGpusweepInTerminal({"show", "0"}, dir_.path());
  EXPECT_EQ(shown.exit_code, 0) << shown.out;
  EXPECT_NE(shown.out.find("epoch 1 \\x1b[31mred\\x1b[0m\\r"), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("boom\\x1b[2J\\x1b]0;pwned\\x07"), std::string::npos) << shown.out;
  for (const char* raw : {"\x1b[2J", "\x1b]0;", "\x07", "\x1b[31mred"})
    EXPECT_EQ(shown.out.find(raw), std::string::npos) << shown.out;

  auto piped = RunGpusweep({"show", "0"}, dir_.path());
  EXPECT_NE(piped.out.find("boom\x1b[2J\x1b]0;pwned\x07"), std::string::npos) << piped.out;
}

// A trial interrupted mid-run is rerun in the same directory and knows it.
TEST_F(CliTest, RerunSeesItsAttemptAndItsCheckpoint) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "attempt $GPUSWEEP_ATTEMPT" >> attempts; if [ -f checkpoint ]; then echo "{\"epoch\": 2, \"acc\": 1}" >> "$GPUSWEEP_METRICS"; else touch checkpoint; sleep 300; fi']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1]}
kill_grace: 1s
)");
  pid_t first = testing::StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "1.log");
  ASSERT_TRUE(testing::WaitUntil(60, [&] {
    return std::filesystem::exists(exp() / "trials" / "0000" / "checkpoint");
  })) << ReadFile(dir_.path() / "1.log");
  ASSERT_EQ(kill(first, SIGINT), 0);
  EXPECT_EQ(testing::WaitExit(first), 130) << ReadFile(dir_.path() / "1.log");
  auto second = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(second.exit_code, 0) << second.out;
  EXPECT_EQ(ReadFile(exp() / "trials" / "0000" / "attempts"), "attempt 1\nattempt 2\n");
  ASSERT_EQ(Trials().size(), 1u);
  EXPECT_EQ(Trials()[0].state, TrialState::kCompleted);
  EXPECT_EQ(Trials()[0].attempt, 2);
}

TEST_F(CliTest, StatusOptionsGroupsAndStepExportFromTheCommandLine) {
  Write(R"y(
name: e2e
command: [/bin/sh, -c, 'for e in 1 2; do echo "{\"epoch\": $e, \"acc\": $(({{a}} * e + {{seed}}))}" >> "$GPUSWEEP_METRICS"; done']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: choice, values: [1, 2]}
  seed: {type: choice, values: [0, 3]}
  epochs: 2
)y");
  ASSERT_EQ(RunGpusweep({"run", "sweep.yaml"}, dir_.path()).exit_code, 0);
  auto top = RunGpusweep({"status", "--sort", "acc", "--top", "1"}, dir_.path());
  EXPECT_NE(top.out.find("Showing    1 of 4 recorded trials"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("Constants  epochs=2"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("    3  completed"), std::string::npos) << top.out;  // a=2, seed=3: 7
  for (const char* rows : {"0", "-3", "two"}) {
    auto none = RunGpusweep({"status", "--top", rows}, dir_.path());
    EXPECT_EQ(none.exit_code, 2) << none.out;
    EXPECT_NE(none.out.find("gpusweep: --top: "), std::string::npos) << none.out;  // as every error
    EXPECT_NE(none.out.find("is not a number of rows >= 1; e.g. --top 10"), std::string::npos)
        << none.out;
  }
  auto typo = RunGpusweep({"status", "--sort", "sed"}, dir_.path());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.out.find("did you mean 'seed'?"), std::string::npos) << typo.out;
  const std::vector<std::vector<std::string>> typo_ignores = {
      {"status", "--group", "--ignore", "sed"}, {"best", "--ignore", "a,sed"}};
  for (const std::vector<std::string>& args : typo_ignores) {
    auto typo_ignored = RunGpusweep(args, dir_.path());
    EXPECT_EQ(typo_ignored.exit_code, 2) << typo_ignored.out;
    EXPECT_NE(typo_ignored.out.find("--ignore 'sed' is not a param of this experiment; its "
                                    "params: a, seed, epochs; did you mean 'seed'?"),
              std::string::npos)
        << typo_ignored.out;
  }
  auto groups = RunGpusweep({"status", "--group"}, dir_.path());
  EXPECT_NE(groups.out.find("5.5 ± 2.12132 (n=2)"), std::string::npos) << groups.out;
  // --ignore without --group: the Best line's groups are the names' (seed 3: a=1 5, a=2
  // 7), where it used to stop on an assertion regrouping them by seed.
  auto by_seed = RunGpusweep({"status", "--ignore", "a"}, dir_.path());
  EXPECT_EQ(by_seed.exit_code, 0) << by_seed.out;
  EXPECT_NE(by_seed.out.find("acc=6 ± 1.41421 (n=2) (max), mean of trials #1 #3"), std::string::npos)
      << by_seed.out;
  // --ignore takes one word (names joined by commas): the directory after it stays the
  // directory, where it used to be swallowed as another name.
  for (const char* command : {"status", "best"}) {
    auto ignored_then_dir = RunGpusweep({command, "--ignore", "seed,epochs", exp().string()}, dir_.path());
    EXPECT_EQ(ignored_then_dir.exit_code, 0) << ignored_then_dir.out;
  }
  // --json is the Pareto front's: refused for one metric, never a text report instead.
  auto json = RunGpusweep({"best", "--json"}, dir_.path());
  EXPECT_EQ(json.exit_code, 2) << json.out;
  EXPECT_NE(json.out.find("--json lists a Pareto front: this experiment has one metric"), std::string::npos)
      << json.out;
  auto best = RunGpusweep({"best"}, dir_.path());
  EXPECT_NE(best.out.find("acc = 5.5 ± 2.12132 (n=2) (max)"), std::string::npos) << best.out;
  auto steps = RunGpusweep({"export", "--steps"}, dir_.path());
  ASSERT_EQ(steps.exit_code, 0) << steps.out;
  EXPECT_EQ(std::count(steps.out.begin(), steps.out.end(), '\n'), 1 + 4 * 2) << steps.out;
  EXPECT_EQ(steps.out.rfind("trial,attempt,step,time,time_iso,metric.epoch,metric.acc\r\n", 0), 0u)
      << steps.out;
  auto nowhere = RunGpusweep({"export", "-o", "missing/rows.csv"}, dir_.path());
  EXPECT_EQ(nowhere.exit_code, 1) << nowhere.out;
  EXPECT_NE(nowhere.out.find("missing/rows.csv: cannot create"), std::string::npos) << nowhere.out;
  EXPECT_EQ(nowhere.out.find(".tmp."), std::string::npos) << nowhere.out;  // not our temp name
  const Json rows = Json::parse(RunGpusweep({"export", "--format", "json"}, dir_.path()).out);
  EXPECT_EQ(rows[0]["start_time_iso"].get<std::string>().back(), 'Z');
}

}  // namespace
}  // namespace gpusweep
