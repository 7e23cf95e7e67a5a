#include "web/live_experiment.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/nas.h"
#include "gpusweep/pareto.h"
#include "run/experiment_meta.h"
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
  EXPECT_EQ((*summary)["nas"], NasProgressJson(ReplayNas(config, Objective(MetricSpec{"val_acc", Mode::kMax}), {})));
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

// A page's view of the trials, by number, and what the summary says of them: what a
// server that followed a run must agree on with one that just opened it.
Json PageView(LiveExperiment& live) {
  Json trials = Json::object();
  for (Json& t : Parsed(live.TrialsSince(0))["trials"]) trials[t["number"].dump()] = t;
  auto summary = live.Summary();
  EXPECT_TRUE(summary) << summary.error().message;
  return Json{{"trials", trials},
              {"counts", (*summary)["counts"]},
              {"best", (*summary)["best"]},
              {"params", (*summary)["params"]},
              {"unfinished", (*summary)["unfinished"]},
              {"recorded", (*summary)["recorded"]}};
}

// A server that follows a run reads only the rows each commit wrote (the journal's
// change marks) and merges them: rows new at the end or between others, rows written
// again (a promotion), finished ones. It must hold what a fresh reader holds.
TEST(LiveExperimentTest, AFollowerMergesWhatEachCommitWroteAsAFreshReaderReadsIt) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "exp", 4, 2);
  auto follower = MustOpen(fake.dir());
  std::int64_t revision = Parsed(follower->TrialsSince(0))["revision"].get<std::int64_t>();
  auto started = [](int number, int attempt, Json params) {
    TrialRecord trial;
    trial.number = number;
    trial.attempt = attempt;
    trial.params = std::move(params);
    trial.start_time = 1.8e9 + number;
    trial.state = TrialState::kRunning;
    return trial;
  };
  const std::vector<std::function<void()>> commits = {
      [&] { fake.AddTrial(4, 2); },
      [&] { ASSERT_TRUE(fake.journal().UpsertTrial(started(9, 1, {{"lr", 0.5}, {"depth", 3}}))); },
      [&] { fake.AddTrial(6, 1); },  // between 4 and 9
      [&] { ASSERT_TRUE(fake.journal().UpsertTrial(started(2, 2, {{"lr", 0.03}, {"opt", "sgd"}}))); },
      [&] {
        TrialRecord done = started(9, 1, {{"lr", 0.5}, {"depth", 3}});
        done.state = TrialState::kCompleted;
        done.objective = 99;
        done.end_time = 1.8e9 + 20;
        ASSERT_TRUE(fake.journal().FinishTrial(done, {}));
      },
      [&] { ASSERT_TRUE(fake.journal().AppendResults({{6, 1, 5, 1.8e9, Json{{"acc", 1}}}})); },
  };
  const std::vector<std::set<int>> sent = {{4}, {9}, {6}, {2}, {9}, {}};
  for (std::size_t c = 0; c < commits.size(); ++c) {
    commits[c]();
    Json changed = Parsed(follower->TrialsSince(revision));
    std::set<int> numbers;
    for (const Json& t : changed["trials"]) numbers.insert(t["number"].get<int>());
    EXPECT_EQ(numbers, sent[c]) << "commit " << c;
    revision = changed["revision"].get<std::int64_t>();
    auto fresh = MustOpen(fake.dir());
    EXPECT_EQ(PageView(*follower), PageView(*fresh)) << "commit " << c;
  }
  Json view = PageView(*follower);
  EXPECT_EQ(view["best"]["trial"], 9);
  EXPECT_EQ(view["params"], (Json{"lr", "opt", "depth"}));
  EXPECT_EQ(view["counts"]["running"], 1);  // trial 2, promoted
}

