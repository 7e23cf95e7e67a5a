// tpe_tree.h — the tree-structured TPE over a conditional space (Bergstra, Bardenet,
// Bengio & Kégl, "Algorithms for Hyper-Parameter Optimization", NeurIPS 2011, sec. 4:
// the configuration space is a tree, and each node's densities l and g are fitted only
// from the observations in which that node was active).
//
// Contract: the trial is built in declaration order. A leaf is drawn only once the
// leaves before it say it is active; its estimator pair is fitted from the trials where
// it was active (not NaN), split among themselves: the best gamma(k) of the k scored
// ones are its good observations (ObservationsOf). For a leaf active in every trial that
// is the global split (tpe_history.h); for a conditional one it differs from Hyperopt's
// and Optuna's global split, under which a branch that no trial among the best overall
// took has no good observations at all and is drawn from the prior, so it never improves
// enough to be chosen (docs/samplers.md, bench/README.md "conditional"). With
// `multivariate`, the leaves with the same conditions (which are active together: a
// sub-space of a choice, a `when:` group) are one joint draw from the rows where all of
// them were active, as Optuna's TPESampler(multivariate=True, group=True) does for the
// groups it finds in the history; without it each leaf is its own draw. Deterministic
// given the groups and the stream.
#pragma once

#include <vector>

#include "gpusweep/json.h"
#include "search/parzen_estimator.h"
#include "search/splitmix64.h"
#include "search/tpe_history.h"
#include "search/tpe_space.h"

namespace gpusweep::search {

struct TreeTpeOptions {
  ParzenOptions parzen;
  int candidates = 24;       // n_ei_candidates
  bool multivariate = false;
};

// The rows of `columns` restricted to `dims` (indexes into the model dims) where every
// one of them is present (not NaN): one column per dim of `dims`.
Columns ActiveRows(const Columns& columns, const std::vector<int>& dims);
// The entries of `weights` (one per row of `columns`, or empty) for the rows ActiveRows
// keeps; empty stays empty (the estimator's default weights).
std::vector<double> ActiveWeights(const Columns& columns, const std::vector<int>& dims,
                                  const std::vector<double>& weights);

// The observations leaves `dims` (indexes into the model dims) are fitted from, one
// column per dim, in trial-number order: the rows where every one of them is present.
// With the single-objective ranking (groups.rank) those rows are split among themselves,
// the best TpeGamma(k) of the k scored ones `below` (default weights), the rest `above`.
// Without it (a multi-objective split) the global split's rows, with their weights.
struct LeafObservations {
  Columns below, above;
  std::vector<double> below_weights;  // empty: the estimator's default weights
};
LeafObservations ObservationsOf(const TpeGroups& groups, const std::vector<int>& dims);

Params TreeSuggest(const TpeSpace& space, const TpeGroups& groups, const TreeTpeOptions& options,
                   SplitMix64& rng);

}  // namespace gpusweep::search
