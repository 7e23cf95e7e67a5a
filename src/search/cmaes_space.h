// cmaes_space.h — maps a search space to CMA-ES's box [0, 1]^n and back.
//
// Each param that can take more than one value is one coordinate, in declaration order:
// uniform linearly, loguniform on a log scale; an int as Optuna 3.1's CmaEsSampler does
// without its margin option: a continuous coordinate over [low - step/2, high + step/2]
// (on a log int: [log(low - 0.5), log(high + 0.5)]), rounded to the nearest value of the
// param when decoded, so every value owns an equal cell of the coordinate. Constants and
// single-valued params are fixed. A choice with two or more values has no coordinate:
// the sampler refuses it (MakeSampler), it is not part of this space. A normal or
// log-normal param's coordinate is its truncated CDF (distributions.h); a q-rounded
// param is rounded when decoded.
#pragma once

#include <optional>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"

namespace gpusweep::search {

class CmaesSpace {
 public:
  // Precondition: `space` was validated by MakeSampler and has no multi-valued choice.
  explicit CmaesSpace(const SearchSpace& space);

  int dims() const { return static_cast<int>(param_of_dim_.size()); }

  // The coordinate of dim `dim` for the value of its param in `params`; nullopt when
  // the param is missing or not a finite number (non-positive on a log scale). Values
  // outside the range are clamped to [0, 1].
  std::optional<double> ToUnit(const Params& params, int dim) const;

  // Params in declaration order: fixed params with their value, dim d decoded from
  // unit[d] (clamped to [0, 1] first).
  Params ToParams(const std::vector<double>& unit) const;

 private:
  SearchSpace space_;
  std::vector<std::size_t> param_of_dim_;
  std::vector<int> dim_of_param_;          // -1: fixed
  std::vector<double> origin_, span_;      // coordinate = (x or log x - origin) / span
};

}  // namespace gpusweep::search
