// sampler.h — turns a search space into the parameters of trial 0, 1, 2, ...
//
// Contract: a sampler is pure and deterministic given its config (kind, seed, trials,
// repeats), the search space and the trial history. Suggest(k) returns the same params
// for the same k every time, whatever was suggested before, so a resumed experiment
// continues exactly where it stopped and `trial k` always means the same params.
// Params are a JSON object with every search-space parameter (constants included) in
// declaration order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// The parameters of one trial.
struct Suggestion {
  int number = 0;  // 0-based trial number
  int repeat = 0;  // grid: which pass over the grid (0..repeats-1); random: 0
  Params params = Json::object();
};

// Grid sampler (SamplerKind::kGrid): trial k has repeat = k / G and grid index
// r = k % G, where G = GridSize(space). r is decomposed mixed-radix over the varying
// parameters in declaration order, the LAST declared varying fastest (the order of
// akid's `tune`: index = repeat*(n*m) + i*n + j for opt_paras (m values, declared
// first, index i) and net_paras (n values, declared second, index j)). Choice params
// enumerate `values` in order; int params enumerate low, low+step, ... <= high;
// constants do not multiply the grid.
//
// Random sampler (SamplerKind::kRandom): trial k's params are a pure function of
// (seed, k). Each trial gets its own SplitMix64 stream (Steele, Lea & Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014) seeded from a hash of seed
// and k; parameter i of the declaration order consumes draw i (constants consume one
// too, so turning a constant into a varied param does not move the others). Doubles
// use the top 53 bits: u in [0, 1). uniform: low + u*(high-low); loguniform:
// exp(log(low) + u*(log(high)-log(low))); int: one of low..high by step, uniformly;
// choice: one of `values`, uniformly.
class Sampler {
 public:
  virtual ~Sampler() = default;

  // grid: GridSize x repeats; random: trials. Always >= 1.
  virtual int total_trials() const = 0;

  // Parameters for trial `number` (precondition: 0 <= number < total_trials()).
  // `history` is every trial recorded so far; grid and random ignore it (it is there
  // for model-based samplers).
  virtual Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const = 0;

  // Whether Suggest reads `history` at all. false (grid, random, Sobol, and enqueued
  // settings over one of them): the trial loop need not keep finished trials' params
  // (SearchPolicy::reads_finished_trials), which at 100,000 trials is most of a run's
  // memory. Model-based samplers keep the default.
  virtual bool reads_history() const { return true; }
};

// Largest grid (GridSize x repeats) MakeSampler accepts.
inline constexpr std::int64_t kMaxGridTrials = 10'000'000;

// Sobol sampler (SamplerKind::kSobol): trial k is point k of a scrambled Sobol
// sequence (Boost.Random's sobol engine, dimension = number of varying params, with a
// random digital shift drawn from `seed`), each coordinate mapped through its param's
// distribution (uniform, log, int by step, choice). A pure function of (seed, k).
//
// TPE sampler (SamplerKind::kTpe): the Tree-structured Parzen Estimator (Bergstra et
// al., "Algorithms for Hyper-Parameter Optimization", NeurIPS 2011) with Optuna 3.1's
// refinements (see TpeConfig in config.h). History use: completed trials count with
// their objective, pruned and paused ones with their objective (their last value),
// running ones (constant liar) as the worst value; failed and interrupted trials are
// ignored. Deterministic for a given (seed, number, history).
//
// NSGA-II sampler (SamplerKind::kNsga2): Deb, Pratap, Agarwal & Meyarivan, "A fast and
// elitist multiobjective genetic algorithm: NSGA-II", IEEE TEC 6(2), 2002, made
// steady-state so no trial waits for a generation (docs/samplers.md, "nsga2"). Trials
// 0..population-1 are the random sampler's (same seed, same params); after them, each
// suggestion takes the completed trials of the history whose params are in the space,
// ranks them by the objective's constraint-domination (pareto.h: front, then crowding),
// keeps the best `population` as parents, picks two by binary tournaments, and makes a
// child by SBX / uniform crossover and polynomial / redraw mutation. With fewer than 2
// such parents it draws at random. Running, failed, pruned and interrupted trials are
// ignored. Deterministic for a given (seed, number, history): the history is read in
// trial-number order, whatever order it is given in.
//
// With `config.enqueue`, the enqueued settings are trials 0..n-1, each completed by the
// sampler's own suggestion for that trial; a grid runs all its points after them
// (total = n + grid x repeats), a sampler with a trial count counts them among its trials.
//
// Builds the sampler `config.kind` over `space`; `objective` says which values are better
// (model-based samplers need it; TPE its primary metric's mode). Error{kInvalidConfig} (message names
// the sampler setting or parameter and what would be valid) when: grid over a uniform
// or loguniform param, grid with more than kMaxGridTrials trials, repeats < 1,
// random with trials < 1, more enqueued settings than trials, an enqueued name that is
// not a parameter, or a malformed param (choice without values, int with
// step <= 0 or high < low, uniform with high < low, loguniform with low <= 0 or
// high <= low, non-finite bounds), population < 2, crossover_prob or mutation_prob outside [0, 1], a negative or
// non-finite eta (nsga2), tpe given several metrics or constraints.
// The Mode overload is for single-objective samplers: it refuses nsga2 (kInvalidArgument),
// which reads every objective of the trials.
Expected<std::unique_ptr<Sampler>> MakeSampler(const SamplerConfig& config,
                                               const SearchSpace& space, const Objective& objective);
Expected<std::unique_ptr<Sampler>> MakeSampler(const SamplerConfig& config,
                                               const SearchSpace& space, Mode mode);

// Number of points of the grid over `space`: the product of the choice and int
// cardinalities (1 if there are none; uniform/loguniform/constant params count 1).
// Saturates at INT64_MAX instead of overflowing.
std::int64_t GridSize(const SearchSpace& space);

}  // namespace gpusweep
