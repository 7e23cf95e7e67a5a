#include "policy/fold_policy.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/cv.h"

namespace gpusweep {
namespace {

// The mean of the values there are; nullopt without any.
// The folds' mean: of the primary value over the folds that have one (as a single
// objective always was), and over the same folds of each objective's loss and of the
// violation (several metrics or constraints; a fold missing an objective makes its
// mean +inf, and a configuration is feasible only when each counted fold is).
Evaluation MeanOf(const std::map<int, Evaluation>& folds) {
  double sum = 0;
  int count = 0;
  std::vector<double> losses;
  double violation = 0;
  for (const auto& [fold, evaluation] : folds) {
    if (!evaluation.value) continue;
    sum += *evaluation.value;
    ++count;
    if (losses.empty()) losses.assign(evaluation.losses.size(), 0.0);
    for (size_t i = 0; i < losses.size() && i < evaluation.losses.size(); ++i)
      losses[i] += evaluation.losses[i];
    violation += evaluation.violation;
  }
  if (count == 0) return Evaluation{};
  for (double& loss : losses) loss /= count;
  return Evaluation{sum / count, std::move(losses), violation / count};
}

const TrialRecord* FindTrial(const std::vector<TrialRecord>& trials, int number) {
  auto it = std::lower_bound(trials.begin(), trials.end(), number,
                             [](const TrialRecord& t, int n) { return t.number < n; });
  return it != trials.end() && it->number == number ? &*it : nullptr;
}

bool Runs(const Job& job) { return job.kind == Job::Kind::kStart || job.kind == Job::Kind::kPromote; }

}  // namespace

FoldPolicy::FoldPolicy(std::unique_ptr<SearchPolicy> inner, const CvConfig& cv)
    : inner_(std::move(inner)), cv_(cv) {
  assert(inner_ != nullptr && cv_.enabled());
}

Job FoldPolicy::FoldJob(const Job& job, int fold) const {
  Job fold_job = job;
  fold_job.trial = FoldTrialNumber(job.trial, fold, cv_.folds);
  return fold_job;
}

std::vector<int> FoldPolicy::LiveFolds(int configuration) const {
  const auto failed = failed_.find(configuration);
  std::vector<int> live;
  for (int fold = 0; fold < cv_.folds; ++fold)
    if (failed == failed_.end() || !failed->second.contains(fold)) live.push_back(fold);
  if (live.empty())  // every fold failed, yet the policy runs it on: all of them
    for (int fold = 0; fold < cv_.folds; ++fold) live.push_back(fold);
  return live;
}

std::vector<int> FoldPolicy::FoldsToRun(int configuration) const {
  const auto restored = to_run_.find(configuration);
  if (restored == to_run_.end()) return LiveFolds(configuration);
  return std::vector<int>(restored->second.begin(), restored->second.end());
}

int FoldPolicy::FirstFoldToRun(int configuration) const {
  const std::vector<int> folds = FoldsToRun(configuration);
  assert(!folds.empty() && "a configuration the inner policy hands out has a fold left to run");
  return folds.front();
}

std::vector<Decision> FoldPolicy::Restore(const std::vector<TrialRecord>& recorded,
                                          FailedTrials failed) {
  // A journaled wrapped policy was rebuilt by replaying its calls into this one.
  if (inner_->journaled()) return inner_->Restore({}, failed);
  std::vector<TrialRecord> settled;  // configurations with nothing left to run
  std::vector<Decision> dropped;
  for (int configuration = 0; configuration < configurations(); ++configuration) {
    std::set<int> run;
    std::set<int> failed_folds;
    for (int fold = 0; fold < cv_.folds; ++fold) {
      const int number = FoldTrialNumber(configuration, fold, cv_.folds);
      const TrialRecord* record = FindTrial(recorded, number);
      const bool retry = failed == FailedTrials::kRetry && record != nullptr &&
                         (record->state == TrialState::kFailed || record->state == TrialState::kPruned);
      if (record == nullptr || record->state == TrialState::kInterrupted || retry) {
        run.insert(fold);
        if (retry) retried_.insert(number);
      } else if (record->state == TrialState::kFailed) {
        failed_folds.insert(fold);
      }
    }
    if (!failed_folds.empty()) failed_[configuration] = failed_folds;
    TrialRecord done;
    done.number = configuration;
    done.state = TrialState::kCompleted;
    if (run.empty()) {
      settled.push_back(done);
      continue;
    }
    if (static_cast<int>(failed_folds.size()) > cv_.allow_failed_folds) {
      stopped_.insert(configuration);
      for (int fold : run) {
        Decision decision;
        decision.trial = FoldTrialNumber(configuration, fold, cv_.folds);
        decision.verdict = Verdict::kStop;
        decision.reason = FailureReason(configuration);
        dropped.push_back(std::move(decision));
      }
      settled.push_back(done);
      continue;
    }
    to_run_[configuration] = std::move(run);
  }
  inner_->Restore(settled, FailedTrials::kKeep);
  return dropped;
}

Job FoldPolicy::NextJob(const CanStart& can_start) const {
  for (const Job& job : pending_)
    if (Startable(can_start, job.trial)) return job;
  // A new configuration starts with its first fold to run.
  const CanStart configuration_can_start = [&](int configuration) {
    return Startable(can_start, FoldTrialNumber(configuration, FirstFoldToRun(configuration), cv_.folds));
  };
  const Job job = inner_->NextJob(configuration_can_start);
  if (!Runs(job)) {
    // Folds of started configurations wait for their resources.
    if (job.kind == Job::Kind::kDone && !pending_.empty()) return Job{Job::Kind::kWait};
    return job;
  }
  return FoldJob(job, FirstFoldToRun(job.trial));
}

void FoldPolicy::JobStarted(const Job& job) {
  retried_.erase(job.trial);  // it runs again now
  const auto pending = std::find_if(pending_.begin(), pending_.end(),
                                    [&](const Job& p) { return p.trial == job.trial; });
  if (pending != pending_.end()) {
    pending_.erase(pending);
    return;
  }
  const int configuration = FoldOf(job.trial, cv_.folds).configuration;
  Job inner_job = job;
  inner_job.trial = configuration;
  inner_->JobStarted(inner_job);
  const std::vector<int> folds = FoldsToRun(configuration);
  to_run_.erase(configuration);
  running_[configuration] = ConfigurationJob{inner_job, std::set<int>(folds.begin(), folds.end()), {}};
  for (int fold : folds)
    if (FoldTrialNumber(configuration, fold, cv_.folds) != job.trial)
      pending_.push_back(FoldJob(inner_job, fold));
}

Suggestion FoldPolicy::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const int configuration = FoldOf(number, cv_.folds).configuration;
  for (const TrialRecord& trial : history)
    if (trial.number >= 0 && FoldOf(trial.number, cv_.folds).configuration == configuration &&
        !trial.params.empty())
      return Suggestion{number, trial.repeat, trial.params};
  std::vector<TrialRecord> configurations;
  for (const TrialRecord& trial : history)
    if (trial.number < 0) configurations.push_back(trial);  // warm start: configurations already
  for (const CvConfiguration& c : GroupFolds(history, cv_))
    configurations.push_back(ConfigurationRecord(c));
  Suggestion suggestion = inner_->Suggest(configuration, configurations);
  suggestion.number = number;
  return suggestion;
}

