#include "nas/tournament.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "gpusweep/nas.h"

namespace gpusweep::nas {
namespace {

// 5 topologies (depth 4, width 1): rounds of 5 -> 3 -> 2 -> 1.
NasConfig SmallConfig(NasElimination policy) {
  NasConfig config;
  config.blocks = 1;
  config.depth = 4;
  config.width = 1;
  config.max_depth = 3;
  config.operations.conv = NasConvSpace{true, {{8, 16}}, {1, 3}, {"relu", "relu6"}};
  config.operations.pooling = NasPoolingSpace{true, {"avg", "max"}, {3}};
  config.samples_per_round = 2;
  config.winner_samples = 3;
  config.elimination = policy;
  return config;
}

// val_acc in `mode`, with `constraints`.
Objective Metric(Mode mode, std::vector<ConstraintSpec> constraints = {}) {
  return Objective(MetricSpec{"val_acc", mode}, std::move(constraints));
}

// What an evaluation scores: nullopt = it failed.
using ScoreFn = std::function<std::optional<double>(const Slot&, const Params&)>;

// What else an evaluation reports (its last_metrics besides the objective); null: nothing.
using MetricsFn = std::function<Json(const Slot&, const TrialRecord&)>;

std::vector<TrialRecord> Simulate(const Tournament& tournament, const ScoreFn& score,
                                  int upto = -1, const MetricsFn& metrics = nullptr) {
  std::vector<TrialRecord> history;
  const int n = upto < 0 ? static_cast<int>(tournament.plan().slots.size()) : upto;
  for (int k = 0; k < n; ++k) {
    TrialRecord record;
    record.number = k;
    record.params = tournament.Suggest(k, history);
    record.start_time = 1000 + k;
    record.end_time = 1000.5 + k;
    const std::optional<double> value = score(tournament.plan().slots[k], record.params);
    record.state = value ? TrialState::kCompleted : TrialState::kFailed;
    record.objective = value;
    if (value) record.last_metrics["val_acc"] = *value;
    if (value && metrics) record.last_metrics.update(metrics(tournament.plan().slots[k], record));
    history.push_back(std::move(record));
  }
  return history;
}

// Round 1 by topology; round 2 by topology and the sample's index (slot.index % 2).
ScoreFn HandMade() {
  return [](const Slot& slot, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (slot.stage != Stage::kRound) return 0.5;
    if (slot.round == 1) return std::vector<double>{0.5, 0.9, 0.5, 0.1, 0.7}[t];
    if (slot.round == 2) {
      const std::map<int, std::vector<double>> round2{
          {0, {0.95, 0.1}}, {1, {0.6, 0.6}}, {4, {0.58, 0.58}}};
      return round2.at(t)[slot.index % 2];
    }
    return 0.3 + 0.01 * t;
  };
}

std::vector<int> EliminatedIn(const TournamentState& state, int round) {
  std::vector<int> out;
  for (const RoundEntry& entry : state.blocks.at(0).rounds.at(round - 1).entries)
    if (entry.eliminated) out.push_back(entry.topology);
  return out;
}

TEST(TournamentTest, RoundOneTiesGoToTheLowerTopology) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  ASSERT_EQ(tournament.pool().size(), 5u);
  const TournamentState state = tournament.Replay(Simulate(tournament, HandMade()));
  // 0.9 (1), 0.7 (4), 0.5 (0), 0.5 (2), 0.1 (3): keep 3; 0 beats 2 on the tie.
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{2, 3}));
  EXPECT_TRUE(state.blocks[0].rounds[0].complete);
}

TEST(TournamentTest, EveryPolicyOnHandMadeScores) {
  const std::map<NasElimination, int> loser_of_round_2{
      {NasElimination::kHistoryBest, 4},     // 0.95, 0.9, 0.7
      {NasElimination::kHistoryAverage, 0},  // 0.517, 0.7, 0.62
      {NasElimination::kCurrentBest, 4},     // 0.95, 0.6, 0.58
      {NasElimination::kCurrentAverage, 0},  // 0.525, 0.6, 0.58
  };
  for (const auto& [policy, loser] : loser_of_round_2) {
    const Tournament tournament(SmallConfig(policy), Metric(Mode::kMax));
    const TournamentState state = tournament.Replay(Simulate(tournament, HandMade()));
    EXPECT_EQ(EliminatedIn(state, 2), (std::vector<int>{loser})) << tournament.PolicyName();
    ASSERT_TRUE(state.blocks[0].winner.has_value());
  }
}

