// asha.h — the asynchronous schedulers: ASHA (one bracket) and asynchronous Hyperband
// (several brackets, hyperband.h). Trial k belongs to bracket
// brackets[cycle[k mod cycle.size()]]; within its bracket it follows asha_bracket.h.
//
// NextJob, in order: an interrupted job (again, unchanged); budgeted style: a promotion,
// brackets in order (most aggressive first); the next configuration, started in its
// bracket; kWait while jobs run (budgeted style: a finishing job may make a promotion
// possible); kDone. Iterative style never waits: running trials create no new jobs.
#pragma once

#include <vector>

#include "gpusweep/scheduler.h"
#include "schedule/asha_bracket.h"
#include "schedule/job_book.h"

namespace gpusweep::schedule_detail {

class AsyncBrackets final : public Scheduler {
 public:
  // Precondition: brackets and cycle non-empty, cycle's entries index `brackets`.
  AsyncBrackets(std::vector<AshaBracket> brackets, std::vector<int> cycle,
                int configurations, TrialStyle style);

  TrialStyle style() const override { return style_; }
  Job NextJob() const override;
  void JobStarted(const Job& job) override;
  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override {
    return OnEvaluatedReport(trial, resource, Evaluation{value, {}, 0});
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    return OnJobEvaluated(job, Evaluation{value, {}, 0});
  }
  std::optional<Decision> OnEvaluatedReport(int trial, double resource,
                                            const Evaluation& evaluation) override;
  Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) override;
  void OnJobInterrupted(const Job& job) override;
  std::vector<double> StopPoints(int trial) const override;

  // The bracket of a trial (its position in the bracket list).
  const AshaBracket& BracketOf(int trial) const;

 private:
  size_t BracketIndex(int trial) const;
  AshaBracket& MutableBracketOf(int trial);

  std::vector<AshaBracket> brackets_;
  std::vector<int> cycle_;
  TrialStyle style_;
  JobBook book_;
};

// ASHA: one bracket with RungResources(min_resource, max_resource, eta), id 0; its
// rungs ranked by `ranking` (kPareto: multi-objective ASHA, asha_bracket.h).
// Precondition: the config passed MakeScheduler's validation.
std::unique_ptr<Scheduler> MakeAsha(const SchedulerConfig& config, Mode mode,
                                    int configurations, TrialStyle style,
                                    Ranking ranking = Ranking::kValue);

}  // namespace gpusweep::schedule_detail
