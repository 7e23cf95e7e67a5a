// End-to-end NAS (docs/nas.md): the gpusweep binary runs the tournament with real trial
// processes; dry run, failing and SIGKILLed evaluations, kill -9 mid-round and resume.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_fixture.h"
#include "cli_harness.h"
#include "common/temp_dir_for_tests.h"
#include "gpusweep/journal.h"
#include "gpusweep/report.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

using testing::LiveTrialProcesses;
using testing::RunGpusweep;
using testing::StartGpusweep;
using testing::WaitExit;
using testing::WaitUntil;

// 5 topologies (depth 4, width 1): rounds 5 -> 3 -> 2 -> 1 with one sample per survivor,
// one winner sample, a confirm, a retrain: 5 + 3 + 2 + 1 + 1 + 1 = 13 evaluations.
constexpr std::string_view kSmallNas = R"(
nas:
  depth: 4
  width: 1
  operations:
    conv: {filters: [8, 16], kernel: [1, 3]}
    pooling: {pool: [avg, max]}
  samples_per_round: 1
  winner_samples: 1
  data_size: {init: 100, step: 100}
  confirm: {data_size: 1000}
  seed: 3
)";

// A score that is a function of the evaluation's params, so two runs of the same plan
// can be compared: (3 x topology + trial) mod 10, as 0.<digit>.
constexpr std::string_view kScoreScript =
    R"(echo "{\"acc\": 0.$(( ({{nas_topology}} * 3 + {{trial.number}}) % 10 ))1}" >> "$GPUSWEEP_METRICS")";

std::string ParamsByTrial(const std::vector<TrialRecord>& trials) {
  std::string out;
  for (const TrialRecord& t : trials) out += fmt::format("{}: {}\n", t.number, t.params.dump());
  return out;
}

