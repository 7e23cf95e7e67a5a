#include "run/fold_scheduler.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/cv.h"

namespace gpusweep {
namespace {

// The mean of the values there are; nullopt without any.
std::optional<double> MeanOf(const std::map<int, std::optional<double>>& values) {
  double sum = 0;
  int count = 0;
  for (const auto& [fold, value] : values)
    if (value) {
      sum += *value;
      ++count;
    }
  if (count == 0) return std::nullopt;
  return sum / count;
}

}  // namespace

FoldScheduler::FoldScheduler(std::unique_ptr<Scheduler> inner, const CvConfig& cv)
    : inner_(std::move(inner)), cv_(cv) {}

Job FoldScheduler::FoldJob(const Job& job, int fold) const {
  Job fold_job = job;
  fold_job.trial = FoldTrialNumber(job.trial, fold, cv_.folds);
  return fold_job;
}

std::vector<int> FoldScheduler::LiveFolds(int configuration) const {
  const auto failed = failed_.find(configuration);
  std::vector<int> live;
  for (int fold = 0; fold < cv_.folds; ++fold)
    if (failed == failed_.end() || !failed->second.contains(fold)) live.push_back(fold);
  if (live.empty())  // every fold failed, yet the scheduler runs it on: all of them
    for (int fold = 0; fold < cv_.folds; ++fold) live.push_back(fold);
  return live;
}

Job FoldScheduler::NextJob() const {
  if (!pending_.empty()) return pending_.front();
  const Job job = inner_->NextJob();
  if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) return job;
  return FoldJob(job, LiveFolds(job.trial).front());
}

void FoldScheduler::JobStarted(const Job& job) {
  if (!pending_.empty()) {  // NextJob's answer was the front
    pending_.pop_front();
    return;
  }
  const Job inner_job = inner_->NextJob();
  inner_->JobStarted(inner_job);
  const std::vector<int> live = LiveFolds(inner_job.trial);
  ConfigurationJob& spread = running_[inner_job.trial];
  spread = ConfigurationJob{inner_job, std::set<int>(live.begin(), live.end()), {}};
  for (int fold : live)
    if (FoldTrialNumber(inner_job.trial, fold, cv_.folds) != job.trial)
      pending_.push_back(FoldJob(inner_job, fold));
}

std::optional<Decision> FoldScheduler::OnReport(int trial, double resource,
                                                std::optional<double> value) {
  const FoldIndex index = FoldOf(trial, cv_.folds);
  if (stopped_.contains(index.configuration)) {
    Decision stop;
    stop.trial = trial;
    stop.resource = resource;
    stop.value = value;
    stop.verdict = Verdict::kStop;
    stop.reason = fmt::format("configuration {} was stopped", index.configuration);
    return stop;
  }
  reports_[index.configuration][resource][index.fold] = value;
  std::optional<Decision> decision = JudgeReports(index.configuration);
  if (!decision) return std::nullopt;
  decision->trial = trial;
  if (decision->verdict == Verdict::kStop)
    StopConfiguration(index.configuration, trial, *decision);
  return decision;
}

std::optional<Decision> FoldScheduler::JudgeReports(int configuration) {
  auto reports = reports_.find(configuration);
  if (reports == reports_.end()) return std::nullopt;
  const std::vector<int> live = LiveFolds(configuration);
  std::optional<Decision> last;
  auto& by_resource = reports->second;
  for (auto it = by_resource.begin(); it != by_resource.end();) {
    // The live folds' values: a fold that failed after reporting here no longer counts.
    std::map<int, std::optional<double>> values;
    for (int fold : live)
      if (auto value = it->second.find(fold); value != it->second.end()) values.insert(*value);
    if (values.size() < live.size()) break;  // later resources wait for this one
    std::optional<Decision> decision = inner_->OnReport(configuration, it->first, MeanOf(values));
    it = by_resource.erase(it);
    if (decision) {
      decision->reason += fmt::format(" (mean over {} folds)", live.size());
      last = decision;
      if (decision->verdict == Verdict::kStop) break;
    }
  }
  SyncEliminated();
  return last;
}

void FoldScheduler::StopConfiguration(int configuration, int except_trial, const Decision& decision) {
  stopped_.insert(configuration);
  reports_.erase(configuration);
  const auto running = running_.find(configuration);
  if (running == running_.end()) return;
  std::set<int> still_running;
  for (int fold : running->second.folds)
    if (!running->second.ended.contains(fold)) still_running.insert(fold);
  Settle(configuration, still_running, except_trial, Verdict::kStop,
         fmt::format("configuration {}: {}", configuration, decision.reason));
}

