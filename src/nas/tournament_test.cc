#include "nas/tournament.h"

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

// What an evaluation scores: nullopt = it failed.
using ScoreFn = std::function<std::optional<double>(const Slot&, const Params&)>;

std::vector<TrialRecord> Simulate(const Tournament& tournament, const ScoreFn& score,
                                  int upto = -1) {
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
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
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
    const Tournament tournament(SmallConfig(policy), Mode::kMax);
    const TournamentState state = tournament.Replay(Simulate(tournament, HandMade()));
    EXPECT_EQ(EliminatedIn(state, 2), (std::vector<int>{loser})) << tournament.PolicyName();
    ASSERT_TRUE(state.blocks[0].winner.has_value());
  }
}

TEST(TournamentTest, FailedEvaluationsScoreFailedScoreAndAreEliminated) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.failed_score = 0.2;
  const Tournament tournament(config, Mode::kMax);
  ScoreFn score = [](const Slot& slot, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (slot.round == 1 && (t == 1 || t == 2)) return std::nullopt;  // crash
    return 0.5 + 0.01 * t;
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, score));
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(*state.blocks[0].rounds[0].entries.back().value, 0.2);
}

TEST(TournamentTest, MinimisedMetricFailuresRankWorst) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Mode::kMin);
  ScoreFn score = [](const Slot&, const Params& params) -> std::optional<double> {
    const int t = params["nas_topology"].get<int>();
    if (t == 0) return std::nullopt;
    return 1.0 + t;  // lower is better: 1 (t=1) ... 4 (t=4)
  };
  const TournamentState state = tournament.Replay(Simulate(tournament, score, 5));
  EXPECT_EQ(EliminatedIn(state, 1), (std::vector<int>{4, 0}));
}

TEST(TournamentTest, WinnerRefinementCountOrderAndConfirm) {
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
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

TEST(TournamentTest, LaterBlocksStackTheConfirmedCellsAndRetrainTakesThemAll) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.blocks = 2;
  config.operations.conv.filters = {{8}, {32}};
  const Tournament tournament(config, Mode::kMax);
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
  const Tournament tournament(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
  const std::vector<TrialRecord> history = Simulate(tournament, HandMade());
  const Tournament again(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
  for (std::size_t k = 0; k < history.size(); ++k) {
    const std::vector<TrialRecord> before(history.begin(), history.begin() + k);
    EXPECT_EQ(again.Suggest(static_cast<int>(k), before), history[k].params) << k;
  }
}

TEST(TournamentTest, RandomBaselineHasTheSamePlanAndConfirmsTheBlocksBest) {
  NasConfig config = SmallConfig(NasElimination::kHistoryBest);
  config.search = NasSearch::kRandom;
  const Tournament tournament(config, Mode::kMax);
  const Tournament steered(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
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
  const Tournament tournament(config, Mode::kMax);
  const Tournament steered(SmallConfig(NasElimination::kHistoryBest), Mode::kMax);
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
