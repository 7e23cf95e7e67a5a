// The defaults of SearchPolicy (gpusweep/policy.h).
#include "gpusweep/policy.h"

#include <algorithm>

namespace gpusweep {

int FinishedTrials(const std::vector<TrialRecord>& recorded) {
  return static_cast<int>(std::count_if(recorded.begin(), recorded.end(), [](const TrialRecord& t) {
    return t.state == TrialState::kCompleted || t.state == TrialState::kFailed ||
           t.state == TrialState::kPruned;
  }));
}

int SearchPolicy::ToRun(const std::vector<TrialRecord>& recorded) const {
  return total_trials() - FinishedTrials(recorded);
}

}  // namespace gpusweep
