// tournament.h — the block-wise tournament as a pure function of the trial history.
//
// Contract: everything here is a function of (config, mode, the topology pool, the
// trial records). There is no hidden state: RACOS's sets, each round's eliminations,
// the winner, the confirmed blocks are all recomputed from the journal's trial records
// (their params `nas_topology`/`nas_code` and their results), so a resumed run, `status`
// and `export` see exactly the state the killed run had. Scores: a completed trial's
// objective; a failed one (any reason: exit code, timeout, signal) scores
// `failed_score`; a trial not finished yet has no score. When a later slot is asked
// for before its round finished (PlanRun renders every trial with no history), the
// missing scores count as failures, which gives a valid placeholder architecture.
// Constraints (the objective's, `constraints:`): a score also carries the evaluation's
// total violation (Objective::Violation of its last metrics; a failed evaluation's is
// +inf, as a missing constraint metric's is), and every comparison — a round's ranking,
// the best evaluation a confirm takes, RACOS's positives, evolution's parents — puts
// feasible before infeasible (nas::Score). The *_average eliminations average both
// value and violation, so a topology with one infeasible evaluation in the average
// ranks below every topology whose evaluations were all feasible.
//
// Determinism: slot k draws from its own random stream (seed, k). A round's samples
// see only earlier rounds' results (independent of how many ran at once); winner
// refinement's see every result finished when they start (asynchronous, as the seed).
//
// search: evolution (regularized evolution, Real et al. AAAI 2019) spends the same plan's
// round and winner evaluations of a block differently: the block's first P of them
// are random architectures (as the random baseline draws them); each later one takes
// the block's P newest finished, not failed, evaluations numbered below it, draws S of
// them (stream (seed, k)), and mutates the best one in one place: its topology (a
// different one, with random operations) or one relevant operation dimension (a
// different value), chosen uniformly. Asynchronous: it sees every result finished when
// it starts. The confirm takes the block's best evaluation, as the random baseline does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/objective.h"
#include "gpusweep/trial.h"
#include "nas/op_space.h"
#include "nas/racos.h"
#include "nas/stage_plan.h"
#include "nas/topology.h"

namespace gpusweep::nas {

// One topology's fate in one round.
struct RoundEntry {
  int topology = 0;
  std::optional<double> value;  // the policy's value in metric units (nullopt: all failed)
  double violation = 0;         // the policy's violation (0: feasible; constraints only)
  int evaluations = 0;          // finished evaluations this round
  bool eliminated = false;
};

struct RoundOutcome {
  int round = 0;
  bool complete = false;           // every evaluation of the round finished
  std::vector<RoundEntry> entries; // the topologies that played, best first
};

struct BlockOutcome {
  int block = 0;
  std::vector<RoundOutcome> rounds;      // complete rounds, then at most one running
  std::optional<int> winner;             // known once every round is complete
  std::optional<int> confirm_trial;      // trial whose architecture was confirmed
  std::optional<double> confirm_score;   // the block's result (metric units)
  double confirm_violation = 0;          // its total violation (0: feasible)
  bool confirm_failed = false;
};

struct TournamentState {
  std::vector<BlockOutcome> blocks;  // blocks reached so far
  std::optional<double> retrain_score;
  double retrain_violation = 0;
  bool retrain_failed = false;
};

class Tournament {
 public:
  // The objective has one metric (NAS is single-objective; asserted) and any constraints.
  Tournament(const NasConfig& config, Objective objective);

  const StagePlan& plan() const { return plan_; }
  const std::vector<Topology>& pool() const { return pool_; }

  // The params of trial `number` (0 <= number < plan().slots.size()) given the history.
  Params Suggest(int number, const std::vector<TrialRecord>& history) const;

  TournamentState Replay(const std::vector<TrialRecord>& history) const;

  // The policy's name, e.g. "history_best".
  std::string PolicyName() const;

 private:
  struct Eval {
    bool done = false;
    Score score;  // larger is better (negated for mode min), feasible first
    bool failed = false;
    int topology = -1;
    Code code;
  };
  struct Choice {
    int topology = 0;
    Code code;
  };
  std::vector<Eval> Collect(const std::vector<TrialRecord>& history) const;
  Score ScoreOf(const TrialRecord& record) const;
  double FromScore(double value) const;
  Score FailedScore() const;
  std::vector<RoundOutcome> Rounds(int block, const std::vector<Eval>& evals) const;
  std::vector<int> Alive(int block, int after_round, const std::vector<Eval>& evals) const;
  int FirstTrial(int block, Stage stage, int round) const;
  Choice Candidate(int number, const std::vector<Eval>& evals) const;
  Choice Confirmed(int block, const std::vector<Eval>& evals) const;
  Choice Best(const std::vector<int>& trials, const std::vector<Eval>& evals) const;
  Choice RandomChoice(int number, int block) const;
  Choice Evolve(int number, const std::vector<Eval>& evals) const;
  Code Sample(int number, int topology, int block, const std::vector<Eval>& evals,
              bool async) const;
  Json Architecture(int upto_block, const Choice* candidate, const std::vector<Eval>& evals) const;

  NasConfig config_;
  Objective objective_;
  Mode mode_;  // objective_'s one metric's
  std::vector<Topology> pool_;
  StagePlan plan_;
};

}  // namespace gpusweep::nas
