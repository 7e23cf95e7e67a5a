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

// Under cv (`cv: {folds: k}`) the loop counts configurations instead of fold trials
// (unit "configuration"): a failed configuration is one failure however many of its
// folds failed, and the fraction is over finished configurations.
class FailureBudget {
 public:
  // `rerun`: what running again does with the failed trials, for the message
  // ("--retry-failed reruns the failed trials"; with a scheduler they stay failed).
  explicit FailureBudget(std::optional<FailureLimit> limit, std::string unit = "trial",
                         std::string rerun = "--retry-failed reruns the failed trials")
      : limit_(limit), unit_(std::move(unit)), rerun_(std::move(rerun)) {}

  // Call once per trial (configuration) that ends (any state; only finished ones
  // count). `show_trial`: the trial `gpusweep show` should look at when it failed
  // (default: its number).
  void Count(const TrialRecord& trial, std::optional<int> show_trial = std::nullopt);
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
  int last_show_ = 0;
  std::string unit_;
  std::string rerun_;
  bool exhausted_ = false;
};

}  // namespace gpusweep
