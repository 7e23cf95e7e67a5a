#include "nas/tournament.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include "gpusweep/objective.h"

namespace gpusweep::nas {
namespace {

constexpr std::uint64_t kDryScoreStream = 0x6472792D72756EULL;  // "dry-run"
constexpr std::uint64_t kTopologyStream = 0x746F706FULL;          // "topo"
constexpr std::uint64_t kEvolutionStream = 0x65766F6C7665ULL;     // "evolve"

bool SearchStage(Stage stage) { return stage == Stage::kRound || stage == Stage::kWinner; }

// The *_average eliminations' mean: of the values and of the violations, so one
// infeasible evaluation makes the average infeasible (by its share of the violation).
Score Mean(const std::vector<Score>& scores) {
  assert(!scores.empty() && "an average of no evaluations");
  Score sum(0.0, 0.0);
  for (const Score& score : scores) {
    sum.value += score.value;
    sum.violation += score.violation;
  }
  const double n = static_cast<double>(scores.size());
  return Score(sum.value / n, sum.violation / n);
}

bool Finished(const TrialRecord& record) {
  return record.state == TrialState::kCompleted || record.state == TrialState::kFailed ||
         record.state == TrialState::kPruned;
}

}  // namespace

Tournament::Tournament(const NasConfig& config, Objective objective)
    : config_(config),
      objective_(std::move(objective)),
      mode_(objective_.primary().mode),
      pool_(EnumerateTopologies(config.depth, config.width, config.max_depth)),
      plan_(MakeStagePlan(config, static_cast<int>(pool_.size()))) {
  assert(!objective_.multi() && "NAS ranks by one metric (the parser refuses metrics:)");
}

std::string Tournament::PolicyName() const {
  switch (config_.elimination) {
    case NasElimination::kHistoryBest: return "history_best";
    case NasElimination::kHistoryAverage: return "history_average";
    case NasElimination::kCurrentBest: return "current_best";
    case NasElimination::kCurrentAverage: return "current_average";
  }
  return "history_best";
}

// Scores are the negated loss, higher is better in either mode, so rounds rank by one rule;
// a NaN value scores -inf (the worst), as the objective's ordering ranks it. A failed
// record (or one with no objective) scores FailedScore.
Score Tournament::ScoreOf(const TrialRecord& record) const {
  if (record.state != TrialState::kCompleted || !record.objective) return FailedScore();
  const double violation = objective_.constrained() ? objective_.Violation(record.last_metrics) : 0;
  return Score(-AsLoss(mode_, *record.objective), violation);
}
double Tournament::FromScore(double value) const { return FromLoss(mode_, -value); }
// A failed evaluation scores failed_score where the config sets it, else 0 for max (the
// source engine's rule) and the worst possible score for min. Under constraints it has
// no metrics to be feasible with: violation +inf, as a missing constraint metric.
Score Tournament::FailedScore() const {
  const double value = config_.failed_score ? -AsLoss(mode_, *config_.failed_score)
                       : mode_ == Mode::kMax ? 0.0
                                             : -INFINITY;
  return Score(value, objective_.constrained() ? INFINITY : 0.0);
}

std::vector<Tournament::Eval> Tournament::Collect(const std::vector<TrialRecord>& history) const {
  std::vector<Eval> evals(plan_.slots.size());
  for (const TrialRecord& record : history) {
    if (record.number < 0 || record.number >= static_cast<int>(evals.size()) || !Finished(record))
      continue;
    Eval& eval = evals[record.number];
    const Json& params = record.params;
    if (plan_.slots[record.number].stage == Stage::kRetrain) {
      eval.done = true;
      eval.failed = record.state != TrialState::kCompleted || !record.objective;
      eval.score = ScoreOf(record);
      continue;
    }
    const auto topology = params.find("nas_topology");
    const auto code = params.find("nas_code");
    if (topology == params.end() || !topology->is_number_integer() || code == params.end() ||
        !code->is_array())
      continue;  // not one of ours: ignore rather than guess
    eval.topology = topology->get<int>();
    if (eval.topology < 0 || eval.topology >= static_cast<int>(pool_.size())) continue;
    for (const Json& d : *code) eval.code.push_back(d.is_number_integer() ? d.get<int>() : 0);
    eval.done = true;
    eval.failed = record.state != TrialState::kCompleted || !record.objective;
    eval.score = ScoreOf(record);
  }
  return evals;
}

int Tournament::FirstTrial(int block, Stage stage, int round) const {
  for (std::size_t k = 0; k < plan_.slots.size(); ++k) {
    const Slot& slot = plan_.slots[k];
    if (slot.block == block && slot.stage == stage && slot.round == round)
      return static_cast<int>(k);
  }
  return -1;
}

// Rounds of `block` replayed in order; a running round's missing results count as
// failures (its entries are then provisional: complete == false).
std::vector<RoundOutcome> Tournament::Rounds(int block, const std::vector<Eval>& evals) const {
  std::vector<RoundOutcome> rounds;
  std::vector<int> alive(pool_.size());
  std::iota(alive.begin(), alive.end(), 0);
  const Score failed = FailedScore();
  std::vector<std::vector<Score>> history(pool_.size());
  for (int round = 1; round <= plan_.rounds; ++round) {
    const int first = FirstTrial(block, Stage::kRound, round);
    const int count = round == 1 ? plan_.survivors[0] : plan_.survivors[round - 1] * config_.samples_per_round;
    RoundOutcome outcome{round, true, {}};
    std::vector<std::vector<Score>> current(pool_.size());
    std::vector<int> finished(pool_.size(), 0);
    for (int i = 0; i < count; ++i) {
      const Eval& eval = evals[first + i];
      const int planned = round == 1 ? alive[i] : alive[i / config_.samples_per_round];
      const int topology = eval.done ? eval.topology : planned;
      if (!eval.done) outcome.complete = false;
      else ++finished[topology];
      current[topology].push_back(eval.done ? eval.score : failed);
      history[topology].push_back(eval.done ? eval.score : failed);
    }
    std::vector<std::pair<Score, int>> ranked;  // (value, topology)
    for (int topology : alive) {
      const bool whole = config_.elimination == NasElimination::kHistoryBest ||
                         config_.elimination == NasElimination::kHistoryAverage;
      const std::vector<Score>& scores = whole ? history[topology] : current[topology];
      const bool best = config_.elimination == NasElimination::kHistoryBest ||
                        config_.elimination == NasElimination::kCurrentBest;
      Score value = failed;
      if (!scores.empty()) value = best ? *std::max_element(scores.begin(), scores.end()) : Mean(scores);
      ranked.emplace_back(value, topology);
    }
    // Best first; ties go to the lower topology id (stable, deterministic).
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t keep = ranked.size() - ranked.size() / 2;
    std::vector<int> next;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      const auto [value, topology] = ranked[i];
      RoundEntry entry{topology, std::nullopt, value.violation, finished[topology], i >= keep};
      if (std::isfinite(value.value)) entry.value = FromScore(value.value);
      outcome.entries.push_back(entry);
      if (i < keep) next.push_back(topology);
    }
    std::sort(next.begin(), next.end());
    alive = std::move(next);
    rounds.push_back(std::move(outcome));
  }
  return rounds;
}

