#include "repeated_cohorts.h"

#include <vector>

namespace gpusweep::bench {
namespace {

class RepeatedCohorts final : public Scheduler {
 public:
  RepeatedCohorts(SchedulerFactory factory, int cohort_size, int configurations)
      : factory_(std::move(factory)),
        cohort_size_(cohort_size),
        cohorts_total_(configurations / cohort_size) {
    cohorts_.push_back(factory_(cohort_size_));
    running_.push_back(0);
  }

  TrialStyle style() const override { return cohorts_.front()->style(); }

  Job NextJob() const override {
    const Job local = cohorts_.back()->NextJob();
    if (local.kind == Job::Kind::kDone) {
      // Waiting for the cohort's last jobs before the next experiment, or all done.
      return running_.back() > 0 ? Job{Job::Kind::kWait} : Job{};
    }
    return Globalised(local, Current());
  }

  void JobStarted(const Job& job) override {
    const int cohort = CohortOf(job.trial);
    cohorts_[cohort]->JobStarted(Localised(job, cohort));
    ++running_[cohort];
  }

  std::optional<Decision> OnReport(int trial, double resource,
                                   std::optional<double> value) override {
    const int cohort = CohortOf(trial);
    auto decision = cohorts_[cohort]->OnReport(trial - Offset(cohort), resource, value);
    if (decision) decision->trial += Offset(cohort);
    return decision;
  }

  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    const int cohort = CohortOf(job.trial);
    Decision decision = cohorts_[cohort]->OnJobFinished(Localised(job, cohort), value);
    decision.trial += Offset(cohort);
    --running_[cohort];
    StartNextCohortIfIdle();
    return decision;
  }

  void OnJobInterrupted(const Job& job) override {
    const int cohort = CohortOf(job.trial);
    cohorts_[cohort]->OnJobInterrupted(Localised(job, cohort));
    --running_[cohort];
  }

 private:
  int Current() const { return static_cast<int>(cohorts_.size()) - 1; }
  int Offset(int cohort) const { return cohort * cohort_size_; }
  int CohortOf(int trial) const { return trial / cohort_size_; }
  Job Globalised(Job job, int cohort) const {
    job.trial += Offset(cohort);
    return job;
  }
  Job Localised(Job job, int cohort) const {
    job.trial -= Offset(cohort);
    return job;
  }

  void StartNextCohortIfIdle() {
    const bool finished = cohorts_.back()->NextJob().kind == Job::Kind::kDone &&
                          running_.back() == 0;
    if (!finished || Current() + 1 >= cohorts_total_) return;
    cohorts_.push_back(factory_(cohort_size_));
    running_.push_back(0);
  }

  SchedulerFactory factory_;
  int cohort_size_;
  int cohorts_total_;
  std::vector<std::unique_ptr<Scheduler>> cohorts_;  // built so far; the last is current
  std::vector<int> running_;                         // per cohort: jobs running
};

}  // namespace

std::unique_ptr<Scheduler> MakeRepeatedCohorts(SchedulerFactory factory, int cohort_size,
                                               int configurations) {
  return std::make_unique<RepeatedCohorts>(std::move(factory), cohort_size, configurations);
}

}  // namespace gpusweep::bench
