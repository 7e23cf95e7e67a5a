// failure_budget.h — `max_failures`: when a sweep stops starting trials because too
// many of them fail.
//
// Counts the trials that finish in this run (a resume starts afresh, so fixing the
// cause and running again, with --retry-failed, is not refused at once). Finished:
// completed, pruned, failed; interrupted and paused trials have not finished. Once the
// limit is reached no new trial starts; trials already running finish (their results
// are not thrown away; Ctrl-C still stops them), then the run ends with
// Error{kTooManyFailures} (see Verdict()).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

class FailureBudget {
 public:
  explicit FailureBudget(std::optional<FailureLimit> limit) : limit_(limit) {}

  // Call once per trial that ends (any state; only finished ones count).
  void Count(const TrialRecord& trial);
  // The limit is reached: start nothing more.
  bool Exhausted() const { return exhausted_; }
  // Error{kTooManyFailures} naming the limit, the failed trials and the last failure's
  // reason when Exhausted(); success otherwise.
  Status Verdict() const;

 private:
  std::optional<FailureLimit> limit_;
  int finished_ = 0;
  std::vector<int> failed_;  // trial numbers, in the order they failed
  std::string last_reason_;
  bool exhausted_ = false;
};

}  // namespace gpusweep
