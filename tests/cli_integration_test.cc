// End-to-end: the gpusweep binary with real trial processes, signals and resume.
#include <signal.h>

#include <regex>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "cli_harness.h"
#include "gpusweep/journal.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

using testing::LiveTrialProcesses;
using testing::RunGpusweep;
using testing::StartGpusweep;
using testing::WaitExit;
using testing::WaitUntil;

TEST_F(CliTest, ConfigErrorExitsTwoWithLocationAndStartsNothing) {
  Write("name: e2e\ncommand: [echo]\nmetric: {name: x, mode: maxx}\n"
        "sampler: {type: grid}\nsearch_space: {}\n");
  auto result = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(result.exit_code, 2) << result.out;
  EXPECT_NE(result.out.find("sweep.yaml:3:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("metric.mode"), std::string::npos) << result.out;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "runs"));
}

TEST_F(CliTest, CompletedSweepIsReadableByEveryCommand) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"epoch\": 1, \"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"; echo hello-from-{{a}}']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: choice, values: [0.5, 0.9, 0.7]}
  net: {type: constant, value: {bn: true}}
resources: {cpu_slots: 2}
)");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("trial 1 completed"), std::string::npos) << run.out;

  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_NE(status.out.find("completed"), std::string::npos) << status.out;

  auto best = RunGpusweep({"best", "runs/e2e"}, dir_.path());
  EXPECT_EQ(best.exit_code, 0) << best.out;
  EXPECT_NE(best.out.find("0.9"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("trials/0001"), std::string::npos) << best.out;

  auto csv = RunGpusweep({"export", "--format", "csv"}, dir_.path());
  EXPECT_EQ(csv.exit_code, 0) << csv.out;
  EXPECT_NE(csv.out.find("param.net.bn"), std::string::npos) << csv.out;

  auto json = RunGpusweep({"export", "--format", "json"}, dir_.path());
  ASSERT_EQ(json.exit_code, 0) << json.out;
  Json rows = Json::parse(json.out);
  ASSERT_EQ(rows.size(), 3u);

  auto show = RunGpusweep({"show", "2"}, dir_.path());
  EXPECT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("hello-from-0.7"), std::string::npos) << show.out;

  auto bad = RunGpusweep({"show", "x7"}, dir_.path());
  EXPECT_EQ(bad.exit_code, 2) << bad.out;
  auto typo = RunGpusweep({"bset"}, dir_.path());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.out.find("unknown command 'bset'; did you mean 'best'?"), std::string::npos)
      << typo.out;
  auto dir_as_config = RunGpusweep({"run", "runs"}, dir_.path());
  EXPECT_EQ(dir_as_config.exit_code, 2) << dir_as_config.out;
}

TEST_F(CliTest, CtrlCStopsEveryTrialProcessAndExits130) {
  // Trial 0 leaves a background grandchild; trial 1 ignores SIGTERM.
  Write(R"(
name: e2e
command: [/bin/sh, -c, '{{cmd}}']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  cmd: {type: choice, values: ['sleep 300 & sleep 300', 'trap "" TERM; sleep 300', 'sleep 300']}
resources: {cpu_slots: 2}
kill_grace: 1s
)");
  pid_t gpusweep = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "run.log");
  ASSERT_TRUE(WaitUntil(20, [&] { return LiveTrialProcesses(exp()).size() >= 4; }))
      << ReadFile(dir_.path() / "run.log");
  ASSERT_EQ(kill(gpusweep, SIGINT), 0);
  EXPECT_EQ(WaitExit(gpusweep), 130) << ReadFile(dir_.path() / "run.log");
  EXPECT_TRUE(LiveTrialProcesses(exp()).empty());
  EXPECT_EQ(CountState(TrialState::kInterrupted), 2);
  EXPECT_EQ(Trials().size(), 2u);  // the queued trial never started
  EXPECT_NE(ReadFile(dir_.path() / "run.log").find("interrupted by SIGINT"), std::string::npos);
}

