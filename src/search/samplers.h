// samplers.h — the concrete samplers behind MakeSampler (see gpusweep/sampler.h for
// their contracts). Constructors assume a space MakeSampler has validated.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gpusweep/objective.h"
#include "gpusweep/sampler.h"
#include "search/tpe_space.h"

namespace gpusweep::search {

// How many values an int param enumerates: low, low+step, ... <= high (0 if high < low;
// saturates at UINT64_MAX for the full int64 range).
std::uint64_t IntCardinality(const ParamSpec& spec);

// The index-th value of an int param (index < IntCardinality).
std::int64_t IntValue(const ParamSpec& spec, std::uint64_t index);

// An int param on a log scale (int_log) from u in [0, 1]: exp of u's point in
// [log(low - 0.5), log(high + 0.5)], rounded to the nearest integer and kept in
// [low, high]. Integer k is drawn with probability log((k + 0.5) / (k - 0.5)) / span,
// the log-uniform mass of its cell.
std::int64_t LogIntValue(const ParamSpec& spec, double u);
// The bounds of that log-space interval: {log(low - 0.5), log(high + 0.5)}.
std::pair<double, double> LogIntBounds(const ParamSpec& spec);

// A param's value from 64 uniform random bits (u = bits / 2^64): uniform low + u*(high-low);
// loguniform exp of that in log space; int floor(u * cardinality)-th value by step (on a
// log scale LogIntValue);
// choice floor(u * count)-th value; constant its value (the bits are ignored).
Json ParamValueFromBits(const ParamSpec& spec, std::uint64_t bits);

class GridSampler final : public Sampler {
 public:
  GridSampler(SearchSpace space, std::int64_t grid_size, int repeats);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  bool reads_history() const override { return false; }  // a function of the number

 private:
  SearchSpace space_;
  std::int64_t grid_size_;
  int repeats_;
};

class RandomSampler final : public Sampler {
 public:
  RandomSampler(SearchSpace space, int trials, std::uint64_t seed);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  bool reads_history() const override { return false; }  // a function of (seed, number)

 private:
  SearchSpace space_;
  int trials_;
  std::uint64_t seed_;
};

// Highest number of varying params the Sobol sampler supports (Boost's direction-number
// table).
std::size_t MaxSobolDimensions();

class SobolSampler final : public Sampler {
 public:
  SobolSampler(SearchSpace space, int trials, std::uint64_t seed);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  bool reads_history() const override { return false; }  // a function of (seed, number)

 private:
  SearchSpace space_;
  int trials_;
  std::vector<std::uint64_t> shift_;  // digital shift of each varying param's coordinate
};

class TpeSampler final : public Sampler {
 public:
  // One metric to optimise in direction `mode`, read from each trial's `objective`.
  TpeSampler(SearchSpace space, int trials, std::uint64_t seed, const TpeConfig& config,
             Mode mode);
  // Any objective: several metrics and/or constraints make it multi-objective TPE
  // (tpe_mo_history.h); one unconstrained metric is the constructor above.
  TpeSampler(SearchSpace space, int trials, std::uint64_t seed, const TpeConfig& config,
             Objective objective);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

 private:
  RandomSampler startup_;  // the first n_startup_trials: the random sampler's stream
  TpeSpace model_space_;
  int trials_;
  std::uint64_t seed_;
  TpeConfig config_;
  Objective objective_;
};

// The Gaussian-process sampler (gp_sampler.cc; the model in gp_model.h, the acquisition
// in gp_acquisition.h). Its first n_startup_trials come from the Sobol sampler (random
// beyond Sobol's dimensions) with the same seed.
class GpSampler final : public Sampler {
 public:
  GpSampler(SearchSpace space, int trials, std::uint64_t seed, const GpConfig& config,
            Objective objective);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

 private:
  std::unique_ptr<Sampler> startup_;
  TpeSpace model_space_;  // the param <-> model-value mapping TPE uses
  int trials_;
  std::uint64_t seed_;
  GpConfig config_;
  Objective objective_;  // several metrics: ParEGO; constraints: a GP per bound
};

// NSGA-II (contract in gpusweep/sampler.h; Deb et al. 2002), steady-state: every
// suggestion breeds from the completed trials at that moment, so no trial waits for a
// generation.
class Nsga2Sampler final : public Sampler {
 public:
  Nsga2Sampler(SearchSpace space, int trials, std::uint64_t seed, const Nsga2Config& config,
               Objective objective);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

 private:
  RandomSampler startup_;  // the first generation: the random sampler's stream
  TpeSpace model_space_;
  int trials_;
  std::uint64_t seed_;
  Nsga2Config config_;
  Objective objective_;
};

// Enqueued settings first: trial k < n (n = enqueued.size()) gets enqueued[k], with the
// parameters it leaves out taken from the inner sampler's suggestion for trial k (a
// grid's point k, wrapped to the grid's size). Later trials are the inner sampler's:
// kSameNumbers (samplers with a trial count, which counts the enqueued trials) gives
// trial k the inner trial k, so TPE sees every earlier trial and random/sobol keep their
// streams; kAfterEnqueued (the grid, all of whose points run) gives it inner trial k - n.
class EnqueuedFirst final : public Sampler {
 public:
  enum class Numbering { kSameNumbers, kAfterEnqueued };
  // `space`: in a conditional space, the merged setting keeps only its active leaves.
  EnqueuedFirst(std::unique_ptr<Sampler> inner, SearchSpace space, std::vector<Params> enqueued,
                Numbering numbering);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  bool reads_history() const override { return inner_->reads_history(); }

 private:
  std::unique_ptr<Sampler> inner_;
  SearchSpace space_;
  std::vector<Params> enqueued_;
  int offset_;  // n for kAfterEnqueued, else 0
};

}  // namespace gpusweep::search