TEST(TournamentTest, FailedEvaluationsScoreFailedScoreAndAreEliminated) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.failed_score = 0.2;
  const Tournament tournament(config, Metric(Mode::kMax));
  ScoreFn score = [](const Slot& slot, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (slot.round == 1 && (t == 1 || t == 2)) return std::nullopt;  // crash
    return 0.5 + 0.01 * t;
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, score));
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(*state.blocks[0].rounds[0].entries.back().value, 0.2);
}

// constraints: [{metric: params_k, max: 10}]; each topology's evaluations report the
// params_k of `sizes` (by topology).
MetricsFn ParamsK(std::vector<double> sizes) {
  return [sizes](const Slot&, const TrialRecord& record) {
    return Json{{"params_k", sizes.at(record.params["nas_topology"].get<int>())}};
  };
}
const std::vector<ConstraintSpec> kAtMost10k{{"params_k", std::nullopt, 10.0}};

const RoundEntry& EntryOf(const TournamentState& state, int round, int topology) {
  for (const RoundEntry& entry : state.blocks.at(0).rounds.at(round - 1).entries)
    if (entry.topology == topology) return entry;
  ADD_FAILURE() << "topology " << topology << " did not play round " << round;
  return state.blocks.at(0).rounds.at(round - 1).entries.front();
}

// Round 1 (its 5 evaluations) of HandMade: 0.9 (1), 0.7 (4), 0.5 (0), 0.5 (2), 0.1 (3).
// Topologies 1 and 4 break params_k <= 10 (by 40 and 2): they rank below the three
// feasible ones, the smaller violation first, and are the two eliminated, however well
// they scored.
TEST(TournamentTest, InfeasibleEvaluationsRankBelowEveryFeasibleOneInTheirRound) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax, kAtMost10k));
  const TournamentState state =
      tournament.Replay(Simulate(tournament, HandMade(), 5, ParamsK({5, 50, 5, 5, 12})));
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{4, 1}));
  const RoundEntry& worst = state.blocks[0].rounds[0].entries.back();
  EXPECT_EQ(worst.topology, 1);
  EXPECT_DOUBLE_EQ(*worst.value, 0.9);  // its value as scored, beside the violation
  EXPECT_DOUBLE_EQ(worst.violation, 40);
  EXPECT_DOUBLE_EQ(EntryOf(state, 1, 3).violation, 0);
  // The same results without the constraint: the round ranks by value alone.
  const Tournament unconstrained(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  EXPECT_EQ(EliminatedIn(unconstrained.Replay(Simulate(unconstrained, HandMade(), 5,
                                                        ParamsK({5, 50, 5, 5, 12}))),
                         1),
            (std::vector<int>{2, 3}));
}

// A failed evaluation has no metrics to be feasible with: under constraints it ranks
// below an infeasible one (violation +inf, as a missing constraint metric), whatever
// failed_score says; an evaluation that does not report the constraint's metric ranks
// with it.
TEST(TournamentTest, UnderConstraintsFailedAndUnreportedRankBelowInfeasible) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.failed_score = 0.95;
  const Tournament tournament(config, Metric(Mode::kMax, kAtMost10k));
  ScoreFn score = [](const Slot& slot, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (slot.round == 1 && t == 1) return std::nullopt;  // crash
    return t == 3 ? 0.9 : 0.5 + 0.01 * t;
  };
  MetricsFn metrics = [](const Slot&, const TrialRecord& record) {
    const int t = record.params["nas_topology"].get<int>();
    if (t == 2) return Json::object();  // params_k never reported
    return Json{{"params_k", t == 3 ? 11.0 : 5.0}};
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, score, 5, metrics));
  // Feasible 4, 0; then 3 (violation 1); then 1 (failed: 0.95, +inf) before 2 (0.52, +inf).
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{1, 2}));
  EXPECT_TRUE(std::isinf(EntryOf(state, 1, 1).violation));
  EXPECT_DOUBLE_EQ(EntryOf(state, 1, 3).violation, 1);
}

// current_average on HandMade's round 2 keeps 1 (0.6) and 4 (0.58) and drops 0 (0.525);
// when one of topology 1's two round-2 evaluations breaks the constraint (by 1), its
// average is infeasible (violation 0.5) and it is the one dropped.
TEST(TournamentTest, AnAverageWithAnInfeasibleEvaluationIsInfeasible) {
  const Tournament tournament(SmallConfig(NasElimination::kCurrentAverage), Metric(Mode::kMax, kAtMost10k));
  MetricsFn metrics = [](const Slot& slot, const TrialRecord& record) {
    const bool breaks = slot.round == 2 && record.params["nas_topology"] == 1 && slot.index % 2 == 1;
    return Json{{"params_k", breaks ? 11.0 : 5.0}};
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, HandMade(), -1, metrics));
  EXPECT_EQ(EliminatedIn(state, 2), (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(EntryOf(state, 2, 1).violation, 0.5);
  EXPECT_DOUBLE_EQ(*EntryOf(state, 2, 1).value, 0.6);
}

TEST(TournamentTest, MinimisedMetricFailuresRankWorst) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMin));
  ScoreFn score = [](const Slot&, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (t == 0) return std::nullopt;
    return 1.0 + t;  // lower is better: 1 (t=1) ... 4 (t=4)
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, score, 5));
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{4, 0}));
}