std::vector<int> Tournament::Alive(int block, int after_round, const std::vector<Eval>& evals) const {
  std::vector<int> alive(pool_.size());
  std::iota(alive.begin(), alive.end(), 0);
  if (after_round == 0) return alive;
  const std::vector<RoundOutcome> rounds = Rounds(block, evals);
  alive.clear();
  for (const RoundEntry& entry : rounds[after_round - 1].entries)
    if (!entry.eliminated) alive.push_back(entry.topology);
  std::sort(alive.begin(), alive.end());
  return alive;
}

Code Tournament::Sample(int number, int topology, int block, const std::vector<Eval>& evals,
                        bool async) const {
  const OperationSpace space(config_, pool_[topology], block - 1);
  Racos racos(space.sizes(), config_.racos,
              [&space](const std::vector<int>& code) { return space.Relevant(code); });
  const int group = plan_.slots[number].group;
  std::vector<Scored> history;
  for (std::size_t k = 0; k < evals.size(); ++k) {
    const Slot& slot = plan_.slots[k];
    if (!evals[k].done || evals[k].topology != topology || slot.block != block ||
        slot.stage == Stage::kConfirm || slot.stage == Stage::kRetrain)
      continue;
    if (slot.group < group || (async && slot.group == group))
      history.push_back(Scored{evals[k].code, evals[k].score});
  }
  RandomStream stream(config_.seed, static_cast<std::uint64_t>(number));
  return space.Canonical(racos.Next(history, stream));
}