void FoldScheduler::Settle(int configuration, const std::set<int>& folds, int except_trial,
                           Verdict verdict, const std::string& reason) {
  for (int fold : folds) {
    const int trial = FoldTrialNumber(configuration, fold, cv_.folds);
    if (trial == except_trial) continue;
    Decision decision;
    decision.trial = trial;
    decision.verdict = verdict;
    decision.reason = reason;
    settled_.push_back(std::move(decision));
  }
}

Decision FoldScheduler::OnJobFinished(const Job& job, std::optional<double> value) {
  const FoldIndex index = FoldOf(job.trial, cv_.folds);
  auto running = running_.find(index.configuration);
  Decision decision;
  decision.trial = job.trial;
  decision.rung = job.rung;
  decision.bracket = job.bracket;
  decision.resource = job.budget;
  decision.value = value;
  if (running == running_.end()) {  // not a job this scheduler started: nothing to judge
    decision.verdict = Verdict::kStop;
    decision.reason = "not a running job";
    return decision;
  }
  ConfigurationJob& spread = running->second;
  spread.ended[index.fold] = value;
  if (!value && !stopped_.contains(index.configuration)) {
    failed_[index.configuration].insert(index.fold);
    if (static_cast<int>(failed_[index.configuration].size()) > cv_.allow_failed_folds)
      AbandonFailed(index.configuration, spread, job.trial);
  }
  if (inner_->style() == TrialStyle::kIterative) JudgeReports(index.configuration);
  if (spread.ended.size() < spread.folds.size()) {
    // Its siblings decide: until then budgeted folds wait paused; iterative ones ran to
    // their end (or were stopped), which the loop records as it is.
    decision.verdict = inner_->style() == TrialStyle::kBudgeted ? Verdict::kPause : Verdict::kComplete;
    decision.reason = fmt::format("waiting for the other folds of configuration {}",
                                  index.configuration);
    return decision;
  }
  const bool too_many_failed =
      static_cast<int>(failed_[index.configuration].size()) > cv_.allow_failed_folds;
  const std::optional<double> mean = too_many_failed ? std::nullopt : MeanOf(spread.ended);
  const Job inner_job = spread.job;
  const std::set<int> folds = spread.folds;
  running_.erase(running);
  Decision verdict = inner_->OnJobFinished(inner_job, mean);
  verdict.trial = job.trial;
  verdict.reason += fmt::format(" (mean over {} folds)", spread.ended.size());
  if (inner_->style() == TrialStyle::kBudgeted &&
      (verdict.verdict == Verdict::kStop || verdict.verdict == Verdict::kComplete))
    Settle(index.configuration, folds, job.trial, verdict.verdict,
           fmt::format("configuration {}: {}", index.configuration, verdict.reason));
  SyncEliminated();
  return verdict;
}

void FoldScheduler::AbandonFailed(int configuration, ConfigurationJob& spread, int except_trial) {
  std::vector<int> failed(failed_[configuration].begin(), failed_[configuration].end());
  const std::string reason =
      fmt::format("configuration {} failed (fold{} {} failed; cv.allow_failed_folds is {})",
                  configuration, failed.size() == 1 ? "" : "s", fmt::join(failed, ", "),
                  cv_.allow_failed_folds);
  stopped_.insert(configuration);
  reports_.erase(configuration);
  std::set<int> abandoned;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const FoldIndex index = FoldOf(it->trial, cv_.folds);
    if (index.configuration != configuration) {
      ++it;
      continue;
    }
    spread.ended[index.fold] = std::nullopt;  // never runs: ends without a value
    abandoned.insert(index.fold);
    it = pending_.erase(it);
  }
  std::set<int> running;
  for (int fold : spread.folds)
    if (!spread.ended.contains(fold)) running.insert(fold);
  Settle(configuration, abandoned, except_trial, Verdict::kStop, reason);
  Settle(configuration, running, except_trial, Verdict::kStop, reason);
}

void FoldScheduler::OnJobInterrupted(const Job& job) {
  // Runs again first; its finished siblings keep their results.
  pending_.push_front(job);
}

std::vector<double> FoldScheduler::StopPoints(int trial) const {
  return inner_->StopPoints(FoldOf(trial, cv_.folds).configuration);
}

void FoldScheduler::SyncEliminated() {
  const std::vector<Decision>& eliminated = inner_->Eliminated();
  for (; inner_eliminated_seen_ < eliminated.size(); ++inner_eliminated_seen_) {
    const Decision& decision = eliminated[inner_eliminated_seen_];
    std::set<int> all;
    for (int fold = 0; fold < cv_.folds; ++fold) all.insert(fold);
    Settle(decision.trial, all, -1, Verdict::kStop,
           fmt::format("configuration {}: {}", decision.trial, decision.reason));
  }
}

}  // namespace gpusweep
