#include "web/live_experiment.h"

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/nas.h"
#include "web/web_test_util.h"

namespace gpusweep::web {
namespace {

using test_support::TempDir;
using testing::FakeExperiment;

std::unique_ptr<LiveExperiment> MustOpen(const std::filesystem::path& dir) {
  auto opened = LiveExperiment::Open(dir, nullptr);
  EXPECT_TRUE(opened) << opened.error().message;
  return opened ? std::move(*opened) : nullptr;
}

TEST(LiveExperimentTest, SummaryCountsStatesAndNamesTheBest) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 4);
  auto live = MustOpen(fake.dir());
  auto summary = live->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ((*summary)["counts"]["completed"], 4);
  EXPECT_EQ((*summary)["best"]["trial"], 3);  // mode max: the largest objective
  EXPECT_EQ((*summary)["params"], (Json{"lr", "opt"}));
  EXPECT_EQ((*summary)["total"], 6);
  EXPECT_EQ((*summary)["running"], false);
  EXPECT_EQ((*summary)["state"], "interrupted");  // 4 of 6 planned: the run stopped early
  EXPECT_EQ((*summary)["unfinished"], 2);
}

// A run killed with -9 leaves its lock free and its trials marked running: the
// dashboard must not call that finished (it did, from `running: false` alone).
TEST(LiveExperimentTest, ADeadRunThatLeftTrialsUnfinishedIsInterrupted) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 2);  // 2 of 4 planned trials completed
  auto live = MustOpen(fake.dir());
  auto state = [&] {
    auto summary = live->Summary();
    EXPECT_TRUE(summary) << summary.error().message;
    return summary ? std::pair((*summary)["state"].get<std::string>(), (*summary)["unfinished"].get<long>())
                   : std::pair(std::string(), -1L);
  };
  {
    auto lock = ExperimentLock::Acquire(fake.dir());
    ASSERT_TRUE(lock) << lock.error().message;
    for (int k : {2, 3}) {
      TrialRecord trial;
      trial.number = k;
      trial.start_time = 1.7e9;
      ASSERT_TRUE(fake.journal().UpsertTrial(trial));  // started, state running
    }
    EXPECT_EQ(state(), std::pair(std::string("running"), 2L));
  }  // the run dies: the kernel frees its lock, the journal still says running
  EXPECT_EQ(state(), std::pair(std::string("interrupted"), 2L));
  fake.AddTrial(2, 1);
  fake.AddTrial(3, 1);  // a resumed run finished them
  EXPECT_EQ(state(), std::pair(std::string("finished"), 0L));
}

TEST(LiveExperimentTest, ExperimentStateNamesWhatARunLeft) {
  EXPECT_EQ(ExperimentStateName(true, 3), "running");
  EXPECT_EQ(ExperimentStateName(false, 3), "interrupted");
  EXPECT_EQ(ExperimentStateName(false, 0), "finished");
}

TEST(LiveExperimentTest, ANasExperimentsSummaryHoldsItsTournament) {
  TempDir tmp;
  NasConfig config;  // the seed's space: 15 topologies
  FakeExperiment nas(tmp.path(), "nas", 0, 0, Json{{"nas", NasConfigJson(config)}});
  auto summary = MustOpen(nas.dir())->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_TRUE(summary->contains("nas")) << summary->dump();
  EXPECT_EQ((*summary)["nas"], NasProgressJson(ReplayNas(config, Mode::kMax, {})));
  EXPECT_EQ((*summary)["nas"]["topologies"], 15);

  FakeExperiment sweep(tmp.path(), "sweep", 2);
  auto plain = MustOpen(sweep.dir())->Summary();
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->contains("nas"));
}

// A NAS search's best is its result (the retrain, else the latest confirm), with its
// stage, not the highest-scoring search evaluation.
TEST(LiveExperimentTest, ANasExperimentsBestIsItsResult) {
  TempDir tmp;
  NasConfig config;
  FakeExperiment nas(tmp.path(), "nas", 0, 0, Json{{"nas", NasConfigJson(config)}});
  auto add = [&](int number, const char* stage, double value) {
    TrialRecord trial;
    trial.number = number;
    trial.params = {{"nas_stage", stage}, {"nas_block", 1}, {"nas_round", 0}};
    trial.state = TrialState::kRunning;
    ASSERT_TRUE(nas.journal().UpsertTrial(trial));
    trial.state = TrialState::kCompleted;
    trial.objective = value;
    ASSERT_TRUE(nas.journal().FinishTrial(trial, {}));
  };
  add(0, "round", 0.97);
  add(1, "confirm", 0.70);
  auto summary = MustOpen(nas.dir())->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ((*summary)["best"],
            (Json{{"trial", 1}, {"value", 0.70}, {"stage", "confirm"}, {"block", 1},
                  {"label", "confirm of block 1, the retrain has not completed"}}))
      << summary->dump();
}

Json Parsed(const Expected<std::string>& text) {
  EXPECT_TRUE(text) << text.error().message;
  return text ? Json::parse(*text) : Json();
}

