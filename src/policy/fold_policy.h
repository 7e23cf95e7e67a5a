// fold_policy.h — cross-validation over any search policy: every fold is a trial, the
// wrapped policy sees configurations (gpusweep/cv.h has the numbering). All of cv's
// logic is here; the trial loop knows nothing of folds.
//
// Params: a fold whose sibling is already in the history takes the sibling's params;
// otherwise the wrapped policy is asked for configuration c with a history of
// configurations (ConfigurationRecord: the folds' mean as the objective), so TPE
// learns from cross-validated means, not from single folds.
//
// Jobs: one job of the wrapped policy (start or promote configuration c) becomes one
// job per fold (each its own process and GPU slot; a fold that failed is not promoted).
// Iterative style: a configuration's report at a resource reaches the wrapped policy
// once every fold still running has reported there, as the mean of their values; a
// stop decision stops the configuration: the reporting fold through the returned
// decision, its running siblings through Eliminated(). When every fold of a job has
// ended, the wrapped policy hears OnJobFinished with the folds' mean (nullopt when more
// folds failed than cv.allow_failed_folds); with several metrics or constraints the
// mean is of every objective and of the violation (OnJobEvaluated: a configuration's
// objectives are the means of its folds'). Once that many have failed the
// configuration has failed, and its other folds are not worth their slots: those not
// started are dropped (settled kStop; the loop records them as not run), the running
// ones are stopped (kStop), and its reports are answered "stop". Budgeted style: a fold
// that ends before its siblings is paused ("waiting for the other folds"); the
// configuration's decision then settles every fold (kStop or kComplete).
//
// State: a function of the calls (journaled and replayed when the wrapped policy is)
// or, over a policy rebuilt from trial records (a plain sweep), of the fold records:
// Restore then hands the wrapped policy one record per configuration and remembers
// which folds of each still have to run; folds of a configuration that had failed are
// dropped. max_failures counts configurations, once all their folds have ended.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/policy.h"

namespace gpusweep {

class FoldPolicy final : public SearchPolicy {
 public:
  // Precondition: cv.enabled(), inner != nullptr (over the configurations).
  FoldPolicy(std::unique_ptr<SearchPolicy> inner, const CvConfig& cv);

  int total_trials() const override { return inner_->total_trials() * cv_.folds; }
  int configurations() const { return inner_->total_trials(); }
  TrialStyle style() const override { return inner_->style(); }
  bool judges_reports() const override { return inner_->judges_reports(); }
  bool journaled() const override { return inner_->journaled(); }
  std::vector<Decision> Restore(const std::vector<TrialRecord>& recorded,
                                FailedTrials failed) override;

  Job NextJob(const CanStart& can_start) const override;
  void JobStarted(const Job& job) override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  std::vector<int> Upcoming(std::size_t count) const override;

  std::optional<Decision> OnReport(int trial, double resource, std::optional<double> value) override {
    return OnEvaluatedReport(trial, resource, Evaluation{value, {}, 0});
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    return OnJobEvaluated(job, Evaluation{value, {}, 0});
  }
  // The wrapped policy hears the folds' mean evaluation: the mean of each objective
  // and of the violation over the folds with a value (several metrics or constraints).
  std::optional<Decision> OnEvaluatedReport(int trial, double resource,
                                            const Evaluation& evaluation) override;
  Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) override;
  void OnJobInterrupted(const Job& job) override;
  std::vector<double> StopPoints(int trial) const override;
  // Fold trials settled by their configuration's decision: kStop (the configuration
  // was stopped, eliminated or has failed; a running fold must stop now, a fold not
  // started yet never starts) or kComplete (a fold paused while waiting for its
  // siblings, whose configuration completed).
  const std::vector<Decision>& Eliminated() const override { return settled_; }

  std::optional<CountedEnd> CountEnd(const TrialRecord& ended,
                                     const std::vector<TrialRecord>& trials) override;
  FailureWords failure_words() const override;
  Status AcceptRetryFailed() const override { return inner_->AcceptRetryFailed(); }
  int ToRun(const std::vector<TrialRecord>& recorded) const override;
  // GPUSWEEP_FOLD, GPUSWEEP_FOLDS, GPUSWEEP_CONFIGURATION, then the wrapped policy's.
  std::vector<std::pair<std::string, std::string>> TrialEnv(const TrialRecord& trial) const override;

 private:
  // One job of the wrapped policy, spread over folds.
  struct ConfigurationJob {
    Job job;                                      // the wrapped policy's
    std::set<int> folds;                          // folds this job runs
    std::map<int, Evaluation> ended;              // fold -> evaluation it ended with
  };

  Job FoldJob(const Job& job, int fold) const;
  // Folds that have not failed (all folds when every one failed). Never empty.
  std::vector<int> LiveFolds(int configuration) const;
  // The folds a new job of `configuration` runs: after Restore, those still to run.
  std::vector<int> FoldsToRun(int configuration) const;
  int FirstFoldToRun(int configuration) const;
  // Passes every resource at which all live folds of `configuration` reported to the
  // wrapped policy (in increasing order). The last decision made, if any.
  std::optional<Decision> JudgeReports(int configuration);
  // Remembers a stop of `configuration`: its other running folds stop.
  void StopConfiguration(int configuration, int except_trial, const Decision& decision);
  void Settle(int configuration, const std::set<int>& folds, int except_trial, Verdict verdict,
              const std::string& reason);
  // Why `configuration` has failed: more failed folds than cv.allow_failed_folds.
  std::string FailureReason(int configuration) const;
  // `configuration` has failed: its fold jobs not started yet end now without running,
  // its running folds (but `except_trial`) stop.
  void AbandonFailed(int configuration, ConfigurationJob& spread, int except_trial);
  // New entries of the wrapped policy's Eliminated(), each for every fold.
  void SyncEliminated();

  std::unique_ptr<SearchPolicy> inner_;
  CvConfig cv_;
  std::deque<Job> pending_;                        // fold jobs handed out before new ones
  std::map<int, ConfigurationJob> running_;        // by configuration
  std::map<int, std::set<int>> failed_;            // configuration -> failed folds
  std::set<int> stopped_;                          // configurations stopped or failed
  // configuration -> resource -> fold -> value, until all live folds reported there
  std::map<int, std::map<double, std::map<int, Evaluation>>> reports_;
  std::vector<Decision> settled_;
  std::size_t inner_eliminated_seen_ = 0;
  // Restored from fold records (a wrapped policy that is not journaled):
  std::map<int, std::set<int>> to_run_;  // configuration -> folds still to run
  std::set<int> retried_;                // --retry-failed: fold trials queued to run again
  std::set<int> counted_;                // configurations max_failures has counted
};

}  // namespace gpusweep