// A trial that handles SIGTERM by reporting what it has and exiting 0 (the pattern
// docs/protocol.md recommends) stopped early: after Ctrl-C it is interrupted, not
// completed with a partial result, and it runs again on resume.
TEST_F(CliTest, TrialThatExitsCleanlyOnCtrlCIsInterruptedNotCompleted) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'trap "echo {\"acc\": 0.1} >> $GPUSWEEP_METRICS; exit 0" TERM; echo {\"acc\": 0.05} >> $GPUSWEEP_METRICS; if [ ! -f output.attempt1.log ]; then sleep 300 & wait; fi; echo {\"acc\": 0.9} >> $GPUSWEEP_METRICS']
metric: {name: acc, mode: max}
sampler: {type: grid}
kill_grace: 5s
)");
  pid_t gpusweep = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "run.log");
  ASSERT_TRUE(WaitUntil(20, [&] {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    return journal && !(*journal)->LoadResults(0).value_or(std::vector<IntermediateResult>{}).empty();
  })) << ReadFile(dir_.path() / "run.log");
  ASSERT_EQ(kill(gpusweep, SIGINT), 0);
  EXPECT_EQ(WaitExit(gpusweep), 130) << ReadFile(dir_.path() / "run.log");
  ASSERT_EQ(Trials().size(), 1u);
  EXPECT_EQ(Trials()[0].state, TrialState::kInterrupted) << Trials()[0].failure_reason;
  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_EQ(Trials()[0].state, TrialState::kCompleted);
  EXPECT_EQ(Trials()[0].objective, 0.9);
}

TEST_F(CliTest, CtrlCStopsAStreamOfInstantTrials) {
  Write(R"(
name: e2e
command: [/bin/true]
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  i: {type: int, low: 1, high: 20000}
resources: {cpu_slots: 2}
)");
  pid_t gpusweep = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "run.log");
  ASSERT_TRUE(WaitUntil(20, [&] { return Trials().size() >= 20; }));
  ASSERT_EQ(kill(gpusweep, SIGINT), 0);
  const auto sent = std::chrono::steady_clock::now();
  EXPECT_EQ(WaitExit(gpusweep), 130) << ReadFile(dir_.path() / "run.log");
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(10));
  EXPECT_LT(Trials().size(), 20000u);
}

TEST_F(CliTest, CtrlCWhilePlanningAHugeGridStopsAtOnce) {
  Write(R"(
name: e2e
command: [/bin/true, "{{a}}", "{{b}}"]
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 3000}
  b: {type: int, low: 1, high: 3000}
)");
  pid_t gpusweep = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "run.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // 9 million trials to check
  ASSERT_EQ(kill(gpusweep, SIGINT), 0);
  const auto sent = std::chrono::steady_clock::now();
  EXPECT_EQ(WaitExit(gpusweep), 130);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(3));
  EXPECT_NE(ReadFile(dir_.path() / "run.log").find("nothing was started"), std::string::npos)
      << ReadFile(dir_.path() / "run.log");
  EXPECT_FALSE(std::filesystem::exists(exp()));
}

TEST_F(CliTest, KillNineThenResumeLosesNothingAndRunsNothingTwice) {
  // First attempts of trials 2 and 3 hang; their second attempts finish at once.
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo start >> {{config_dir}}/starts-{{trial.number}}; echo "{\"step\": 1, \"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"; if [ {{a}} -ge 3 ] && [ ! -f output.attempt1.log ]; then sleep 300; fi; echo "{\"step\": 2, \"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 4}
resources: {cpu_slots: 2}
kill_grace: 1s
)");
  pid_t first = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "first.log");
  ASSERT_TRUE(WaitUntil(20, [&] {
    return CountState(TrialState::kCompleted) == 2 && CountState(TrialState::kRunning) == 2;
  })) << ReadFile(dir_.path() / "first.log");
  // While it runs: status works, and a second run is refused without harm.
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.out.find("running"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("warning"), std::string::npos) << status.out;
  auto second = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.out.find(fmt::format("already running (pid {})", first)), std::string::npos)
      << second.out;
  // Wait until each hanging trial's step-1 report is in the journal, then kill -9.
  ASSERT_TRUE(WaitUntil(10, [&] {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    return journal && (*journal)->LoadResults(2).value_or(std::vector<IntermediateResult>{}).size() == 1 &&
           (*journal)->LoadResults(3).value_or(std::vector<IntermediateResult>{}).size() == 1;
  }));
  // A running trial's objective so far is what it last reported.
  auto running = RunGpusweep({"status"}, dir_.path());
  EXPECT_TRUE(std::regex_search(running.out, std::regex(R"(\n\s*3\s+running\s+cpu\s+\S+\s+4\s)")))
      << running.out;
  ASSERT_EQ(kill(first, SIGKILL), 0);
  EXPECT_EQ(WaitExit(first), 128 + SIGKILL);
  // The controller's guard ends its trials within kill_grace: none runs unwatched.
  EXPECT_TRUE(WaitUntil(10, [&] { return LiveTrialProcesses(exp()).empty(); }));
  auto dead = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(dead.out.find("warning: no gpusweep is running this experiment, yet 2 trials"),
            std::string::npos) << dead.out;

  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_TRUE(LiveTrialProcesses(exp()).empty());
  auto trials = Trials();
  ASSERT_EQ(trials.size(), 4u);
  for (const TrialRecord& t : trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    EXPECT_EQ(t.attempt, t.number < 2 ? 1 : 2);
    const std::string starts = ReadFile(dir_.path() / fmt::format("starts-{}", t.number));
    EXPECT_EQ(starts, t.number < 2 ? "start\n" : "start\nstart\n");
  }
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  auto results = (*journal)->LoadResults(3);
  ASSERT_TRUE(results);
  ASSERT_EQ(results->size(), 3u);  // attempt 1's report kept beside attempt 2's two
  EXPECT_EQ((*results)[0].attempt, 1);
}