TEST(TournamentTest, WinnerRefinementCountOrderAndConfirm) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  int winner_seen = 0;
  ScoreFn score = [&](const Slot& slot, const Params& params) -> std::optional<double> {
    if (slot.stage == Stage::kWinner) return std::vector<double>{0.6, 0.8, 0.8}[winner_seen++];
    return HandMade()(slot, params);
  };
  const std::vector<TrialRecord> history = Simulate(tournament, score);
  const TournamentState state = tournament.Replay(history);
  const int winner = *state.blocks[0].winner;
  std::vector<int> winner_trials;
  for (const TrialRecord& record : history)
    if (record.params["nas_stage"] == "winner") {
      winner_trials.push_back(record.number);
      EXPECT_EQ(record.params["nas_topology"], winner);
      EXPECT_EQ(record.params["nas_round"], 0);
    }
  ASSERT_EQ(winner_trials.size(), 3u);
  EXPECT_EQ(winner_trials[1], winner_trials[0] + 1);
  EXPECT_EQ(winner_trials[2], winner_trials[0] + 2);
  // The confirm trains the best refinement sample again (0.8: the earlier of the tie).
  const TrialRecord& confirm = history[*state.blocks[0].confirm_trial];
  EXPECT_EQ(confirm.params["nas_stage"], "confirm");
  EXPECT_EQ(confirm.params["nas_code"], history[winner_trials[1]].params["nas_code"]);
  EXPECT_EQ(confirm.params["architecture"], history[winner_trials[1]].params["architecture"]);
}

// The refinement scores 0.6, 0.8, 0.95, the last breaking the constraint: the confirm
// trains the best feasible one (0.8) again, and the Replay says the confirm's violation.
TEST(TournamentTest, TheConfirmTakesTheBestFeasibleRefinement) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax, kAtMost10k));
  int winner_seen = 0;
  ScoreFn score = [&](const Slot& slot, const Params& params) -> std::optional<double> {
    if (slot.stage == Stage::kWinner) return std::vector<double>{0.6, 0.8, 0.95}[winner_seen++];
    return HandMade()(slot, params);
  };
  MetricsFn metrics = [](const Slot& slot, const TrialRecord& record) {
    return Json{{"params_k", slot.stage == Stage::kWinner && *record.objective == 0.95 ? 20.0 : 5.0}};
  };
  const std::vector<TrialRecord> history = Simulate(tournament, score, -1, metrics);
  std::vector<int> winner_trials;
  for (const TrialRecord& record : history)
    if (record.params["nas_stage"] == "winner") winner_trials.push_back(record.number);
  ASSERT_EQ(winner_trials.size(), 3u);
  const TournamentState state = tournament.Replay(history);
  const TrialRecord& confirm = history.at(*state.blocks[0].confirm_trial);
  EXPECT_EQ(confirm.params["nas_code"], history[winner_trials[1]].params["nas_code"]);
  EXPECT_DOUBLE_EQ(state.blocks[0].confirm_violation, 0);
  // Had the confirm itself broken it, the state would say so.
  std::vector<TrialRecord> broken = history;
  broken[*state.blocks[0].confirm_trial].last_metrics["params_k"] = 12.5;
  EXPECT_DOUBLE_EQ(tournament.Replay(broken).blocks[0].confirm_violation, 2.5);
}

TEST(TournamentTest, LaterBlocksStackTheConfirmedCellsAndRetrainTakesThemAll) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.blocks = 2;
  config.operations.conv.filters = {{8}, {32}};
  const Tournament tournament(config, Metric(Mode::kMax));
  const std::vector<TrialRecord> history = Simulate(tournament, HandMade());
  const TrialRecord* confirm1 = nullptr;
  for (const TrialRecord& record : history) {
    const Json& blocks = record.params["architecture"]["blocks"];
    if (record.params["nas_stage"] == "confirm" && record.params["nas_block"] == 1) confirm1 = &record;
    if (record.params["nas_block"] == 2 && record.params["nas_stage"] != "retrain") {
      ASSERT_EQ(blocks.size(), 2u);
      ASSERT_NE(confirm1, nullptr);
      EXPECT_EQ(blocks[0], confirm1->params["architecture"]["blocks"][0]);
      for (const Json& node : blocks[1]["nodes"])
        if (node["type"] == "conv") {
          EXPECT_EQ(node["filters"], 32);  // block 2's list
        }
    }
  }
  const TrialRecord& retrain = history.back();
  EXPECT_EQ(retrain.params["nas_stage"], "retrain");
  EXPECT_EQ(retrain.params["architecture"]["blocks"].size(), 2u);
  EXPECT_EQ(retrain.params["epochs"], 10);
  EXPECT_EQ(tournament.Replay(history).blocks.size(), 2u);
}

