// pbt_explore.h — population-based training's explore step: a member that copied a
// donor's checkpoint perturbs the donor's params before it continues (Jaderberg et al.,
// "Population Based Training of Neural Networks", 2017, section 3.1 "perturb" and
// "resample"; the rules and defaults of Ray Tune's PopulationBasedTraining).
//
// Contract. Each mutable parameter (PbtConfig::mutations, or every varying one) is, with
// probability resample_probability, redrawn from its search-space distribution (the
// `resampler`'s draw for `draw`), else
//  - uniform / loguniform: multiplied by one of `factors` (picked uniformly), then
//    clamped into [low, high] (a multiplication is a step on the log scale, so a log
//    range is explored evenly);
//  - int: multiplied and rounded to its step grid inside [low, high]; when rounding
//    gives the old value back, it moves one step in the factor's direction (so a small
//    int still changes), bounded likewise;
//  - choice: moves to a neighbouring value of `values` (either side at random; the only
//    neighbour at an end); a value not among them is resampled.
// Constants and parameters outside `mutations` keep the donor's value. Pure: the same
// (params, rng state, draw) give the same result.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"
#include "gpusweep/sampler.h"

namespace gpusweep {

// One parameter's change, for the decision's reason and `show`.
struct PbtChange {
  std::string name;
  Json before;
  Json after;
  std::string how;  // "x1.2", "resampled", "neighbour"
};

struct Explored {
  Params params;
  std::vector<PbtChange> changes;  // in declaration order
};

// `resampler`: a sampler whose Suggest(draw) draws every parameter from the space
// (random); `rng`: the decision's own stream.
Explored PbtExplore(const PbtConfig& pbt, const SearchSpace& space, const Params& donor,
                    const Sampler& resampler, int draw, std::mt19937_64& rng);

// "lr 0.01 -> 0.012 (x1.2), act relu -> tanh (neighbour)"; "nothing changed" when empty.
std::string DescribeChanges(const std::vector<PbtChange>& changes);

}  // namespace gpusweep
