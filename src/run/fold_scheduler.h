// fold_scheduler.h — the scheduler the run loop sees under `cv:`: it hands out fold
// jobs and judges configurations (gpusweep/cv.h has the numbering).
//
// The wrapped scheduler works on configurations only. One of its jobs (start or
// promote configuration c at a rung) becomes one job per fold (each its own process
// and GPU slot; a fold that failed is not promoted). Iterative style: a
// configuration's report at a resource reaches the wrapped scheduler once every fold
// still running has reported there, as the mean of their values; a stop decision
// stops the configuration: the reporting fold through the returned decision, its
// running siblings through Eliminated() (the loop stops them at once). When every fold
// of a job has ended, the wrapped scheduler hears OnJobFinished with the folds' mean
// (nullopt when more folds failed than cv.allow_failed_folds). Once that many have
// failed the configuration has failed, and its other folds are not worth their GPUs:
// those not started yet are dropped (settled kStop; the loop records them as not run),
// the running ones are stopped (kStop), and its reports are answered "stop". Budgeted style: a fold
// that ends before its siblings is paused ("waiting for the other folds"); the
// configuration's decision then settles every fold (Eliminated(): kStop or
// kComplete). Deterministic given the calls, like every scheduler, so the run's
// journal of calls replays it.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/scheduler.h"

namespace gpusweep {

class FoldScheduler : public Scheduler {
 public:
  // Precondition: cv.enabled(), inner != nullptr (built for the configurations).
  FoldScheduler(std::unique_ptr<Scheduler> inner, const CvConfig& cv);

  TrialStyle style() const override { return inner_->style(); }
  Job NextJob() const override;
  void JobStarted(const Job& job) override;
  std::optional<Decision> OnReport(int trial, double resource, std::optional<double> value) override;
  Decision OnJobFinished(const Job& job, std::optional<double> value) override;
  void OnJobInterrupted(const Job& job) override;
  std::vector<double> StopPoints(int trial) const override;
  // Fold trials settled by their configuration's decision: kStop (the configuration
  // was stopped, eliminated or has failed; a running fold must stop now, a fold not
  // started yet never starts) or kComplete (a fold paused while waiting for its
  // siblings, whose configuration completed).
  const std::vector<Decision>& Eliminated() const override { return settled_; }

 private:
  // One job of the wrapped scheduler, spread over folds.
  struct ConfigurationJob {
    Job job;                                      // the wrapped scheduler's
    std::set<int> folds;                          // folds this job runs
    std::map<int, std::optional<double>> ended;   // fold -> value it ended with
  };

  Job FoldJob(const Job& job, int fold) const;
  // Folds that have not failed (all folds when every one failed). Never empty.
  std::vector<int> LiveFolds(int configuration) const;
  // Passes every resource at which all live folds of `configuration` reported to the
  // wrapped scheduler (in increasing order). The last decision made, if any.
  std::optional<Decision> JudgeReports(int configuration);
  // Remembers a stop of `configuration`: its other running folds stop.
  void StopConfiguration(int configuration, int except_trial, const Decision& decision);
  void Settle(int configuration, const std::set<int>& folds, int except_trial, Verdict verdict,
              const std::string& reason);
  // `configuration` has failed (more failed folds than allowed): its fold jobs not
  // started yet end now without running, its running folds (but `except_trial`) stop.
  void AbandonFailed(int configuration, ConfigurationJob& spread, int except_trial);
  // New entries of the wrapped scheduler's Eliminated(), each for every fold.
  void SyncEliminated();

  std::unique_ptr<Scheduler> inner_;
  CvConfig cv_;
  std::deque<Job> pending_;                        // fold jobs handed out before new ones
  std::map<int, ConfigurationJob> running_;        // by configuration
  std::map<int, std::set<int>> failed_;            // configuration -> failed folds
  std::set<int> stopped_;                          // configurations stopped by a report
  // configuration -> resource -> fold -> value, until all live folds reported there
  std::map<int, std::map<double, std::map<int, std::optional<double>>>> reports_;
  std::vector<Decision> settled_;
  std::size_t inner_eliminated_seen_ = 0;
};

}  // namespace gpusweep