// Budgeted ASHA (rungs at budgets 1, 2, 4): the first job at budget 4 hangs and
// gpusweep is killed with -9 during it. The resume replays the scheduler's journal,
// reruns only that job and repeats no finished evaluation.
TEST_F(CliTest, KillNineMidRungThenResumeRepeatsNoFinishedEvaluation) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo {{budget}} >> {{config_dir}}/evals-{{trial.number}}; if [ {{budget}} = 4 ] && [ ! -f {{config_dir}}/hung ]; then touch {{config_dir}}/hung; sleep 300; fi; echo "{\"epoch\": {{budget}}, \"acc\": $(({{a}} * {{budget}}))}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
scheduler: {type: asha, min_resource: 1, max_resource: 4, reduction_factor: 2}
search_space:
  a: {type: int, low: 1, high: 4}
resources: {cpu_slots: 1}  # one job in flight: the kill cuts exactly one short
kill_grace: 1s
)");
  pid_t first = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "first.log");
  // The journal says "running" before the spawn (launch intent), so wait for the hung
  // job's own mark: killed before it started, the resumed run would hang instead.
  ASSERT_TRUE(WaitUntil(30, [&] {
    return std::filesystem::exists(dir_.path() / "hung");
  })) << ReadFile(dir_.path() / "first.log");
  ASSERT_EQ(kill(first, SIGKILL), 0);
  EXPECT_EQ(WaitExit(first), 128 + SIGKILL);

  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_TRUE(LiveTrialProcesses(exp()).empty());
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  auto events = (*journal)->LoadSchedulerEvents();
  ASSERT_TRUE(events);
  // One finished job per (trial, rung); the jobs the kill cut short (the hung one, and
  // any whose end had not been journaled) are the only ones run twice.
  std::set<std::pair<int, int>> finished;
  std::map<std::pair<int, int>, int> interrupted;
  for (const SchedulerEventRecord& event : *events) {
    if (!event.detail.contains("job")) continue;  // reports
    const auto key = std::make_pair(event.trial, event.detail["job"]["rung"].get<int>());
    if (event.kind == "job_interrupted") ++interrupted[key];
    if (event.kind == "job_finished") {
      EXPECT_TRUE(finished.insert(key).second) << "trial " << key.first << " rung " << key.second;
    }
  }
  int completed = 0;
  for (const TrialRecord& t : Trials()) {
    completed += t.state == TrialState::kCompleted;
    EXPECT_TRUE(t.state == TrialState::kCompleted || t.state == TrialState::kPruned)
        << t.number << ": " << ToString(t.state) << " " << t.failure_reason;
    const std::string evals = ReadFile(dir_.path() / fmt::format("evals-{}", t.number));
    for (int rung : {0, 1, 2}) {
      const std::string budget = fmt::format("{}\n", 1 << rung);
      int runs = 0;
      for (auto at = evals.find(budget); at != std::string::npos; at = evals.find(budget, at + 1))
        ++runs;
      const int cut_short = interrupted[std::make_pair(t.number, rung)];
      EXPECT_EQ(runs, finished.count({t.number, rung}) + cut_short)
          << "trial " << t.number << " at budget " << (1 << rung) << ": " << evals;
      EXPECT_LE(cut_short, 1);
    }
  }
  EXPECT_GE(completed, 1);
  int hung_reruns = 0;
  for (const TrialRecord& t : Trials())
    hung_reruns += interrupted[std::make_pair(t.number, 2)];
  EXPECT_EQ(hung_reruns, 1);  // the budget-4 job that hung when gpusweep was killed
}

}  // namespace
}  // namespace gpusweep
