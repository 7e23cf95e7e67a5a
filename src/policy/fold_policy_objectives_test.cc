// Cross-validation with several objectives: the wrapped policy hears each
// configuration's objectives (and violation) as the means of its folds'.
#include <limits>

#include <gtest/gtest.h>

#include "policy/fold_policy.h"
#include "policy/scheduled_policy.h"
#include "policy/test_util.h"

namespace gpusweep {
namespace {

// Starts configurations in order and records the evaluations it is told.
class RecordingScheduler final : public Scheduler {
 public:
  explicit RecordingScheduler(int configurations, std::vector<Evaluation>* reports,
                              std::vector<Evaluation>* finishes)
      : configurations_(configurations), reports_(reports), finishes_(finishes) {}
  TrialStyle style() const override { return TrialStyle::kIterative; }
  Job NextJob() const override {
    Job job;
    if (started_ >= configurations_) return job;  // kDone
    job.kind = Job::Kind::kStart;
    job.trial = started_;
    job.budget = 9;
    return job;
  }
  void JobStarted(const Job&) override { ++started_; }
  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    ADD_FAILURE() << "the fold policy must pass the whole evaluation";
    return std::nullopt;
  }
  Decision OnJobFinished(const Job&, std::optional<double>) override {
    ADD_FAILURE() << "the fold policy must pass the whole evaluation";
    return {};
  }
  std::optional<Decision> OnEvaluatedReport(int, double, const Evaluation& e) override {
    reports_->push_back(e);
    return std::nullopt;
  }
  Decision OnJobEvaluated(const Job& job, const Evaluation& e) override {
    finishes_->push_back(e);
    Decision d;
    d.trial = job.trial;
    d.verdict = Verdict::kComplete;
    return d;
  }
  void OnJobInterrupted(const Job&) override {}

 private:
  int configurations_;
  int started_ = 0;
  std::vector<Evaluation>* reports_;
  std::vector<Evaluation>* finishes_;
};

TEST(FoldPolicyObjectivesTest, AConfigurationsObjectivesAreTheMeansOfItsFolds) {
  std::vector<Evaluation> reports, finishes;
  FoldPolicy folds(std::make_unique<ScheduledPolicy>(
                       policy_test::Random(2),
                       std::make_unique<RecordingScheduler>(2, &reports, &finishes)),
                   CvConfig{3, 1, 1});
  std::vector<Job> jobs;
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(folds.NextJob({}));
    folds.JobStarted(jobs.back());
  }
  // Configuration 0's three folds (losses of a max and a min metric, a violation).
  folds.OnEvaluatedReport(0, 1, Evaluation{0.6, {-0.6, 4}, 0});
  folds.OnEvaluatedReport(1, 1, Evaluation{0.9, {-0.9, 2}, 0.3});
  EXPECT_TRUE(reports.empty());  // waits for every live fold
  folds.OnEvaluatedReport(2, 1, Evaluation{0.3, {-0.3, 6}, 0});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NEAR(*reports[0].value, 0.6, 1e-12);
  ASSERT_EQ(reports[0].losses.size(), 2u);
  EXPECT_NEAR(reports[0].losses[0], -0.6, 1e-12);
  EXPECT_NEAR(reports[0].losses[1], 4, 1e-12);
  EXPECT_NEAR(reports[0].violation, 0.1, 1e-12);
  // A fold that failed (allowed: 1) is left out of the mean, and a fold that missed the
  // second objective makes its mean +inf.
  folds.OnJobEvaluated(jobs[0], Evaluation{0.5, {-0.5, 1}, 0});
  folds.OnJobEvaluated(jobs[1], Evaluation{});
  EXPECT_TRUE(finishes.empty());
  folds.OnJobEvaluated(jobs[2], Evaluation{0.7, {-0.7, std::numeric_limits<double>::infinity()}, 0.2});
  ASSERT_EQ(finishes.size(), 1u);
  EXPECT_NEAR(*finishes[0].value, 0.6, 1e-12);
  EXPECT_NEAR(finishes[0].losses[0], -0.6, 1e-12);
  EXPECT_EQ(finishes[0].losses[1], std::numeric_limits<double>::infinity());
  EXPECT_NEAR(finishes[0].violation, 0.1, 1e-12);
}

}  // namespace
}  // namespace gpusweep