// Past ChartedTrials::kMaxHeld trials a page is sent a sample (the best, every
// unfinished trial, every stride-th), only its trials' points, and the summary says so.
TEST(LiveExperimentTest, ALargeExperimentSendsThePageASampleAndSaysWhich) {
  TempDir tmp;
  const int n = static_cast<int>(ChartedTrials::kMaxHeld) + 50;
  FakeExperiment fake(tmp.path(), "big", n, 1);  // objective 0.1 k, mode max: the last are best
  auto live = MustOpen(fake.dir());
  auto summary = live->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  const Json held = (*summary)["held"];
  EXPECT_EQ(held["recorded"], n);
  EXPECT_EQ(held["stride"], 2);
  EXPECT_EQ(held["best"], 2000);
  Json first = Parsed(live->TrialsSince(0));
  std::set<int> numbers;
  for (const Json& t : first["trials"]) numbers.insert(t["number"].get<int>());
  EXPECT_EQ(numbers.size(), held["held"].get<std::size_t>());
  EXPECT_LE(numbers.size(), ChartedTrials::kMaxHeld);
  EXPECT_TRUE(numbers.count(n - 1) && numbers.count(n - 2000));  // the best 2,000
  for (int k = 0; k < n - 2000; ++k)  // the rest: 1 in 2 by the number's hash
    EXPECT_EQ(numbers.count(k), ChartedTrials::SampleHash(k) % 2 == 0 ? 1u : 0u) << k;
  const std::int64_t generation = first["generation"].get<std::int64_t>();
  Json points = Parsed(live->PointsAfter(0, generation));
  EXPECT_EQ(points["reset"], false);
  EXPECT_EQ(points["trial"].size(), numbers.size());  // one point each, held trials only
  for (const Json& trial : points["trial"]) EXPECT_TRUE(numbers.count(trial.get<int>())) << trial;

  // A client that follows the generation gets only what changed; one that holds another
  // generation's sample gets the whole sample again, marked reset.
  const auto revision = first["revision"].get<std::int64_t>();
  fake.AddTrial(n, 1);  // the best now
  Json next = Parsed(live->TrialsSince(revision, generation));
  EXPECT_EQ(next["reset"], false);
  ASSERT_EQ(next["trials"].size(), 1u);
  EXPECT_EQ(next["trials"][0]["number"], n);
  Json other = Parsed(live->TrialsSince(revision, generation + 7));
  EXPECT_EQ(other["reset"], true);
  EXPECT_EQ(other["trials"].size(), numbers.size() + 1);
  EXPECT_EQ(Parsed(live->PointsAfter(points["cursor"].get<std::int64_t>(), generation + 7))["trial"].size(),
            numbers.size() + 1);

  // Importance over 10,000 of the completed trials, picked by hash: every 2nd by number
  // would have given opt (sgd for even numbers, adam for odd) one value, and dropped it.
  auto importance = live->Importance();
  ASSERT_TRUE(importance) << importance.error().message;
  EXPECT_EQ((*importance)["trials"], LiveExperiment::kImportanceTrials);
  EXPECT_EQ((*importance)["of"], n + 1);
  std::set<std::string> names;
  for (const Json& p : (*importance)["params"]) names.insert(p["name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"lr", "opt"}));
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

// A PBT segment as a run journals it: the trial row and its job_started event, whose
// job names the trial whose checkpoint it continued (none in segment 0).
void AddPbtSegment(Journal& journal, int number, std::optional<int> parent, double budget,
                   double lr, double score) {
  TrialRecord trial;
  trial.number = number;
  trial.params = {{"lr", lr}};
  trial.budget = budget;
  trial.start_time = 1.7e9 + number;
  trial.state = TrialState::kRunning;
  Json job{{"kind", "run"}, {"trial", number}, {"bracket", 0}, {"rung", 0}, {"budget", budget}};
  if (parent) job["parent"] = *parent;
  ASSERT_TRUE(journal.UpsertTrial(trial, {{0, trial.start_time, number, "job_started", Json{{"job", job}}}}));
  trial.state = TrialState::kCompleted;
  trial.end_time = trial.start_time + 1;
  trial.objective = score;
  ASSERT_TRUE(journal.FinishTrial(trial, {}));
}

void MarkPbt(const std::filesystem::path& dir) {
  auto meta = ReadExperimentMeta(dir);
  ASSERT_TRUE(meta) << meta.error().message;
  meta->scheduler = SchedulerSummary{"pbt", "epoch", 2};
  ASSERT_TRUE(WriteExperimentMeta(dir, *meta));
}

// Population 2 (from the segment-0 starts: this journal's YAML does not parse), two
// segments; in segment 1 member 1 copies member 0's checkpoint (an exploit) while
// member 0 continues its own. The second segment arrives while the page follows.
TEST(LiveExperimentTest, APbtExperimentsSummaryHoldsItsLineage) {
  TempDir tmp;
  FakeExperiment fake(tmp.path(), "pbt", 0, 0);
  MarkPbt(fake.dir());
  AddPbtSegment(fake.journal(), 0, std::nullopt, 1, 0.01, 0.5);
  AddPbtSegment(fake.journal(), 1, std::nullopt, 1, 0.1, 0.2);
  auto live = MustOpen(fake.dir());
  auto first = live->Summary();
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->contains("pbt")) << first->dump();
  EXPECT_EQ((*first)["pbt"]["population"], 2);
  EXPECT_EQ((*first)["pbt"]["resource"], "epoch");
  EXPECT_EQ((*first)["pbt"]["segments"].size(), 2u);
  EXPECT_TRUE((*first)["pbt"]["exploits"].empty());

  AddPbtSegment(fake.journal(), 2, 0, 2, 0.01, 0.9);   // member 0 continues itself
  AddPbtSegment(fake.journal(), 3, 0, 2, 0.012, 0.8);  // member 1 copies trial 0
  auto summary = live->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  const Json& pbt = (*summary)["pbt"];
  EXPECT_EQ(pbt["members"], (Json{{{"member", 0}, {"trials", {0, 2}}}, {{"member", 1}, {"trials", {1, 3}}}}));
  ASSERT_EQ(pbt["segments"].size(), 4u);
  const Json& own = pbt["segments"][2];
  EXPECT_EQ(own["parent"], 0);
  EXPECT_EQ(own["exploit"], false);
  const Json& copied = pbt["segments"][3];
  EXPECT_EQ(copied["member"], 1);
  EXPECT_EQ(copied["segment"], 1);
  EXPECT_EQ(copied["parent"], 0);
  EXPECT_EQ(copied["exploit"], true);
  EXPECT_EQ(copied["from"], 1);  // where trial 0's checkpoint ended
  EXPECT_EQ(copied["to"], 2);
  EXPECT_EQ(copied["params"], (Json{{"lr", 0.012}}));
  EXPECT_EQ(copied["score"], 0.8);
  EXPECT_TRUE(pbt["segments"][1]["parent"].is_null());
  EXPECT_EQ(pbt["exploits"], (Json{{{"trial", 3}, {"member", 1}, {"segment", 1}, {"donor", 0},
                                    {"donor_member", 0}, {"at", 1}, {"time", 1.7e9 + 3}}}));

  FakeExperiment sweep(tmp.path(), "sweep", 2);
  EXPECT_FALSE(MustOpen(sweep.dir())->Summary()->contains("pbt"));
}

// Records trial `number` as started at 1.7e9 and completed at 1.7e9 + `end`, with its
// objective value and the metrics it last reported.
void AddCompleted(Journal& journal, int number, Params params, double end, double objective,
                  Json last_metrics) {
  TrialRecord trial;
  trial.number = number;
  trial.params = std::move(params);
  trial.start_time = 1.7e9;
  trial.state = TrialState::kRunning;
  ASSERT_TRUE(journal.UpsertTrial(trial));
  trial.state = TrialState::kCompleted;
  trial.end_time = 1.7e9 + end;
  trial.objective = objective;
  trial.last_metrics = std::move(last_metrics);
  ASSERT_TRUE(journal.FinishTrial(trial, {}));
}

// One metric with a constraint: the best is the best feasible trial, not the infeasible
// one with the better value.
TEST(LiveExperimentTest, AConstrainedSummarysBestIsTheBestFeasibleTrial) {
  TempDir tmp;
  // FakeExperiment's metric is acc (max); the identity adds the constraint.
  const Json identity{{"constraints", {{{"metric", "c"}, {"max", 1.0}}}}};
  FakeExperiment fake(tmp.path(), "con", 0, 0, identity);
  const std::vector<std::pair<double, double>> acc_and_c{{0.1, 5}, {0.7, 0}, {0.4, 0.5}, {0.9, 2}};
  for (int k = 0; k < static_cast<int>(acc_and_c.size()); ++k) {
    AddCompleted(fake.journal(), k, {{"x", k}}, 10 + k, acc_and_c[k].first,
                 {{"acc", acc_and_c[k].first}, {"c", acc_and_c[k].second}});
  }
  auto summary = MustOpen(fake.dir())->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_FALSE(summary->contains("pareto"));
  // Trial 3's 0.9 is better but breaks the constraint (c = 2 > 1).
  EXPECT_EQ((*summary)["best"], (Json{{"trial", 1}, {"value", 0.7}})) << summary->dump();
}

// Two objectives (f1, f2 min) and a constraint c <= 1: trials 0, 1, 4 are the feasible
// front, 2 is dominated by 1, 3 breaks the constraint (though it dominates them all).
TEST(LiveExperimentTest, AMultiObjectiveSummaryRanksTrialsAndFollowsTheHypervolume) {
  TempDir tmp;
  const Json identity{{"metrics", {{{"name", "f1"}, {"mode", "min"}}, {{"name", "f2"}, {"mode", "min"}}}},
                      {"constraints", {{{"metric", "c"}, {"max", 1.0}}}}};
  FakeExperiment fake(tmp.path(), "mo", 0, 0, identity);
  struct Point { double f1, f2, c, end; };
  // Completion order differs from trial order: 0, 1, 4, 2, 3.
  const std::vector<Point> points{{1, 4, 0, 0}, {2, 2, 0, 1}, {3, 3, 0, 3}, {0.5, 0.5, 5, 4}, {4, 1, 0, 2}};
  for (int k = 0; k < static_cast<int>(points.size()); ++k) {
    AddCompleted(fake.journal(), k, {{"x", k}}, 10 + points[k].end, points[k].f1,
                 {{"f1", points[k].f1}, {"f2", points[k].f2}, {"c", points[k].c}});
  }
  auto summary = MustOpen(fake.dir())->Summary();
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_TRUE(summary->contains("pareto")) << summary->dump();
  const Json& pareto = (*summary)["pareto"];
  EXPECT_EQ(pareto["objectives"], (Json{{{"name", "f1"}, {"mode", "min"}}, {{"name", "f2"}, {"mode", "min"}}}));
  std::map<int, Json> by_trial;
  for (const Json& t : pareto["trials"]) by_trial[t["trial"].get<int>()] = t;
  ASSERT_EQ(by_trial.size(), 5u);
  for (int k : {0, 1, 4}) EXPECT_EQ(by_trial[k]["front"], true) << k;
  EXPECT_EQ(by_trial[2]["front"], false);
  EXPECT_EQ(by_trial[2]["rank"], 1);
  EXPECT_EQ(by_trial[2]["feasible"], true);
  EXPECT_EQ(by_trial[3]["feasible"], false);
  EXPECT_EQ(by_trial[3]["front"], false);
  EXPECT_EQ(by_trial[3]["violation"], 4.0);
  EXPECT_EQ(by_trial[4]["values"], (Json{4.0, 1.0}));
  EXPECT_EQ(pareto["counts"], (Json{{"completed", 5}, {"front", 3}, {"infeasible", 1}}));
  // Derived reference: 10% of the feasible range past the worst (4 + 0.3 each).
  ASSERT_EQ(pareto["reference"].size(), 2u);
  EXPECT_DOUBLE_EQ(pareto["reference"][0].get<double>(), 4.3);
  EXPECT_DOUBLE_EQ(pareto["reference"][1].get<double>(), 4.3);
  EXPECT_EQ(pareto["reference_derived"], true);
  EXPECT_TRUE((*summary)["best"].is_null()) << "several objectives have a front, not a best";
  const Json& history = pareto["hypervolume"];
  ASSERT_EQ(history.size(), 5u);
  const std::vector<int> order{0, 1, 4, 2, 3};
  // By hand: 3.3 * 0.3, then + 2.3 * 2 for (2, 2), then + 0.3 * 1 for (4, 1); the
  // dominated and the infeasible trial add nothing.
  const std::vector<double> expected{0.99, 5.59, 5.89, 5.89, 5.89};
  std::vector<LossPoint> seen;
  for (std::size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i]["trial"], order[i]);
    EXPECT_EQ(history[i]["completed"], i + 1);
    EXPECT_NEAR(history[i]["value"].get<double>(), expected[i], 1e-9) << i;
    // The same as pareto.h's hypervolume of every feasible trial completed so far.
    const Point& p = points[order[i]];
    if (p.c <= 1) seen.push_back({p.f1, p.f2});
    EXPECT_NEAR(history[i]["value"].get<double>(), Hypervolume(seen, std::vector<double>{4.3, 4.3}), 1e-9);
  }

  FakeExperiment single(tmp.path(), "single", 2);
  EXPECT_FALSE(MustOpen(single.dir())->Summary()->contains("pareto"));
}