Tournament::Choice Tournament::Best(const std::vector<int>& trials,
                                    const std::vector<Eval>& evals) const {
  std::optional<int> best;
  for (int k : trials)
    if (evals[k].done && (!best || evals[k].score > evals[*best].score)) best = k;
  if (!best) return Choice{-1, {}};
  return Choice{evals[*best].topology, evals[*best].code};
}

// The architecture block `block` confirms: the confirm trial's own when it ran (its
// params are the record), else the best evaluation of the winner refinement (of the
// winner's evaluations without one; of the whole block for the random baseline).
Tournament::Choice Tournament::Confirmed(int block, const std::vector<Eval>& evals) const {
  const int confirm = FirstTrial(block, Stage::kConfirm, 0);
  assert(confirm >= 0 && "every block's plan has a confirm slot");
  if (evals[confirm].done) return Choice{evals[confirm].topology, evals[confirm].code};
  std::vector<int> winner_trials, topology_trials, block_trials;
  const std::vector<int> alive = Alive(block, plan_.rounds, evals);
  assert(!alive.empty() && "a round never eliminates every topology");
  for (std::size_t k = 0; k < plan_.slots.size(); ++k) {
    const Slot& slot = plan_.slots[k];
    if (slot.block != block || slot.stage == Stage::kConfirm || slot.stage == Stage::kRetrain)
      continue;
    block_trials.push_back(static_cast<int>(k));
    if (slot.stage == Stage::kWinner) winner_trials.push_back(static_cast<int>(k));
    if (evals[k].topology == alive.front()) topology_trials.push_back(static_cast<int>(k));
  }
  Choice choice;
  if (config_.search != NasSearch::kTournament) choice = Best(block_trials, evals);
  else {
    choice = Best(winner_trials, evals);
    if (choice.topology < 0) choice = Best(topology_trials, evals);
  }
  if (choice.topology >= 0) return choice;
  // Nothing finished yet (only while planning): a placeholder.
  const int winner = alive.front();
  assert(winner >= 0 && static_cast<std::size_t>(winner) < pool_.size());
  const OperationSpace space(config_, pool_[winner], block - 1);
  return Choice{winner, Code(space.sizes().size(), 0)};
}

// The random baseline's draw for trial `number`: a uniform topology, uniform operations.
Tournament::Choice Tournament::RandomChoice(int number, int block) const {
  RandomStream pick(config_.seed ^ kTopologyStream, static_cast<std::uint64_t>(number));
  const int topology = pick.Below(static_cast<int>(pool_.size()));
  const OperationSpace space(config_, pool_[topology], block - 1);
  const Racos racos(space.sizes(), config_.racos,
                    [&space](const std::vector<int>& code) { return space.Relevant(code); });
  RandomStream stream(config_.seed, static_cast<std::uint64_t>(number));
  return Choice{topology, space.Canonical(racos.Uniform(stream))};
}

