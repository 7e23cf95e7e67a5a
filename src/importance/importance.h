// importance.h — which parameters matter: fANOVA over a random-forest surrogate of the
// objective, as Optuna's default importance evaluator computes it.
//
// Contract: pure given its inputs (deterministic forest). Uses completed trials with an
// objective; parameters present in all of them (flattened names, like the exports);
// numbers are one feature each (bounds from the search space when it declares the
// name, else the values seen), anything else is one-hot encoded, one feature per value
// seen, bounds [0, 1] (Optuna's encoding). A parameter that never varies is left out.
// Importance of a parameter = mean over trees of (variance explained by its features /
// tree variance), normalised to sum to 1, most important first.
#pragma once

#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"
#include "importance/forest.h"

namespace gpusweep::importance {

struct ParamImportance {
  std::string name;
  double importance = 0;  // in [0, 1]; they sum to 1 (all 0 when the objective is constant)
};

// Fewer than 2 usable trials or no varying parameter: an empty list.
Expected<std::vector<ParamImportance>> FanovaImportances(const std::vector<TrialRecord>& trials,
                                                         const SearchSpace& space,
                                                         const ForestOptions& options = {});

}  // namespace gpusweep::importance
