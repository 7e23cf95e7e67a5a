#include "schedule/asha.h"

#include <fmt/format.h>

namespace gpusweep::schedule_detail {

AsyncBrackets::AsyncBrackets(std::vector<AshaBracket> brackets, std::vector<int> cycle,
                             int configurations, TrialStyle style)
    : brackets_(std::move(brackets)),
      cycle_(std::move(cycle)),
      style_(style),
      book_(configurations) {}

size_t AsyncBrackets::BracketIndex(int trial) const {
  const size_t position = static_cast<size_t>(trial < 0 ? 0 : trial) % cycle_.size();
  return static_cast<size_t>(cycle_[position]);
}

const AshaBracket& AsyncBrackets::BracketOf(int trial) const {
  return brackets_[BracketIndex(trial)];
}

AshaBracket& AsyncBrackets::MutableBracketOf(int trial) { return brackets_[BracketIndex(trial)]; }

Job AsyncBrackets::NextJob() const {
  if (auto job = book_.Requeued()) return *job;
  if (style_ == TrialStyle::kBudgeted) {
    for (const AshaBracket& bracket : brackets_) {
      if (auto promotion = bracket.Promotion()) return *promotion;
    }
  }
  if (auto trial = book_.NextConfiguration()) return BracketOf(*trial).StartJob(*trial, style_);
  if (style_ == TrialStyle::kBudgeted && !book_.AnyRunning()) {
    for (const AshaBracket& bracket : brackets_)
      if (auto promotion = bracket.TailPromotion()) return *promotion;
  }
  const bool may_promote = style_ == TrialStyle::kBudgeted && book_.AnyRunning();
  return IdleJob(may_promote ? Job::Kind::kWait : Job::Kind::kDone);
}

void AsyncBrackets::JobStarted(const Job& job) {
  book_.Started(job);
  if (job.kind == Job::Kind::kPromote) MutableBracketOf(job.trial).MarkPromoted(job);
}

std::optional<Decision> AsyncBrackets::OnEvaluatedReport(int trial, double resource,
                                                         const Evaluation& evaluation) {
  if (style_ == TrialStyle::kBudgeted) return std::nullopt;
  return MutableBracketOf(trial).OnReport(trial, resource, evaluation);
}

Decision AsyncBrackets::OnJobEvaluated(const Job& job, const Evaluation& evaluation) {
  book_.Finished(job);
  AshaBracket& bracket = MutableBracketOf(job.trial);
  if (style_ == TrialStyle::kBudgeted) return bracket.RecordFinished(job, evaluation);
  const std::optional<double> value = evaluation.value;
  const int last = bracket.last_rung();
  if (auto rung = bracket.StoppedAt(job.trial))
    return Decision{job.trial,
                    bracket.id(),
                    *rung,
                    bracket.rungs()[*rung],
                    value,
                    Verdict::kStop,
                    fmt::format("stopped at rung {}", *rung)};
  return Decision{job.trial,
                  bracket.id(),
                  last,
                  bracket.rungs()[last],
                  value,
                  Verdict::kComplete,
                  fmt::format("reached max_resource ({:g})", bracket.rungs()[last])};
}

std::vector<double> AsyncBrackets::StopPoints(int trial) const {
  const std::vector<double>& rungs = BracketOf(trial).rungs();
  return {rungs.begin(), rungs.end() - 1};  // reaching the last rung ends the trial anyway
}

void AsyncBrackets::OnJobInterrupted(const Job& job) {
  const bool decided =
      style_ == TrialStyle::kIterative && BracketOf(job.trial).StoppedAt(job.trial).has_value();
  book_.Interrupted(job, decided ? JobBook::Requeue::kNo : JobBook::Requeue::kYes);
}

std::unique_ptr<Scheduler> MakeAsha(const SchedulerConfig& config, Mode mode, int configurations,
                                    TrialStyle style, Ranking ranking) {
  std::vector<AshaBracket> brackets;
  brackets.emplace_back(
      0, RungResources(config.min_resource, config.max_resource, config.reduction_factor),
      config.reduction_factor, mode, config.resource, ranking);
  return std::make_unique<AsyncBrackets>(std::move(brackets), std::vector<int>{0}, configurations,
                                         style);
}

}  // namespace gpusweep::schedule_detail
