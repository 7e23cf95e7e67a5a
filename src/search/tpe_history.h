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
};

// Optuna's default_gamma: how many of n scored trials are "good".
int TpeGamma(int scored);

// Uses only trials numbered below `before` (those that existed when trial `before` was
// first suggested; negative numbers are an earlier experiment's trials, the warm-start
// history, so they come before every trial of this one), so re-suggesting a trial after later ones ran gives the same params
// as long as its predecessors have not changed state.
TpeGroups SplitHistory(const std::vector<TrialRecord>& history, int before,
                       const TpeSpace& space, Mode mode, RunningTrials running);

}  // namespace gpusweep::search
