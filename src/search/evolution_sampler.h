// evolution_sampler.h — regularized (aging) evolution (Real, Aggarwal, Huang, Le,
// "Regularized Evolution for Image Classifier Architecture Search", AAAI 2019,
// Algorithm 1) over any search space, as a pure function of the trial history.
//
// The population is the P most recent results: the trials with a result numbered
// below the one suggested (completed, or pruned/paused with their last value;
// warm-start trials, numbered < 0, are older than all of this experiment's), the P
// highest-numbered of them. Taking the newest P is the aging: a model leaves the
// population because it is old, not because it is bad. Trial k is drawn from the prior
// (the random sampler's stream for k) while k < P - W (W: warm-start results, at most P),
// or while no trial has a result yet; else S distinct members are drawn (stream (seed,
// k)), the best of them (completed before pruned, then by objective, then the older)
// is the parent, and the child is the parent with one parameter changed: a parameter
// chosen uniformly among those with more than one value gets a new value from its prior
// (a different one for choice and int params). Failed trials and those with a missing
// value are not part of the population. Asynchronous: a trial sees every result recorded
// before it is suggested, whatever still runs.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusweep/sampler.h"
#include "search/samplers.h"

namespace gpusweep::search {

class EvolutionSampler final : public Sampler {
 public:
  // A space MakeSampler validated; 1 <= config.sample <= config.population.
  EvolutionSampler(SearchSpace space, int trials, std::uint64_t seed,
                   const EvolutionConfig& config, Mode mode);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

 private:
  SearchSpace space_;
  RandomSampler prior_;
  std::vector<std::size_t> mutable_;  // params with more than one value
  std::uint64_t seed_;
  EvolutionConfig config_;
  Mode mode_;
};

}  // namespace gpusweep::search
