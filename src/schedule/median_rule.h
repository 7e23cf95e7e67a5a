// median_rule.h — the median stopping rule (Golovin et al., "Google Vizier", KDD 2017).
//
// At every report of trial T at resource t (t >= grace_steps): T's best value so far is
// compared with the median of the OTHER trials' running averages at t — the mean of
// each other trial's values reported at resources <= t, over the trials whose reports
// reached t (stopped and finished trials count). With at least min_trials such trials,
// a best strictly worse than the median stops T; a trial with no numeric value yet
// ranks worst. Otherwise no decision is returned (continuing needs none).
//
// One job per trial in either style (budget = max_resource, 0 when unset). A report at
// a resource not above the trial's last one means the trial restarted (after an
// interruption): its points at resources >= t are replaced. Missing values (nullopt,
// NaN) add no point.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "gpusweep/scheduler.h"
#include "schedule/job_book.h"

namespace gpusweep::schedule_detail {

// One trial's learning curve, in increasing resource order.
class Curve {
 public:
  void Add(double resource, double value, Mode mode);
  bool empty() const { return resources_.empty(); }
  double last_resource() const { return resources_.back(); }
  // Best value of the whole curve (under the mode given to Add); nullopt if empty.
  std::optional<double> Best() const;
  // Mean of the values at resources <= t; nullopt if there are none.
  std::optional<double> RunningAverage(double t) const;

 private:
  std::vector<double> resources_;
  std::vector<double> prefix_sums_;  // sum of values [0, i]
  std::vector<double> prefix_best_;  // best of values [0, i]
};

class MedianStopping final : public Scheduler {
 public:
  MedianStopping(const SchedulerConfig& config, Mode mode, int configurations,
                 TrialStyle style);

  TrialStyle style() const override { return style_; }
  Job NextJob() const override;
  void JobStarted(const Job& job) override { book_.Started(job); }
  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override;
  Decision OnJobFinished(const Job& job, std::optional<double> value) override;
  void OnJobInterrupted(const Job& job) override;

 private:
  // The others' running averages at t (trials whose curves reach t).
  std::vector<double> OthersAverages(int trial, double t) const;

  SchedulerConfig config_;
  Mode mode_;
  TrialStyle style_;
  JobBook book_;
  std::vector<Curve> curves_;  // by trial number (dense: trials are 0..configurations-1)
  std::map<int, double> last_resource_;  // by trial, any report
  std::set<int> stopped_;
};

// Median of a non-empty list (mean of the middle two for an even count).
double Median(std::vector<double> values);

}  // namespace gpusweep::schedule_detail
