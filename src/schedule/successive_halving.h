// successive_halving.h — synchronous successive halving (Jamieson & Talwalkar, AISTATS
// 2016), the rounds of the seed's NAS engine: budgeted style only.
//
// Round budgets are RoundBudgets(config) = b_0 < ... < b_R (b_R = max_resource); a job's
// rung is the index of its budget. Round 0 starts every configuration at b_0 (kStart,
// trial order). When ALL jobs of a round have finished, the best ceil(n/eta) of its n
// trials survive (ranked by mode, ties to the lower trial number; a failed trial —
// no value — never survives) and run the next round (kPromote, best first); the others
// are eliminated (eliminations()). While the round's last jobs run, NextJob says kWait:
// this is synchronous halving's idle time.
//
// The next round uses the next budget; a single survivor, or a lone configuration, runs
// at max_resource directly ("until one or max_resource remains"). The round at
// max_resource is the last: its jobs return kComplete. Earlier rounds return kPause
// (kStop for a failed job). With 15 configurations, eta 2 and budgets 1, 2, 4, 8, 16
// the cohorts are 15 -> 8 -> 4 -> 2 -> 1.
//
// With Ranking::kPareto (several metrics or constraints) a round ranks its trials by
// rung_table.h's Pareto order (constraint-domination front, crowding, trial), the
// synchronous counterpart of multi-objective ASHA.
#pragma once

#include <vector>

#include "gpusweep/scheduler.h"
#include "schedule/job_book.h"
#include "schedule/rung_table.h"

namespace gpusweep::schedule_detail {

class SuccessiveHalving final : public Scheduler {
 public:
  // Precondition: the config passed MakeScheduler's validation.
  SuccessiveHalving(const SchedulerConfig& config, Mode mode, int configurations,
                    Ranking ranking = Ranking::kValue);

  TrialStyle style() const override { return TrialStyle::kBudgeted; }
  Job NextJob() const override;
  void JobStarted(const Job& job) override;
  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    return std::nullopt;
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    return OnJobEvaluated(job, Evaluation{value, {}, 0});
  }
  Decision OnJobEvaluated(const Job& job, const Evaluation& evaluation) override;
  void OnJobInterrupted(const Job& job) override {
    book_.Interrupted(job, JobBook::Requeue::kYes);
  }

  // kStop decisions of the trials eliminated so far, in the order they were made (the
  // finishing trial's decision was kPause: its round was not over yet).
  const std::vector<Decision>& Eliminated() const override { return eliminations_; }
  int round() const { return round_; }

 private:
  void BeginRound(const std::vector<int>& cohort, Job::Kind kind);
  void EndRound();
  bool FinalRound() const { return rung_ + 1 == static_cast<int>(budgets_.size()); }

  SchedulerConfig config_;
  Mode mode_;
  Ranking ranking_;
  std::vector<double> budgets_;
  JobBook book_;
  int round_ = 0;
  int rung_ = 0;                    // index of this round's budget
  std::vector<Job> round_jobs_;     // this round's jobs, in launch order
  size_t next_unstarted_ = 0;       // round_jobs_[next_unstarted_] is launched next
  RungTable results_;               // this round's values
  std::vector<Decision> eliminations_;
};

}  // namespace gpusweep::schedule_detail