TEST(LiveExperimentTest, OnlyChangedTrialsAndNewPointsTravel) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 3, 2);
  auto live = MustOpen(fake.dir());
  Json first = Parsed(live->TrialsSince(0));
  EXPECT_EQ(first["trials"].size(), 3u);
  EXPECT_EQ(first["trials"][2]["objective"], 0.2);
  Json points = Parsed(live->PointsAfter(0));
  EXPECT_EQ(points["trial"].size(), 6u);
  EXPECT_EQ(points["value"][3], 0.1);  // trial 1's second step: 0.1 * 1 * 2 / 2
  const auto revision = first["revision"].get<std::int64_t>();
  const auto cursor = points["cursor"].get<std::int64_t>();

  EXPECT_TRUE(Parsed(live->TrialsSince(revision))["trials"].empty());  // nothing changed
  EXPECT_TRUE(Parsed(live->PointsAfter(cursor))["trial"].empty());

  fake.AddTrial(3, 2);  // a run finishes another trial meanwhile
  Json next = Parsed(live->TrialsSince(revision));
  ASSERT_EQ(next["trials"].size(), 1u);
  EXPECT_EQ(next["trials"][0]["number"], 3);
  EXPECT_GT(next["revision"], revision);
  Json new_points = Parsed(live->PointsAfter(cursor));
  EXPECT_EQ(new_points["trial"], (Json{3, 3}));
  EXPECT_EQ(new_points["step"], (Json{0, 1}));
  EXPECT_GT(new_points["cursor"], cursor);
}

TEST(LiveExperimentTest, RungsComeFromTheSchedulersDecisionsAsTheyAreJournaled) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 2);
  auto live = MustOpen(fake.dir());
  EXPECT_EQ((*live->Summary())["rungs"], Json::array());
  auto decision = [](int trial, int rung, double resource) {
    return SchedulerEventRecord{0, 1.7e9, trial, "report",
                                Json{{"decision", {{"rung", rung}, {"resource", resource}}}}};
  };
  ASSERT_TRUE(fake.journal().AppendResults({}, {decision(0, 0, 1), decision(1, 1, 3),
                                               decision(1, -1, 7)}));  // -1: no rung
  EXPECT_EQ((*live->Summary())["rungs"], (Json{1, 3}));
  ASSERT_TRUE(fake.journal().AppendResults({}, {decision(0, 2, 9), decision(1, 0, 1)}));
  EXPECT_EQ((*live->Summary())["rungs"], (Json{1, 3, 9}));  // only the new events read
}

// A job run to the full budget has rung 0 however far it got; the page named that rung
// for a trial the scheduler stopped at rung 1 ("budget 9 (rung 0)").
TEST(LiveExperimentTest, TrialDetailSaysTheRungTheSchedulerLastJudgedItAt) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 2);
  auto live = MustOpen(fake.dir());
  EXPECT_TRUE((*live->TrialDetail(1))["judged"].is_null());
  auto decision = [](int rung, double resource, const char* verdict) {
    return SchedulerEventRecord{0, 1.7e9, 1, "report",
                                Json{{"decision", {{"rung", rung}, {"resource", resource}, {"verdict", verdict}}}}};
  };
  ASSERT_TRUE(fake.journal().AppendResults({}, {decision(0, 1, "continue"), decision(1, 3, "stop"),
                                               decision(-1, 4, "stop")}));  // -1: no rung
  auto detail = live->TrialDetail(1);
  ASSERT_TRUE(detail) << detail.error().message;
  EXPECT_EQ((*detail)["judged"], (Json{{"rung", 1}, {"resource", 3}, {"verdict", "stop"}}));
  EXPECT_EQ((*detail)["trial"]["rung"], 0);
}

TEST(LiveExperimentTest, ImportanceSaysWhenItLagsBehindTheTrials) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 6);
  auto live = MustOpen(fake.dir());
  auto first = live->Importance();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ((*first)["trials"], 6);
  EXPECT_EQ((*first)["current"], true);
  EXPECT_EQ((*first)["params"].size(), 2u);
  fake.AddTrial(6, 2);
  // Right after the last forest the throttle holds the next one back: the answer comes
  // at once, stale and marked so.
  auto stale = live->Importance();
  ASSERT_TRUE(stale);
  EXPECT_EQ((*stale)["trials"], 6);
  EXPECT_EQ((*stale)["current"], false);
}

TEST(LiveExperimentTest, TrialDetailHasResultsAndTheLogTail) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 2);
  tmp.Write("exp/trials/0001/output.log", "epoch 1\nepoch 2\ndone <b>bold</b>\n");
  auto live = MustOpen(fake.dir());
  auto detail = live->TrialDetail(1);
  ASSERT_TRUE(detail) << detail.error().message;
  EXPECT_EQ((*detail)["results"].size(), 3u);
  EXPECT_EQ((*detail)["log_tail"], "epoch 1\nepoch 2\ndone <b>bold</b>\n");
  EXPECT_EQ((*detail)["trial"]["params"]["opt"], "adam");
  auto missing = live->TrialDetail(7);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(LiveExperimentTest, LogTailNeverFollowsASymlinkOutOfTheExperiment) {
  TempDir tmp, outside;
  FakeExperiment fake(tmp.path(), "exp", 3);
  const auto secret = outside.Write("secret.txt", "top secret\n");
  std::filesystem::create_directories(fake.dir() / "trials" / "0000");
  std::filesystem::create_symlink(secret, fake.dir() / "trials" / "0000" / "output.log");
  std::filesystem::create_directory_symlink(outside.path(), fake.dir() / "trials" / "0001");
  outside.Write("output.log", "also secret\n");
  auto live = MustOpen(fake.dir());
  EXPECT_EQ((*live->TrialDetail(0))["log_tail"], "");
  EXPECT_EQ((*live->TrialDetail(1))["log_tail"], "");
}

TEST(LiveExperimentTest, ConfinedTailKeepsTheLastBytesFromALineStart) {
  TempDir tmp;
  const auto log = tmp.Write("output.log", "first line\nsecond line\nthird\n");
  EXPECT_EQ(ConfinedTail(log, std::filesystem::canonical(tmp.path()), 14), "third\n");
  EXPECT_EQ(ConfinedTail(tmp.path() / "missing.log", tmp.path(), 100), "");
}

}  // namespace
}  // namespace gpusweep::web
