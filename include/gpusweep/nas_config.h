// nas_config.h — the `nas:` section of an experiment config (neural-architecture search).
//
// Contract: plain data, validated by the config parser (src/config/nas_parser.cc) before
// anything uses it; the NAS engine (src/nas) reads it and never changes it. Every key
// and its default is documented in docs/nas.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/json.h"

namespace gpusweep {

// How the losers of a tournament round are chosen: by each topology's best or mean
// score, over all its evaluations in the block so far (history) or this round's only.
enum class NasElimination { kHistoryBest, kHistoryAverage, kCurrentBest, kCurrentAverage };

// kTournament: the seed's block-wise tournament with RACOS. kRandom: the baseline, the
// same number of evaluations per stage spent on random architectures of the same space.
// kEvolution: the same evaluations spent on regularized evolution (Real et al., AAAI
// 2019) over each block's architectures (topology and operation code).
enum class NasSearch { kTournament, kRandom, kEvolution };

// Regularized (aging) evolution within a block (docs/nas.md, "search: evolution").
struct NasEvolutionConfig {
  int population = 10;  // P: the newest results of the block that form the population
  int sample = 3;       // S: tournament size (<= P)
};

enum class DataSchedule { kLinear, kGeometric };

// `conv` and `sep_conv`: convolution nodes.
struct NasConvSpace {
  bool enabled = false;
  // filters[b]: the choices of block b (0-based); one list for every block when size 1.
  std::vector<std::vector<int>> filters;
  std::vector<int> kernel;               // odd sizes, e.g. 1, 3, 5
  std::vector<std::string> activation;   // "relu", "leakyrelu", "relu6"
};

// `pooling`: stride-1 pooling nodes (spatial size and channels kept).
struct NasPoolingSpace {
  bool enabled = false;
  std::vector<std::string> pool;  // "avg", "max"
  std::vector<int> kernel;
};

struct NasOperations {
  NasConvSpace conv;
  NasConvSpace sep_conv;
  NasPoolingSpace pooling;
};

// RACOS / SRACOS (Yu, Qian, Hu, AAAI 2016; Hu, Qian, Yu, AAAI 2017).
struct RacosConfig {
  int sample_size = 3;            // negatives kept (SRACOS replaces the oldest)
  int positive_num = 2;           // positives kept (the best so far)
  int uncertain_bit = 1;          // dimensions left free in the shrunk region
  double rand_probability = 0.99; // probability of sampling inside the region
};

// Training-set size per round of one block: linear init + (round-1) * step, or
// geometric init * scale^(round-1), capped at `max` when set. Resets every block.
struct NasDataSize {
  DataSchedule schedule = DataSchedule::kLinear;
  int init = 1000;
  double step = 1000;   // kLinear
  double scale = 2;     // kGeometric
  std::optional<int> max;
};

struct NasEpochs {
  int search = 1;   // rounds and winner refinement
  int confirm = 3;
  int retrain = 10;
};

struct NasConfig {
  int blocks = 1;
  int depth = 4;       // main-chain nodes of a cell
  int width = 2;       // at most this many branches per cell
  int max_depth = 3;   // nodes of one branch
  NasOperations operations;
  int skip_max_distance = 0;  // extra skip edges i -> j on the chain, 2 <= j - i <= this
  int skip_max_count = 0;     // at most this many of them per cell (0: none)
  RacosConfig racos;
  int samples_per_round = 2;
  NasElimination elimination = NasElimination::kHistoryBest;
  int winner_samples = 4;
  NasDataSize data_size;
  std::optional<int> confirm_data_size;  // nullopt: the winner refinement's size
  int retrain_data_size = 0;             // 0: all the training data
  NasEpochs epochs;
  std::optional<double> failed_score;    // nullopt: 0 for mode max, +inf for mode min
  bool dry_run = false;
  NasSearch search = NasSearch::kTournament;
  NasEvolutionConfig evolution;          // search: evolution only
  std::uint64_t seed = 0;
};

// The config as normalized JSON (every key, defaults filled in), for the experiment's
// identity (a changed NAS config refuses to resume) and for `status`.
Json NasConfigJson(const NasConfig& config);

}  // namespace gpusweep