TEST_F(CliTest, NasDryRunShowsTheWholeStagePlan) {
  Write("name: e2e\ncommand: [python3, train.py]\nmetric: {name: acc, mode: max}\n"
        "resources: {gpus: none, cpu_slots: 2}\n" +
        std::string(kSmallNas) + "  dry_run: true\n  blocks: 2\n");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::filesystem::path dry = dir_.path() / "runs" / "e2e-dry-run";
  ASSERT_TRUE(std::filesystem::exists(dry / "gpusweep.db"));
  auto journal = OpenJournal(dry / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  auto trials = (*journal)->LoadTrials();
  ASSERT_TRUE(trials);
  ASSERT_EQ(trials->size(), 2u * 12 + 1);
  for (const TrialRecord& t : *trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    EXPECT_EQ(t.objective, t.params["nas_dry_score"].get<double>());
  }
  auto status = RunGpusweep({"status", dry.string()}, dir_.path());
  ASSERT_EQ(status.exit_code, 0) << status.out;
  for (const char* expected :
       {"NAS (tournament, elimination history_best): 5 topologies, 25 evaluations planned",
        "block 1: round 3, survivors [", "eliminated in round 1 with history_best",
        "block 2 round 2 ", "data 200, epochs 1", "block 1 confirm   1/1 done, data 1000, epochs 3",
        "block 2 retrain   1/1 done, data all, epochs 10", "retrain: "})
    EXPECT_NE(status.out.find(expected), std::string::npos) << expected << "\n" << status.out;
  auto show = RunGpusweep({"show", "24", dry.string()}, dir_.path());
  // The architecture under the names status and export give it (docs/nas.md).
  EXPECT_NE(show.out.find("architecture.schema = 1\n  architecture.blocks = [{\"adjacency\""),
            std::string::npos)
      << show.out;
  // Its scheduler decisions say where in the plan it ran, not a budget it has none of.
  EXPECT_NE(show.out.find("started: runs retrain (data all, epochs 10)"), std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find("budget 0"), std::string::npos) << show.out;
  EXPECT_EQ(show.out.find("rung 0"), std::string::npos) << show.out;
  auto round2 = RunGpusweep({"show", "6", dry.string()}, dir_.path());
  EXPECT_NE(round2.out.find("started: runs block 1, round 2 (data 200, epochs 1)"),
            std::string::npos)
      << round2.out;
  EXPECT_EQ(round2.out.find("budget 0"), std::string::npos) << round2.out;
  // The dashboard's trial pages (here inside `report`'s file) print the same lines.
  auto report = RunGpusweep({"report", dry.string(), "-o", "report.html"}, dir_.path());
  ASSERT_EQ(report.exit_code, 0) << report.out;
  const std::string page = ReadFile(dir_.path() / "report.html");
  EXPECT_NE(page.find("started: runs block 1, round 2 (data 200, epochs 1)"), std::string::npos);
  EXPECT_EQ(page.find("budget 0 (rung 0)"), std::string::npos);
  auto exported = RunGpusweep({"export", "--format", "json", dry.string()}, dir_.path());
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  const Json json = Json::parse(exported.out);
  EXPECT_EQ(json["trials"].size(), 25u);
  EXPECT_EQ(json["nas"]["stages"].size(), 2u * 5 + 1);
  EXPECT_EQ(json["nas"]["stages"][0]["data_size"], 100);
  EXPECT_EQ(json["nas"]["stages"][5]["data_size"], 100);  // block 2 round 1: reset
  EXPECT_EQ(json["nas"]["blocks"][0]["eliminated"].size(), 4u);
}

// A dry run's scores are random, so the highest is a search evaluation on 100 to 300
// images; the search's result is still the retrain, and best, status and the run
// summary name it with its stage.
TEST_F(CliTest, NasBestIsTheRetrainNotTheHighestSearchEvaluation) {
  Write("name: e2e\ncommand: [python3, train.py]\nmetric: {name: acc, mode: max}\n"
        "resources: {gpus: none, cpu_slots: 2}\n" +
        std::string(kSmallNas) + "  dry_run: true\n");
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const std::filesystem::path dry = dir_.path() / "runs" / "e2e-dry-run";
  auto journal = OpenJournal(dry / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  const auto trials = (*journal)->LoadTrials().value_or(std::vector<TrialRecord>{});
  ASSERT_EQ(trials.size(), 13u);
  const auto ranked = RankTrials(trials, MetricSpec{"acc", Mode::kMax});
  ASSERT_FALSE(ranked.empty());
  ASSERT_NE(ranked.front()->params["nas_stage"], "retrain");  // the case this test is about
  ASSERT_EQ(trials.back().params["nas_stage"], "retrain");
  const std::string retrain = fmt::format("trial #{}", trials.back().number);

  auto best = RunGpusweep({"best", dry.string()}, dir_.path());
  ASSERT_EQ(best.exit_code, 0) << best.out;
  EXPECT_NE(best.out.find("Result of e2e-dry-run: " + retrain + ", the retrain"),
            std::string::npos) << best.out;
  EXPECT_NE(best.out.find("nas_stage = retrain\n"), std::string::npos) << best.out;
  auto status = RunGpusweep({"status", dry.string()}, dir_.path());
  EXPECT_NE(status.out.find(retrain + ", retrain\n"), std::string::npos) << status.out;
  EXPECT_NE(run.out.find("Result: acc="), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(retrain + ", retrain\n"), std::string::npos) << run.out;
}

TEST_F(CliTest, NasFailingAndKilledEvaluationsScoreZeroAndTheSearchGoesOn) {
  Write("name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
        "command: [/bin/sh, -c, 'case {{trial.number}} in 1) echo boom; exit 3;; "
        "2) kill -9 $$;; esac; echo \"{\\\"acc\\\": 0.5}\" >> "
        "\"$GPUSWEEP_METRICS\"']\n" +
        std::string(kSmallNas));
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto trials = Trials();
  ASSERT_EQ(trials.size(), 13u);
  EXPECT_EQ(trials[1].state, TrialState::kFailed);
  EXPECT_NE(trials[1].failure_reason.find("exit code 3: boom"), std::string::npos)
      << trials[1].failure_reason;
  EXPECT_EQ(trials[2].state, TrialState::kFailed);
  EXPECT_NE(trials[2].failure_reason.find("SIGKILL"), std::string::npos) << trials[2].failure_reason;
  // Trials 1 and 2 evaluated topologies 1 and 2 (round 1 goes in pool order): scored 0,
  // they are the two of five eliminated in round 1.
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("topology 2 eliminated in round 1 with history_best 0\n"),
            std::string::npos) << status.out;
  EXPECT_NE(status.out.find("topology 1 eliminated in round 1 with history_best 0\n"),
            std::string::npos) << status.out;
  EXPECT_NE(status.out.find("block 1 round 1   5/5 done (2 failed)"), std::string::npos)
      << status.out;
  EXPECT_EQ(trials.back().state, TrialState::kCompleted);  // the retrain ran
}

// docs/nas.md, "Constraints": each evaluation reports acc = 0.1, 0.3, ... 0.9 and
// size_k = 0, 10, ... 40 by topology; size_k <= 25 makes topologies 3 and 4, the two
// best by acc, infeasible (by 5 and 15), so round 1 eliminates them and topology 2 wins
// (without the constraint topology 4 would). The retrain reports size_k = 99: the
// result breaks the constraint, and status and best say so. status and export say why.
TEST_F(CliTest, NasInfeasibleTopologiesRankBelowFeasibleOnesAndStatusSaysWhy) {
  Write(std::string(R"(name: e2e
metric: {name: acc, mode: max}
constraints: [{metric: size_k, max: 25}]
resources: {gpus: none, cpu_slots: 2}
command: [/bin/sh, -c, 't={{nas_topology}}; s=$((t * 10)); [ "$t" -lt 0 ] && t=0 && s=99; echo "{\"acc\": 0.$((t * 2 + 1)), \"size_k\": $s}" >> "$GPUSWEEP_METRICS"']
)") + std::string(kSmallNas));
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  const auto trials = Trials();
  ASSERT_EQ(trials.size(), 13u);
  auto status = RunGpusweep({"status"}, dir_.path());
  ASSERT_EQ(status.exit_code, 0) << status.out;
  for (const char* expected :
       {"topology 3 eliminated in round 1 with history_best 0.7, infeasible: violation 5\n",
        "topology 4 eliminated in round 1 with history_best 0.9, infeasible: violation 15\n",
        "winner topology 2", "block 1 round 1   5/5 done (2 infeasible)",
        "block 1 retrain   1/1 done (1 infeasible), data all, epochs 10, cost 0s\n",
        "retrain: 0.1, infeasible: violation 74\n",
        "Best       acc=0.1 (max) trial #12, retrain, infeasible (violation 74)\n",
        "Infeasible: 3 of 13 completed trials break a constraint"})
    EXPECT_NE(status.out.find(expected), std::string::npos) << expected << "\n" << status.out;
  auto exported = RunGpusweep({"export", "--format", "json"}, dir_.path());
  ASSERT_EQ(exported.exit_code, 0) << exported.out;
  const Json nas = Json::parse(exported.out)["nas"];
  const Json& eliminated = nas["blocks"][0]["eliminated"];
  ASSERT_EQ(eliminated.size(), 4u) << nas.dump(1);  // 2 in round 1, 1 in round 2, 1 in round 3
  EXPECT_EQ(eliminated[0]["violation"], 5.0) << nas.dump(1);
  EXPECT_EQ(eliminated[1]["violation"], 15.0) << nas.dump(1);
  EXPECT_EQ(nas["blocks"][0]["winner"], 2);
  EXPECT_EQ(nas["stages"][0]["infeasible"], 2);
  EXPECT_EQ(nas["blocks"][0]["confirm_violation"], 0.0);
  // best names the search's result (the retrain), not a front of every evaluation.
  auto best = RunGpusweep({"best"}, dir_.path());
  ASSERT_EQ(best.exit_code, 0) << best.out;
  EXPECT_NE(best.out.find("Result of e2e: trial #12, the retrain"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("\nConstraint size_k = 99 (max 25): broken by 74\n"), std::string::npos)
      << best.out;
  auto json = RunGpusweep({"best", "--json"}, dir_.path());
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.out.find("a NAS experiment's result is one trial"), std::string::npos) << json.out;
}

// docs/nas.md, "What is reproducible": every round draw is a function of the seed, the
// trial number and the results of earlier rounds, so two runs of one config propose the
// same round evaluations trial by trial. Winner refinement is asynchronous (a sample
// sees the samples finished when it starts): with 2 slots for 4 samples its proposals
// may differ between runs, and so may what follows from them (the confirmed cell in
// later architectures), but never a round's topology or code.
TEST_F(CliTest, NasRoundsProposeTheSameEvaluationsInEveryRun) {
  const std::string config =
      "name: e2e\ncommand: [python3, train.py]\nmetric: {name: acc, mode: max}\n"
      "resources: {gpus: none, cpu_slots: 2}\n"
      "nas:\n  blocks: 2\n  depth: 4\n  width: 1\n"
      "  operations: {conv: {filters: [8, 16], kernel: [1, 3]}, pooling: {pool: [avg, max]}}\n"
      "  samples_per_round: 2\n  winner_samples: 4\n  data_size: {init: 100, step: 100}\n"
      "  seed: 5\n  dry_run: true\n";
  auto trials_of_a_run = [&](const std::filesystem::path& where) {
    WriteFile(where / "sweep.yaml", config);
    auto run = RunGpusweep({"run", "sweep.yaml"}, where);
    EXPECT_EQ(run.exit_code, 0) << run.out;
    auto journal = OpenJournal(where / "runs" / "e2e-dry-run" / "gpusweep.db",
                               JournalAccess::kReadOnly);
    return journal ? (*journal)->LoadTrials().value_or(std::vector<TrialRecord>{})
                   : std::vector<TrialRecord>{};
  };
  TempDir second;
  const auto one = trials_of_a_run(dir_.path()), two = trials_of_a_run(second.path());
  ASSERT_EQ(one.size(), two.size());
  ASSERT_EQ(one.size(), 2u * (5 + 6 + 4 + 4 + 1) + 1);  // rounds 5 -> 3 -> 2, winner, confirm
  int rounds = 0;
  for (std::size_t k = 0; k < one.size(); ++k) {
    const Json &a = one[k].params, &b = two[k].params;
    EXPECT_EQ(a["nas_stage"], b["nas_stage"]) << k;  // the plan is fixed
    EXPECT_EQ(a["nas_dry_score"], b["nas_dry_score"]) << k;
    if (a["nas_stage"] != "round") continue;
    ++rounds;
    EXPECT_EQ(a["nas_topology"], b["nas_topology"]) << "trial " << k;
    EXPECT_EQ(a["nas_code"], b["nas_code"]) << "trial " << k;
    if (a["nas_block"] == 1) {  // no confirmed cell in its architecture yet
      EXPECT_EQ(a, b) << "trial " << k;
    }
  }
  EXPECT_EQ(rounds, 2 * (5 + 6 + 4));
}

// A failed evaluation's failed_score is part of the tournament's decided history: the
// messages never offer to run it again, and --retry-failed passes it by, saying why.
TEST_F(CliTest, NasFailedEvaluationsAreNeverRetriedAndTheMessagesSayWhy) {
  Write("name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 1}\n"
        "max_failures: 2\ncommand: [/bin/sh, -c, 'exit 3']\n" + std::string(kSmallNas));
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("(failed evaluations keep failed_score: the tournament decided with it; "
                         "--retry-failed reruns only a failed retrain)"),
            std::string::npos) << run.out;
  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(resumed.out.find("resuming: 2 already finished"), std::string::npos) << resumed.out;
  EXPECT_EQ(resumed.out.find("`gpusweep run --retry-failed`"), std::string::npos) << resumed.out;
  auto retry = RunGpusweep({"run", "--retry-failed", "sweep.yaml"}, dir_.path());
  // The resumed run failed two more before max_failures stopped it again.
  EXPECT_NE(retry.out.find("resuming: 4 already finished"), std::string::npos) << retry.out;
  EXPECT_NE(retry.out.find("4 failed trials from earlier runs are kept as failed all the same: "
                           "failed evaluations keep failed_score"),
            std::string::npos) << retry.out;
  EXPECT_EQ(retry.out.find("with a scheduler"), std::string::npos) << retry.out;
  const auto trials = Trials();
  ASSERT_GE(trials.size(), 2u);
  EXPECT_EQ(trials[0].attempt, 1);  // not run again
  EXPECT_EQ(trials[1].attempt, 1);
}

// The retrain is the last stage and nothing was decided with its result: a retrain that
// failed (here: a marker file; on a CPU, a timeout) runs again under --retry-failed, with
// the architecture it was given, and nothing else runs.
TEST_F(CliTest, NasFailedRetrainRunsAgainUnderRetryFailed) {
  const std::string marker = (dir_.path() / "retrain-fails").string();
  WriteFile(marker, "");
  Write("name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
        "command: [/bin/sh, -c, 'if [ \"$GPUSWEEP_NAS_STAGE\" = retrain ] && [ -e " + marker +
        " ]; then exit 4; fi; echo \"{\\\"acc\\\": 0.5}\" >> \"$GPUSWEEP_METRICS\"']\n" +
        std::string(kSmallNas));
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  auto before = Trials();
  ASSERT_EQ(before.size(), 13u);
  ASSERT_EQ(before.back().state, TrialState::kFailed);
  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(resumed.out.find("1 failed trial from earlier runs is kept as failed; "
                             "`gpusweep run --retry-failed` runs it again"),
            std::string::npos) << resumed.out;

  std::filesystem::remove(marker);
  auto retry = RunGpusweep({"run", "--retry-failed", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(retry.exit_code, 0) << retry.out;
  EXPECT_NE(retry.out.find("resuming: 12 already finished, 1 to run"), std::string::npos) << retry.out;
  const auto after = Trials();
  ASSERT_EQ(after.size(), 13u);
  for (std::size_t k = 0; k + 1 < after.size(); ++k) {
    EXPECT_EQ(after[k].attempt, before[k].attempt) << k;
    EXPECT_EQ(after[k].state, before[k].state) << k;
  }
  EXPECT_EQ(after.back().state, TrialState::kCompleted);
  EXPECT_EQ(after.back().attempt, 2);
  EXPECT_EQ(after.back().params, before.back().params);  // the same architecture
}

// The seed waits for ever on an evaluation that never ends. Here a hung evaluation is
// stopped by its timeout, scores failed_score (0), and its round and the search go on;
// without a timeout the run warns, naming the key.
TEST_F(CliTest, NasHungEvaluationIsStoppedByItsTimeoutAndTheSearchGoesOn) {
  const std::string command =
      "command: [/bin/sh, -c, 'if [ {{trial.number}} = 3 ]; then exec sleep 300; fi; echo "
      "\"{\\\"acc\\\": 0.5}\" >> \"$GPUSWEEP_METRICS\"']\n";
  Write("name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
        "timeout: 2s\nkill_grace: 1s\n" + command + std::string(kSmallNas));
  const auto started = std::chrono::steady_clock::now();
  auto run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(120));
  EXPECT_EQ(run.out.find("without timeout"), std::string::npos) << run.out;
  const auto trials = Trials();
  ASSERT_EQ(trials.size(), 13u);
  EXPECT_EQ(trials[3].state, TrialState::kFailed);
  EXPECT_NE(trials[3].failure_reason.find("timed out after 2s"), std::string::npos)
      << trials[3].failure_reason;
  auto status = RunGpusweep({"status"}, dir_.path());
  EXPECT_NE(status.out.find("topology 3 eliminated in round 1 with history_best 0\n"),
            std::string::npos) << status.out;
  EXPECT_EQ(trials.back().state, TrialState::kCompleted);  // the retrain ran

  Write("name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
        "command: [/bin/true]\n" + std::string(kSmallNas) + "  dry_run: true\n");
  auto dry = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_EQ(dry.out.find("without timeout"), std::string::npos) << dry.out;  // nothing hangs
  Write("name: e2e2\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
        "command: [/bin/sh, -c, 'exit 3']\n" + std::string(kSmallNas));
  auto warned = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  EXPECT_NE(warned.out.find("warning: sweep.yaml:7:3: nas: "), std::string::npos) << warned.out;
  EXPECT_NE(warned.out.find("a NAS experiment without timeout"), std::string::npos) << warned.out;
  EXPECT_NE(warned.out.find("add e.g. timeout: 30m"), std::string::npos) << warned.out;
}

// gpusweep is killed with -9 while round 2 runs (one of its evaluations hangs); the
// resumed run repeats no finished evaluation and ends exactly where an uninterrupted
// run of the same config ends: same params for every trial, same survivors.
TEST_F(CliTest, NasKillNineMidRoundThenResumeReachesTheSameState) {
  const std::string config =
      "name: e2e\nmetric: {name: acc, mode: max}\nresources: {gpus: none, cpu_slots: 2}\n"
      "kill_grace: 1s\n"
      "command: [/bin/sh, -c, 'echo run >> {{config_dir}}/evals-{{trial.number}}; "
      "if [ {{trial.number}} = 6 ] && [ ! -f {{config_dir}}/hung ]; then touch "
      "{{config_dir}}/hung; sleep 300; fi; " +
      std::string(kScoreScript) + "']\n" + std::string(kSmallNas);
  // The reference: the same config, never interrupted.
  TempDir reference;
  WriteFile(reference.path() / "sweep.yaml", config);
  WriteFile(reference.path() / "hung", "");  // its trial 6 does not hang
  auto whole = RunGpusweep({"run", "sweep.yaml"}, reference.path());
  ASSERT_EQ(whole.exit_code, 0) << whole.out;

  Write(config);
  pid_t first = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), dir_.path() / "first.log");
  ASSERT_TRUE(WaitUntil(60, [&] { return std::filesystem::exists(dir_.path() / "hung"); }))
      << ReadFile(dir_.path() / "first.log");
  ASSERT_EQ(kill(first, SIGKILL), 0);
  EXPECT_EQ(WaitExit(first), 128 + SIGKILL);
  EXPECT_TRUE(WaitUntil(10, [&] { return LiveTrialProcesses(exp()).empty(); }));
  const int finished_before = CountState(TrialState::kCompleted);
  EXPECT_GE(finished_before, 5);  // round 1 at least

  auto resumed = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  const auto trials = Trials();
  ASSERT_EQ(trials.size(), 13u);
  for (const TrialRecord& t : trials) {
    EXPECT_EQ(t.state, TrialState::kCompleted) << t.number << ": " << t.failure_reason;
    const std::string runs = ReadFile(dir_.path() / fmt::format("evals-{}", t.number));
    // Only what the kill cut short ran twice (the hung trial 6, maybe its round mate).
    if (t.number < 5 || t.number > 7) {
      EXPECT_EQ(runs, "run\n") << "trial " << t.number;
    }
  }
  EXPECT_EQ(ParamsByTrial(trials), ParamsByTrial([&] {
              auto journal = OpenJournal(reference.path() / "runs" / "e2e" / "gpusweep.db",
                                         JournalAccess::kReadOnly);
              return (*journal)->LoadTrials().value_or(std::vector<TrialRecord>{});
            }()));
  auto status = RunGpusweep({"status"}, dir_.path());
  auto reference_status = RunGpusweep({"status", "runs/e2e"}, reference.path());
  auto nas_part = [](const std::string& out) { return out.substr(out.find("NAS (")); };
  auto survivors = [&](const std::string& out) {
    const std::string part = nas_part(out);
    return part.substr(0, part.find("  stages:"));
  };
  EXPECT_EQ(survivors(status.out), survivors(reference_status.out));
}

}  // namespace
}  // namespace gpusweep