TEST(TournamentTest, SuggestIsAFunctionOfTheHistory) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  const std::vector<TrialRecord> history = Simulate(tournament, HandMade());
  const Tournament again(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  for (std::size_t k = 0; k < history.size(); ++k) {
    const std::vector<TrialRecord> before(history.begin(), history.begin() + k);
    EXPECT_EQ(again.Suggest(static_cast<int>(k), before), history[k].params) << k;
  }
}

TEST(TournamentTest, RandomBaselineHasTheSamePlanAndConfirmsTheBlocksBest) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.search = NasSearch::kRandom;
  const Tournament tournament(config, Metric(Mode::kMax));
  const Tournament steered(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  EXPECT_EQ(tournament.plan().slots.size(), steered.plan().slots.size());
  int k = 0;
  ScoreFn score = [&](const Slot&, const Params&) -> std::optional<double> {
    return ++k == 7 ? 0.99 : 0.1;
  };
  const std::vector<TrialRecord> history = Simulate(tournament, score);
  const TrialRecord& confirm = history[history.size() - 2];
  EXPECT_EQ(confirm.params["nas_stage"], "confirm");
  EXPECT_EQ(confirm.params["architecture"], history[6].params["architecture"]);
}

TEST(TournamentTest, EvolutionMutatesTheBestOfASampleInOnePlace) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.search = NasSearch::kEvolution;
  config.evolution = NasEvolutionConfig{4, 4};  // S = P: the parent is the newest 4's best
  const Tournament tournament(config, Metric(Mode::kMax));
  const Tournament steered(SmallConfig(NasElimination::kHistoryBest), Metric(Mode::kMax));
  ASSERT_EQ(tournament.plan().slots.size(), steered.plan().slots.size());
  // Scores favour topology 2 and a first code digit of 0.
  ScoreFn score = [](const Slot&, const Params& p) -> std::optional<double> {
    const int topology = p["nas_topology"].get<int>();
    const Json& code = p["nas_code"];  // empty for the retrain
    return (topology == 2 ? 0.5 : 0.1) + (!code.empty() && code[0] == 0 ? 0.2 : 0.0) +
           0.01 * topology;
  };
  const std::vector<TrialRecord> history = Simulate(tournament, score);
  int evolved = 0;
  for (std::size_t k = 0; k + 2 < history.size(); ++k) {
    if (k < 4) continue;  // the first P are random
    // The parent: the best of the 4 newest search evaluations before k.
    std::vector<std::size_t> newest;
    for (std::size_t j = k; j-- > 0 && newest.size() < 4;) newest.push_back(j);
    std::size_t parent = newest.front();
    for (std::size_t j : newest)
      if (*history[j].objective > *history[parent].objective ||
          (*history[j].objective == *history[parent].objective && j < parent))
        parent = j;
    const Params& child = history[k].params;
    const Params& mother = history[parent].params;
    if (child["nas_topology"] != mother["nas_topology"]) {
      ++evolved;  // a topology mutation: new operations too
      continue;
    }
    // One dimension changed: every difference lies in one node's six dimensions (a new
    // type zeroes the ones it ignores) or is one skip dimension.
    std::set<std::size_t> places;
    for (std::size_t d = 0; d < child["nas_code"].size(); ++d)
      if (child["nas_code"][d] != mother["nas_code"][d]) places.insert(d / kDimsPerNode);
    EXPECT_EQ(places.size(), 1u) << "trial " << k;
    ++evolved;
  }
  EXPECT_GT(evolved, 0);
  // The confirm takes the block's best evaluation.
  const TrialRecord& confirm = history[history.size() - 2];
  ASSERT_EQ(confirm.params["nas_stage"], "confirm");
  std::size_t best = 0;
  for (std::size_t k = 0; k + 2 < history.size(); ++k)
    if (*history[k].objective > *history[best].objective) best = k;
  EXPECT_EQ(confirm.params["architecture"], history[best].params["architecture"]);
  // Replayed from the records: every trial gets the params it had.
  for (std::size_t k = 0; k < history.size(); ++k)
    EXPECT_EQ(tournament.Suggest(static_cast<int>(k), {history.begin(), history.begin() + k}),
              history[k].params);
}

}  // namespace
}  // namespace gpusweep::nas
