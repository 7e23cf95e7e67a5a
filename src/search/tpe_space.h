// tpe_space.h — maps a search space to TPE's model space (see parzen_estimator.h) and
// back. Each param that can take more than one value becomes one model dim, in
// declaration order: uniform -> continuous (linear), loguniform -> continuous (log),
// int -> discrete (grid index), int on a log scale -> continuous (log of the value, over
// [low - 0.5, high + 0.5]; rounded back), normal and log-normal -> continuous (the
// truncated CDF, so the prior is the distribution), choice -> categorical (value index); a
// q-rounded param's model value is the draw before rounding. Constants, and
// params with a single possible value, are fixed and take no dim.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "search/parzen_estimator.h"

namespace gpusweep::search {

class TpeSpace {
 public:
  explicit TpeSpace(const SearchSpace& space);  // a space MakeSampler validated

  const std::vector<ModelDim>& dims() const { return dims_; }
  const std::string& param_name(int dim) const { return space_.params[param_of_dim_[dim]].name; }

  // The value of dim `dim`'s param in a trial's `params`, or nullptr when absent (or
  // `params` is not an object). Samplers write every param in declaration order, so
  // the param's own position is tried first (one string comparison); other layouts
  // fall back to a search by name.
  const Json* FindValue(const Json& params, int dim) const;

  // The model value of dim `dim` for a param value from a trial's params; nullopt when
  // it cannot be one (wrong type, a choice not among the values). Numbers outside the
  // range are clamped to it.
  std::optional<double> ToModel(int dim, const Json& value) const;

  // Params in declaration order: fixed params with their value, dim d from model[d].
  Params ToParams(const std::vector<double>& model) const;

  // Conditional spaces (param_conditions.h; the tree-structured TPE in tpe_tree.cc).
  const SearchSpace& space() const { return space_; }
  // The dim of leaf `param` (an index into space().params), -1 when it is fixed.
  int dim_of_param(std::size_t param) const { return dim_of_param_[param]; }
  // Leaf `param`'s value: its fixed value, or the value of its dim's model value.
  Json ParamValue(std::size_t param, double model) const;
  // Whether dim `dim`'s leaf may be absent from a trial (it has conditions); and whether
  // it is active in `params` (a trial's).
  bool conditional(int dim) const { return !space_.params[param_of_dim_[dim]].when.empty(); }
  bool ActiveIn(int dim, const Params& params) const {
    return IsActive(space_.params[param_of_dim_[dim]], params);
  }

 private:
  Json FromModel(const ParamSpec& p, double value) const;

  SearchSpace space_;
  std::vector<ModelDim> dims_;
  std::vector<std::size_t> param_of_dim_;  // index into space_.params
  std::vector<int> dim_of_param_;          // -1 = fixed
  // uniform/loguniform/log-int dims: model value = (x or log x - origin) / span.
  std::vector<double> origin_, span_;
};

}  // namespace gpusweep::search
