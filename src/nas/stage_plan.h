// stage_plan.h — the static shape of a NAS run: which evaluation trial k is.
//
// Contract: a pure function of the config and the size of the topology pool. The count
// of evaluations per stage never depends on scores (eliminations change which topology
// a slot evaluates, never how many slots there are), so trial numbers are fixed before
// the first evaluation and the run loop can journal them like any sweep's.
//
// Per block: rounds while more than one topology is left (round 1 evaluates each of the
// n topologies once; round r >= 2 gives each survivor `samples_per_round` samples; after
// each round floor(n/2) topologies go: 15 -> 8 -> 4 -> 2 -> 1), then `winner_samples`
// evaluations of the last one (winner refinement), then one confirm. After the last
// block, one retrain. Evaluations of one group (a round, the winner stage, a confirm,
// the retrain) run in parallel; a group starts when every earlier one has finished.
#pragma once

#include <string_view>
#include <vector>

#include "gpusweep/nas_config.h"

namespace gpusweep::nas {

enum class Stage { kRound, kWinner, kConfirm, kRetrain };

std::string_view ToString(Stage stage);  // "round", "winner", "confirm", "retrain"

struct Slot {
  Stage stage = Stage::kRound;
  int block = 1;      // 1-based; for the retrain: the number of blocks
  int round = 0;      // 1-based in Stage::kRound, else 0
  int index = 0;      // 0-based within its round / stage
  int group = 0;      // synchronisation group, increasing with the trial number
  int data_size = 0;  // training images (0: all, the retrain's default)
  int epochs = 0;
};

struct StagePlan {
  std::vector<Slot> slots;       // slots[k] is trial k
  std::vector<int> survivors;    // survivors[r-1]: topologies in round r of a block
  int rounds = 0;                // rounds per block
  int groups = 0;
};

// Data size of round `round` (1-based) of any block: linear init + (round-1) * step or
// geometric init * scale^(round-1), rounded down, capped at `max` (and INT_MAX).
int RoundDataSize(const NasDataSize& schedule, int round);

StagePlan MakeStagePlan(const NasConfig& config, int topologies);

}  // namespace gpusweep::nas