Tournament::Choice Tournament::Evolve(int number, const std::vector<Eval>& evals) const {
  const int block = plan_.slots[number].block;
  int position = 0;            // search evaluations of the block before this one
  std::vector<int> population;  // finished ones that did not fail, oldest first
  for (int k = 0; k < number; ++k) {
    const Slot& slot = plan_.slots[k];
    if (slot.block != block || !SearchStage(slot.stage)) continue;
    ++position;
    if (evals[k].done && !evals[k].failed && evals[k].topology >= 0) population.push_back(k);
  }
  const int size = config_.evolution.population;
  if (position < size || population.empty()) return RandomChoice(number, block);
  if (static_cast<int>(population.size()) > size)
    population.erase(population.begin(), population.end() - size);

  RandomStream stream(config_.seed ^ kEvolutionStream, static_cast<std::uint64_t>(number));
  const int sample = std::min(config_.evolution.sample, static_cast<int>(population.size()));
  for (int i = 0; i < sample; ++i)  // partial Fisher-Yates: S distinct members
    std::swap(population[i], population[i + stream.Below(static_cast<int>(population.size()) - i)]);
  int parent = population[0];
  for (int i = 1; i < sample; ++i)
    if (evals[population[i]].score > evals[parent].score ||
        (evals[population[i]].score == evals[parent].score && population[i] < parent))
      parent = population[i];

  // The mutation: the topology (when the pool has another) or one relevant dimension of
  // more than one value, uniformly.
  Choice child{evals[parent].topology, evals[parent].code};
  const OperationSpace space(config_, pool_[child.topology], block - 1);
  child.code.resize(space.sizes().size(), 0);
  const std::vector<bool> relevant = space.Relevant(child.code);
  std::vector<int> dims;
  for (std::size_t d = 0; d < space.sizes().size(); ++d)
    if (relevant[d] && space.sizes()[d] > 1) dims.push_back(static_cast<int>(d));
  const int topologies = static_cast<int>(pool_.size());
  const int options = static_cast<int>(dims.size()) + (topologies > 1 ? 1 : 0);
  if (options == 0) return child;
  const int pick = stream.Below(options);
  if (pick == static_cast<int>(dims.size())) {
    const int other = stream.Below(topologies - 1);
    child.topology = other >= child.topology ? other + 1 : other;
    const OperationSpace changed(config_, pool_[child.topology], block - 1);
    const Racos racos(changed.sizes(), config_.racos,
                      [&changed](const std::vector<int>& code) { return changed.Relevant(code); });
    child.code = changed.Canonical(racos.Uniform(stream));
    return child;
  }
  const int d = dims[pick];
  const int values = space.sizes()[d];
  child.code[d] = (child.code[d] + 1 + stream.Below(values - 1)) % values;
  child.code = space.Canonical(child.code);
  return child;
}

Tournament::Choice Tournament::Candidate(int number, const std::vector<Eval>& evals) const {
  const Slot& slot = plan_.slots[number];
  if (slot.stage == Stage::kConfirm) return Confirmed(slot.block, evals);
  if (config_.search == NasSearch::kRandom) return RandomChoice(number, slot.block);
  if (config_.search == NasSearch::kEvolution) return Evolve(number, evals);
  int topology = 0;
  if (slot.stage == Stage::kWinner) {
    topology = Alive(slot.block, plan_.rounds, evals).front();
  } else {
    const std::vector<int> alive = Alive(slot.block, slot.round - 1, evals);
    const std::size_t at = static_cast<std::size_t>(
        slot.round == 1 ? slot.index : slot.index / config_.samples_per_round);
    assert(slot.index >= 0 && at < alive.size() && "the stage plan sized this round to its survivors");
    topology = alive[at];
  }
  return Choice{topology, Sample(number, topology, slot.block, evals, slot.stage == Stage::kWinner)};
}

