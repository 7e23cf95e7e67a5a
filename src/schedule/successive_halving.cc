#include "schedule/successive_halving.h"

#include <numeric>

#include <fmt/format.h>

namespace gpusweep::schedule_detail {

SuccessiveHalving::SuccessiveHalving(const SchedulerConfig& config, Mode mode,
                                     int configurations, Ranking ranking)
    : config_(config),
      mode_(mode),
      ranking_(ranking),
      budgets_(RoundBudgets(config)),
      book_(configurations),
      results_(mode, ranking) {
  std::vector<int> cohort(static_cast<size_t>(std::max(configurations, 0)));
  std::iota(cohort.begin(), cohort.end(), 0);
  if (cohort.size() == 1) rung_ = static_cast<int>(budgets_.size()) - 1;  // a lone winner
  BeginRound(cohort, Job::Kind::kStart);
}

void SuccessiveHalving::BeginRound(const std::vector<int>& cohort, Job::Kind kind) {
  round_jobs_.clear();
  for (int trial : cohort) {
    Job job;
    job.kind = kind;
    job.trial = trial;
    job.rung = rung_;
    job.budget = budgets_[rung_];
    round_jobs_.push_back(job);
  }
  next_unstarted_ = 0;
  results_ = RungTable(mode_, ranking_);
}

Job SuccessiveHalving::NextJob() const {
  if (auto job = book_.Requeued()) return *job;
  if (next_unstarted_ < round_jobs_.size()) return round_jobs_[next_unstarted_];
  // The round's last jobs are running: the next round waits for all of them.
  return IdleJob(book_.AnyRunning() ? Job::Kind::kWait : Job::Kind::kDone);
}

void SuccessiveHalving::JobStarted(const Job& job) {
  book_.Started(job);
  if (next_unstarted_ < round_jobs_.size() && round_jobs_[next_unstarted_].trial == job.trial)
    ++next_unstarted_;
}

Decision SuccessiveHalving::OnJobEvaluated(const Job& job, const Evaluation& evaluation) {
  book_.Finished(job);
  const std::optional<double> value = Normalized(evaluation.value);
  results_.Record(job.trial, evaluation);
  const std::string where =
      fmt::format("round {} ({} {:g})", round_, config_.resource, budgets_[rung_]);
  Decision decision{job.trial, 0, rung_, budgets_[rung_], value, Verdict::kPause, ""};
  if (FinalRound()) {
    decision.verdict = Verdict::kComplete;
    decision.reason = round_jobs_.size() == 1
                          ? fmt::format("won successive halving in {}", where)
                          : fmt::format("survived to the last {}", where);
  } else if (!value) {
    decision.verdict = Verdict::kStop;
    decision.reason = fmt::format("no value in {}: failed, eliminated", where);
  } else {
    decision.reason = fmt::format(
        "paused in {}: the top {} of {} survive when the round ends", where,
        TopCount(static_cast<int>(round_jobs_.size()), config_.reduction_factor,
                 Rounding::kCeil),
        round_jobs_.size());
  }
  if (!FinalRound() && results_.size() == static_cast<int>(round_jobs_.size())) EndRound();
  return decision;
}

void SuccessiveHalving::EndRound() {
  const int n = results_.size();
  const int keep = TopCount(n, config_.reduction_factor, Rounding::kCeil);
  const std::string where =
      fmt::format("round {} ({} {:g})", round_, config_.resource, budgets_[rung_]);
  std::vector<int> survivors;
  for (int rank = 0; rank < n; ++rank) {
    const RungTable::Entry& entry = results_.ranked()[rank];
    if (!entry.value) continue;  // failed: already stopped by its own decision
    if (static_cast<int>(survivors.size()) < keep) {
      survivors.push_back(entry.trial);
      continue;
    }
    eliminations_.push_back(Decision{
        entry.trial, 0, rung_, budgets_[rung_], entry.value, Verdict::kStop,
        fmt::format("rank {} of {} in {}: only the top {} survive", rank + 1, n, where, keep)});
  }
  ++round_;
  rung_ = survivors.size() == 1 ? static_cast<int>(budgets_.size()) - 1 : rung_ + 1;
  BeginRound(survivors, Job::Kind::kPromote);
}

}  // namespace gpusweep::schedule_detail
