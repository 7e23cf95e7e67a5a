// nas.h — neural-architecture search: the seed's block-wise tournament (topology pool,
// RACOS per topology, tournament rounds with growing data, winner refinement, confirm,
// blocks, retrain) as one search policy (gpusweep/policy.h) the ordinary run loop drives.
//
// Contract: every NAS evaluation is an ordinary trial. The policy gives trial k its
// params (architecture JSON, stage, block, round, data size, epochs: docs/nas.md) as a
// pure function of the config and the trial history, and releases trials group by
// group (a round, the winner refinement, a confirm, the retrain); its calls are
// replayed from the journal like a scheduler's. The trial loop learns nothing about
// rounds or blocks. All state (`NasProgress`) is recomputed from the trial records.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/objective.h"
#include "gpusweep/policy.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// Largest topology pool accepted (the seed's default is 15).
inline constexpr long kMaxNasTopologies = 2000;

// Error{kInvalidConfig} ("nas.width: ...; ...") when the pool would exceed
// kMaxNasTopologies or be a single topology with nothing to compare.
// The policy: total_trials() is every evaluation of the plan, style kBudgeted with no
// budgets (0), journaled; --retry-failed reruns only a failed retrain (failed
// evaluations scored failed_score and the tournament decided with it). `objective` is
// the experiment's (ObjectiveOf): one metric (asserted: the parser refuses metrics:
// for NAS) and its constraints, which every ranking honours feasible-first (docs/nas.md,
// "Constraints").
Expected<std::unique_ptr<SearchPolicy>> MakeNasPolicy(const NasConfig& config,
                                                      const Objective& objective);

// The inverse of NasConfigJson (config.h), for commands that read the config from the
// journal's stored identity. Error{kJournal} when a key is missing or mistyped.
Expected<NasConfig> NasConfigFromJson(const Json& json);

// Number of topologies for (depth, width, max_depth), counted without enumerating
// (multisets of up to `width` of the branches); saturates at LONG_MAX.
long CountNasTopologies(int depth, int width, int max_depth);

// The environment a NAS trial gets besides its params.json: GPUSWEEP_NAS_STAGE,
// GPUSWEEP_NAS_BLOCK, GPUSWEEP_NAS_ROUND, GPUSWEEP_DATA_SIZE, GPUSWEEP_EPOCHS (from its
// params; empty for params without them).
std::vector<std::pair<std::string, std::string>> NasTrialEnv(const Params& params);

// Where a NAS evaluation sits in the plan, from its params, for `show`: "block 1, round
// 2 (data 4000, epochs 1)", "block 2, winner refinement (...)", "block 1, confirm (...)",
// "retrain (data all, epochs 10)". Empty for params that are not a NAS evaluation's.
std::string NasStageText(const Params& params);

// Where a NAS search stands, recomputed from the trial records (for `status`,
// `export` and the end-of-run summary).
struct NasEliminated {
  int topology = 0;
  int round = 0;
  std::optional<double> value;  // the policy's value it lost with (nullopt: all failed)
  double violation = 0;         // the policy's constraint violation (0: feasible)
};
struct NasStageRecord {  // the seed's Stage_Info, one per block x stage (x round)
  int block = 0;
  std::string stage;     // "round", "winner", "confirm", "retrain"
  int round = 0;
  int evaluations = 0;   // planned
  int finished = 0;
  int failed = 0;
  int infeasible = 0;    // completed but violating a constraint
  int data_size = 0;
  int epochs = 0;
  std::optional<double> start;  // Unix seconds of the first start
  std::optional<double> end;     // of the last end, once all finished
  double cost = 0;               // sum of the evaluations' run times, seconds
  std::optional<double> best;    // best score among its (feasible, with constraints) evaluations
};
struct NasBlockProgress {
  int block = 0;
  int round = 0;                       // rounds played (the last may still run)
  std::vector<int> survivors;          // topologies still in
  std::vector<NasEliminated> eliminated;
  std::optional<int> winner;
  std::optional<int> confirm_trial;
  std::optional<double> confirm_score;
  double confirm_violation = 0;
};
struct NasProgress {
  std::string policy;     // elimination policy
  std::string search;     // "tournament" or "random"
  int topologies = 0;
  int evaluations = 0;    // planned in all
  std::vector<NasBlockProgress> blocks;
  std::vector<NasStageRecord> stages;
  std::optional<double> retrain_score;
  double retrain_violation = 0;
  std::optional<double> retrain_test;  // the retrain trial's reported test_acc, if any
};
NasProgress ReplayNas(const NasConfig& config, const Objective& objective,
                      const std::vector<TrialRecord>& trials);

// The progress as JSON (export --format json's "nas" object).
Json NasProgressJson(const NasProgress& progress);
// The progress as text lines for `status`: block, round, survivors, eliminations,
// stage records, the final result.
std::vector<std::string> NasProgressLines(const NasProgress& progress);

}  // namespace gpusweep
