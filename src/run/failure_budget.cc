#include "run/failure_budget.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpusweep {
namespace {

// "max_failures: 3" or "max_failures: {fraction: 0.5, after: 4}", as the user wrote it.
std::string Describe(const FailureLimit& limit) {
  if (limit.count > 0) return fmt::format("max_failures: {}", limit.count);
  return fmt::format("max_failures: {{fraction: {}, after: {}}}", limit.fraction, limit.after);
}

}  // namespace

void FailureBudget::Count(const TrialRecord& trial, std::optional<int> show_trial) {
  if (trial.state == TrialState::kInterrupted || trial.state == TrialState::kPaused ||
      trial.state == TrialState::kRunning)
    return;
  ++finished_;
  if (trial.state == TrialState::kFailed) {
    failed_.push_back(trial.number);
    last_reason_ = trial.failure_reason;
    last_show_ = show_trial.value_or(trial.number);
  }
  if (!limit_ || exhausted_) return;
  const int failed = static_cast<int>(failed_.size());
  if (limit_->count > 0)
    exhausted_ = failed >= limit_->count;
  else
    exhausted_ = finished_ >= limit_->after &&
                 static_cast<double>(failed) >= limit_->fraction * finished_;
}

Status FailureBudget::Verdict() const {
  if (!exhausted_) return {};
  constexpr std::size_t kListed = 10;
  std::vector<int> listed(failed_.begin(),
                          failed_.begin() + std::min(failed_.size(), kListed));
  return Fail(ErrorCode::kTooManyFailures,
              fmt::format("{} of {} {}s finished in this run failed ({}), so no further trial "
                          "was started; failed: {}{} {}{}; the last, {} {}: {}; see "
                          "`gpusweep show {}`; fix the cause and run again ({})",
                          failed_.size(), finished_, unit_, Describe(*limit_), unit_,
                          failed_.size() == 1 ? "" : "s", fmt::join(listed, ", "),
                          failed_.size() > kListed ? ", ..." : "", unit_, failed_.back(),
                          last_reason_, last_show_, rerun_));
}

}  // namespace gpusweep