// f1 depends on a alone and f2 on b alone: each objective's importance names its own
// parameter first (one forest per objective, not the primary metric's for all).
TEST(LiveExperimentTest, ImportanceWithSeveralObjectivesIsPerObjective) {
  TempDir tmp;
  const Json identity{{"metrics", {{{"name", "f1"}, {"mode", "min"}}, {{"name", "f2"}, {"mode", "max"}}}}};
  FakeExperiment fake(tmp.path(), "mo", 0, 0, identity);
  for (int k = 0; k < 36; ++k) {
    const double a = (k % 6) / 5.0, b = (k / 6) / 5.0;
    AddCompleted(fake.journal(), k, {{"a", a}, {"b", b}}, k, a,
                 {{"f1", a}, {"f2", b * b}});
  }
  auto importance = MustOpen(fake.dir())->Importance();
  ASSERT_TRUE(importance) << importance.error().message;
  ASSERT_TRUE(importance->contains("objectives")) << importance->dump();
  const Json& objectives = (*importance)["objectives"];
  ASSERT_EQ(objectives.size(), 2u);
  EXPECT_EQ(objectives[0]["objective"], "f1");
  EXPECT_EQ(objectives[1]["objective"], "f2");
  EXPECT_EQ(objectives[1]["mode"], "max");
  EXPECT_EQ(objectives[0]["params"][0]["name"], "a") << objectives[0].dump();
  EXPECT_EQ(objectives[1]["params"][0]["name"], "b") << objectives[1].dump();
  EXPECT_EQ(objectives[1]["trials"], 36);
  EXPECT_EQ((*importance)["current"], true);

  FakeExperiment single(tmp.path(), "single", 6);
  EXPECT_FALSE(MustOpen(single.dir())->Importance()->contains("objectives"));
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