std::vector<int> FoldPolicy::Upcoming(std::size_t count) const {
  std::vector<int> next;
  for (const Job& job : pending_) {
    if (next.size() >= count) return next;
    next.push_back(job.trial);
  }
  for (int configuration : inner_->Upcoming(count))
    for (int fold : FoldsToRun(configuration)) {
      if (next.size() >= count) return next;
      next.push_back(FoldTrialNumber(configuration, fold, cv_.folds));
    }
  return next;
}

std::optional<Decision> FoldPolicy::OnEvaluatedReport(int trial, double resource,
                                                      const Evaluation& evaluation) {
  const std::optional<double>& value = evaluation.value;
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
  reports_[index.configuration][resource][index.fold] = evaluation;
  std::optional<Decision> decision = JudgeReports(index.configuration);
  if (!decision) return std::nullopt;
  decision->trial = trial;
  if (decision->verdict == Verdict::kStop) StopConfiguration(index.configuration, trial, *decision);
  return decision;
}

std::optional<Decision> FoldPolicy::JudgeReports(int configuration) {
  auto reports = reports_.find(configuration);
  if (reports == reports_.end()) return std::nullopt;
  const std::vector<int> live = LiveFolds(configuration);
  std::optional<Decision> last;
  auto& by_resource = reports->second;
  for (auto it = by_resource.begin(); it != by_resource.end();) {
    // The live folds' values: a fold that failed after reporting here no longer counts.
    std::map<int, Evaluation> values;
    for (int fold : live)
      if (auto value = it->second.find(fold); value != it->second.end()) values.insert(*value);
    if (values.size() < live.size()) break;  // later resources wait for this one
    std::optional<Decision> decision =
        inner_->OnEvaluatedReport(configuration, it->first, MeanOf(values));
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

void FoldPolicy::StopConfiguration(int configuration, int except_trial, const Decision& decision) {
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

void FoldPolicy::Settle(int configuration, const std::set<int>& folds, int except_trial,
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

Decision FoldPolicy::OnJobEvaluated(const Job& job, const Evaluation& evaluation) {
  const std::optional<double>& value = evaluation.value;
  const FoldIndex index = FoldOf(job.trial, cv_.folds);
  auto running = running_.find(index.configuration);
  Decision decision;
  decision.trial = job.trial;
  decision.rung = job.rung;
  decision.bracket = job.bracket;
  decision.resource = job.budget;
  decision.value = value;
  if (running == running_.end()) {  // not a job this policy started: nothing to judge
    decision.verdict = Verdict::kStop;
    decision.reason = "not a running job";
    return decision;
  }
  ConfigurationJob& spread = running->second;
  spread.ended[index.fold] = evaluation;
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
  const Evaluation mean = too_many_failed ? Evaluation{} : MeanOf(spread.ended);
  const Job inner_job = spread.job;
  const std::set<int> folds = spread.folds;
  const std::size_t ended = spread.ended.size();
  running_.erase(running);
  Decision verdict = inner_->OnJobEvaluated(inner_job, mean);
  verdict.trial = job.trial;
  verdict.reason += fmt::format(" (mean over {} folds)", ended);
  if (inner_->style() == TrialStyle::kBudgeted &&
      (verdict.verdict == Verdict::kStop || verdict.verdict == Verdict::kComplete))
    Settle(index.configuration, folds, job.trial, verdict.verdict,
           fmt::format("configuration {}: {}", index.configuration, verdict.reason));
  SyncEliminated();
  return verdict;
}

std::string FoldPolicy::FailureReason(int configuration) const {
  const auto found = failed_.find(configuration);
  const std::vector<int> failed = found == failed_.end()
                                      ? std::vector<int>{}
                                      : std::vector<int>(found->second.begin(), found->second.end());
  return fmt::format("configuration {} failed (fold{} {} failed; cv.allow_failed_folds is {})",
                     configuration, failed.size() == 1 ? "" : "s", fmt::join(failed, ", "),
                     cv_.allow_failed_folds);
}

void FoldPolicy::AbandonFailed(int configuration, ConfigurationJob& spread, int except_trial) {
  const std::string reason = FailureReason(configuration);
  stopped_.insert(configuration);
  reports_.erase(configuration);
  std::set<int> abandoned;
  for (auto it = pending_.begin(); it != pending_.end();) {
    const FoldIndex index = FoldOf(it->trial, cv_.folds);
    if (index.configuration != configuration) {
      ++it;
      continue;
    }
    spread.ended[index.fold] = Evaluation{};  // never runs: ends without a value
    abandoned.insert(index.fold);
    it = pending_.erase(it);
  }
  std::set<int> running;
  for (int fold : spread.folds)
    if (!spread.ended.contains(fold)) running.insert(fold);
  Settle(configuration, abandoned, except_trial, Verdict::kStop, reason);
  Settle(configuration, running, except_trial, Verdict::kStop, reason);
}

void FoldPolicy::OnJobInterrupted(const Job& job) {
  // Runs again first; its finished siblings keep their results.
  pending_.push_front(job);
}

std::vector<double> FoldPolicy::StopPoints(int trial) const {
  return inner_->StopPoints(FoldOf(trial, cv_.folds).configuration);
}

void FoldPolicy::SyncEliminated() {
  const std::vector<Decision>& eliminated = inner_->Eliminated();
  for (; inner_eliminated_seen_ < eliminated.size(); ++inner_eliminated_seen_) {
    const Decision& decision = eliminated[inner_eliminated_seen_];
    std::set<int> all;
    for (int fold = 0; fold < cv_.folds; ++fold) all.insert(fold);
    Settle(decision.trial, all, -1, Verdict::kStop,
           fmt::format("configuration {}: {}", decision.trial, decision.reason));
  }
}

std::optional<CountedEnd> FoldPolicy::CountEnd(const TrialRecord& ended,
                                               const std::vector<TrialRecord>& trials) {
  if (ended.number < 0) return CountedEnd{ended, ended.number};
  const int configuration = FoldOf(ended.number, cv_.folds).configuration;
  if (counted_.contains(configuration)) return std::nullopt;
  std::vector<TrialRecord> folds;  // a failed fold queued to run again has not failed yet
  const int first = FoldTrialNumber(configuration, 0, cv_.folds);
  for (int number = first; number < first + cv_.folds; ++number)
    if (const TrialRecord* fold = FindTrial(trials, number); fold != nullptr && !retried_.contains(number))
      folds.push_back(*fold);
  if (folds.empty()) return std::nullopt;
  const CvConfiguration grouped = GroupFolds(folds, cv_).front();
  if (grouped.state != TrialState::kCompleted && grouped.state != TrialState::kFailed &&
      grouped.state != TrialState::kPruned)
    return std::nullopt;  // folds still to run (or paused, or interrupted)
  counted_.insert(configuration);
  int show = ended.number;  // the first failed fold says most
  for (const TrialRecord& fold : folds)
    if (fold.state == TrialState::kFailed) {
      show = fold.number;
      break;
    }
  return CountedEnd{ConfigurationRecord(grouped), show};
}

FailureWords FoldPolicy::failure_words() const {
  FailureWords words = inner_->failure_words();
  words.unit = "configuration";
  return words;
}

int FoldPolicy::ToRun(const std::vector<TrialRecord>& recorded) const {
  if (inner_->journaled()) return SearchPolicy::ToRun(recorded);
  int finished = 0;  // and not queued to run again
  for (const TrialRecord& trial : recorded)
    if ((trial.state == TrialState::kCompleted || trial.state == TrialState::kFailed ||
         trial.state == TrialState::kPruned) &&
        !retried_.contains(trial.number))
      ++finished;
  return total_trials() - finished;
}

std::vector<std::pair<std::string, std::string>> FoldPolicy::TrialEnv(const TrialRecord& trial) const {
  const FoldIndex index = FoldOf(trial.number, cv_.folds);
  std::vector<std::pair<std::string, std::string>> env{
      {"GPUSWEEP_FOLD", std::to_string(index.fold)},
      {"GPUSWEEP_FOLDS", std::to_string(cv_.folds)},
      {"GPUSWEEP_CONFIGURATION", std::to_string(index.configuration)}};
  for (auto& pair : inner_->TrialEnv(trial)) env.push_back(std::move(pair));
  return env;
}

}  // namespace gpusweep