Json Tournament::Architecture(int upto_block, const Choice* candidate,
                              const std::vector<Eval>& evals) const {
  Json blocks = Json::array();
  for (int block = 1; block <= upto_block; ++block) {
    const Choice confirmed = Confirmed(block, evals);
    blocks.push_back(OperationSpace(config_, pool_[confirmed.topology], block - 1).Cell(confirmed.code));
  }
  if (candidate != nullptr)
    blocks.push_back(
        OperationSpace(config_, pool_[candidate->topology], upto_block).Cell(candidate->code));
  return Json{{"schema", 1}, {"blocks", std::move(blocks)}};
}

Params Tournament::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::vector<Eval> evals = Collect(history);
  const Slot& slot = plan_.slots[number];
  Params params = Json::object();
  Choice choice;
  if (slot.stage == Stage::kRetrain) {
    params["architecture"] = Architecture(slot.block, nullptr, evals);
    choice.topology = -1;
  } else {
    choice = Candidate(number, evals);
    params["architecture"] = Architecture(slot.block - 1, &choice, evals);
  }
  params["nas_stage"] = std::string(ToString(slot.stage));
  params["nas_block"] = slot.block;
  params["nas_round"] = slot.round;
  params["data_size"] = slot.data_size;
  params["epochs"] = slot.epochs;
  params["nas_topology"] = choice.topology;
  params["nas_code"] = choice.code;
  if (config_.dry_run) {
    RandomStream stream(config_.seed ^ kDryScoreStream, static_cast<std::uint64_t>(number));
    params["nas_dry_score"] = std::round(stream.Unit() * 1e6) / 1e6;
  }
  return params;
}

TournamentState Tournament::Replay(const std::vector<TrialRecord>& history) const {
  const std::vector<Eval> evals = Collect(history);
  TournamentState state;
  for (int block = 1; block <= config_.blocks; ++block) {
    const int first = FirstTrial(block, plan_.rounds > 0 ? Stage::kRound : Stage::kConfirm,
                                 plan_.rounds > 0 ? 1 : 0);
    assert(first >= 0 && "every block has a first slot");
    bool started = false;
    for (std::size_t k = first; k < evals.size() && plan_.slots[k].block == block; ++k)
      started = started || evals[k].done;
    if (!started && block > 1 && !evals[FirstTrial(block - 1, Stage::kConfirm, 0)].done) break;
    BlockOutcome outcome;
    outcome.block = block;
    for (RoundOutcome& round : Rounds(block, evals)) {
      const bool any = std::any_of(round.entries.begin(), round.entries.end(),
                                   [](const RoundEntry& e) { return e.evaluations > 0; });
      if (!any) break;
      const bool complete = round.complete;
      outcome.rounds.push_back(std::move(round));
      if (!complete) break;
    }
    const bool rounds_done = static_cast<int>(outcome.rounds.size()) == plan_.rounds &&
                             (plan_.rounds == 0 || outcome.rounds.back().complete);
    if (rounds_done) outcome.winner = Alive(block, plan_.rounds, evals).front();
    const int confirm = FirstTrial(block, Stage::kConfirm, 0);
    if (evals[confirm].done) {
      outcome.confirm_trial = confirm;
      outcome.confirm_failed = evals[confirm].failed;
      outcome.confirm_violation = evals[confirm].score.violation;
      if (!evals[confirm].failed) outcome.confirm_score = FromScore(evals[confirm].score.value);
    }
    state.blocks.push_back(std::move(outcome));
  }
  assert(!evals.empty() && "every plan ends with a retrain slot");
  const Eval& retrain = evals.back();
  if (retrain.done) {
    state.retrain_failed = retrain.failed;
    state.retrain_violation = retrain.score.violation;
    if (!retrain.failed) state.retrain_score = FromScore(retrain.score.value);
  }
  return state;
}

}  // namespace gpusweep::nas
