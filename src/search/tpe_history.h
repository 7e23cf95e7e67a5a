// tpe_history.h — turns the trial history into TPE's two groups of observations: the
// "good" trials (below, density l) and the rest (above, density g).
//
// Ranking follows Optuna 3.1's observation pairs, best first:
//   completed trials by their objective;
//   then pruned and paused trials, those stopped at a larger budget (else rung) first,
//   each tier by its last objective value (a pruned trial without one goes last);
//   then, with RunningTrials::kWorst (constant liar), running trials.
// NaN objectives rank last in their tier. Failed and interrupted trials are ignored,
// and so is a trial whose params do not fit the space (missing, wrong type, unknown
// choice). The best gamma(n) = min(ceil(n / 10), 25) of the n scored (not running)
// trials form `below`; the rest (running ones included) `above`. Both keep trial-number
// order, so the result does not depend on the order of `history`.
#pragma once

#include <optional>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/trial.h"
#include "search/parzen_estimator.h"
#include "search/tpe_space.h"

namespace gpusweep::search {

enum class RunningTrials { kIgnore, kWorst };

struct TpeGroups {
  // One column per model dim, trial-number order; NaN where a conditional leaf was
  // inactive in the trial.
  Columns below, above;
  int scored = 0;        // usable trials that are not running (Optuna's n)
  // Weights of the `below` kernels (one per row, before the prior's), or empty for
  // Optuna's default_weights: multi-objective TPE weighs the good trials by their
  // hypervolume contribution (tpe_mo_history.h).
  std::vector<double> below_weights;
  // In a conditional space, the single-objective split's ranking (empty after a
  // multi-objective split, and in a flat space, which needs only `below`): for each
  // usable trial, in trial-number order, its place in the ranking (0 = the best; running
  // trials come after every scored one, from `scored` on). The trials ranked before
  // below's size are `below`. The tree-structured TPE splits a conditional parameter's
  // trials among themselves by it (tpe_tree.h).
  std::vector<int> rank;
};

// The tier of a trial in the ranking above, smaller first: completed -inf, pruned or
// paused -budget (1 without a value), running +inf (RunningTrials::kWorst); nullopt for a
// trial TPE ignores (failed, interrupted, completed without an objective, running with
// kIgnore). Shared by the single- and multi-objective splits.
std::optional<double> TpeTier(const TrialRecord& t, RunningTrials running);

// Optuna's default_gamma: how many of n scored trials are "good".
int TpeGamma(int scored);

// Uses only trials numbered below `before` (those that existed when trial `before` was
// first suggested; negative numbers are an earlier experiment's trials, the warm-start
// history, so they come before every trial of this one), so re-suggesting a trial after later ones ran gives the same params
// as long as its predecessors have not changed state.
TpeGroups SplitHistory(const std::vector<TrialRecord>& history, int before,
                       const TpeSpace& space, Mode mode, RunningTrials running);

// Appends the model values of `t` to `table` (one per dim); false, with `table`
// unchanged, when a param is missing or does not fit the space. A conditional leaf that
// was inactive in `t` is NaN: the tree-structured TPE fits each leaf only from the trials
// that had it (tpe_tree.h).
bool AppendModelValues(const TrialRecord& t, const TpeSpace& space, std::vector<double>& table);

// Fills groups.below and groups.above (one column per model dim) from the rows of `table`
// (`dims` values each) listed in `rows`, in that order (trial-number order): row r goes
// below when is_below[r] (indexed by row).
void GroupColumns(const std::vector<std::size_t>& rows, const std::vector<bool>& is_below,
                  const std::vector<double>& table, std::size_t dims, TpeGroups& groups);

}  // namespace gpusweep::search
