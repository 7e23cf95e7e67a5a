#include "repeated_cohorts.h"

#include <set>

#include <gtest/gtest.h>

#include "event_sim.h"

namespace gpusweep::bench {
namespace {

// Forwards every call and checks that no trial of a later cohort runs beside one of an
// earlier cohort (the cohorts are experiments run one after the other).
class CohortOrderSpy final : public Scheduler {
 public:
  CohortOrderSpy(std::unique_ptr<Scheduler> inner, int cohort_size)
      : inner_(std::move(inner)), cohort_size_(cohort_size) {}
  TrialStyle style() const override { return inner_->style(); }
  Job NextJob() const override { return inner_->NextJob(); }
  void JobStarted(const Job& job) override {
    for (int trial : running_) {
      if (trial / cohort_size_ != job.trial / cohort_size_) ++overlaps;
    }
    running_.insert(job.trial);
    max_cohort = std::max(max_cohort, job.trial / cohort_size_);
    inner_->JobStarted(job);
  }
  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override {
    return inner_->OnReport(trial, resource, value);
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    running_.erase(job.trial);
    Decision decision = inner_->OnJobFinished(job, value);
    EXPECT_EQ(decision.trial, job.trial);  // global trial numbers come back
    return decision;
  }
  void OnJobInterrupted(const Job& job) override { inner_->OnJobInterrupted(job); }

  int overlaps = 0;
  int max_cohort = -1;

 private:
  std::unique_ptr<Scheduler> inner_;
  int cohort_size_;
  std::set<int> running_;
};

std::unique_ptr<Scheduler> Halving(int configurations) {
  SchedulerConfig config;
  config.kind = SchedulerKind::kSuccessiveHalving;
  config.max_resource = 9;
  config.reduction_factor = 3;
  return std::move(*MakeScheduler(config, Mode::kMax, configurations, TrialStyle::kBudgeted));
}

TEST(RepeatedCohortsTest, RunsWholeCohortsOneAfterAnother) {
  WorkloadSpec spec;
  spec.configurations = 30;  // 3 cohorts of 9, and 3 configurations never started
  spec.max_steps = 9;
  spec.fail_fraction = 0;
  const Workload workload = MakeWorkload(spec);
  CohortOrderSpy spy(MakeRepeatedCohorts(Halving, 9, 30), 9);
  const SimResult result = Simulate(spy, workload, SimOptions{4, 0.01, {}});
  EXPECT_TRUE(result.problems.empty()) << result.problems.front();
  EXPECT_EQ(spy.overlaps, 0);
  EXPECT_EQ(spy.max_cohort, 2);
  EXPECT_EQ(result.started, 27);
  // Per cohort: 9 at budget 1, the best 3 at 3, the best one completes at 9.
  EXPECT_EQ(result.promotions, 3 * (3 + 1));
  EXPECT_EQ(result.completed, 3);
  EXPECT_LT(result.UtilisationUntilLastLaunch(4), 1.0);  // waits between rounds
}

}  // namespace
}  // namespace gpusweep::bench
