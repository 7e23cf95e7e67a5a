// The `none` policy as a Scheduler, so the simulator drives every row the same way.
#include "event_sim.h"

namespace gpusweep::bench {
namespace {

class RunEveryTrialToEnd final : public Scheduler {
 public:
  RunEveryTrialToEnd(int configurations, double max_resource)
      : configurations_(configurations), max_resource_(max_resource) {}

  TrialStyle style() const override { return TrialStyle::kIterative; }

  Job NextJob() const override {
    Job job;
    if (next_ >= configurations_) return job;  // kDone
    job.kind = Job::Kind::kStart;
    job.trial = next_;
    job.budget = max_resource_;
    return job;
  }
  void JobStarted(const Job& job) override { next_ = job.trial + 1; }
  std::optional<Decision> OnReport(int, double, std::optional<double>) override {
    return std::nullopt;
  }
  Decision OnJobFinished(const Job& job, std::optional<double> value) override {
    Decision decision;
    decision.trial = job.trial;
    decision.resource = max_resource_;
    decision.value = value;
    decision.verdict = Verdict::kComplete;
    return decision;
  }
  void OnJobInterrupted(const Job& job) override { next_ = job.trial; }

 private:
  int configurations_;
  double max_resource_;
  int next_ = 0;
};

}  // namespace

std::unique_ptr<Scheduler> MakeRunEveryTrialToEnd(int configurations, double max_resource) {
  return std::make_unique<RunEveryTrialToEnd>(configurations, max_resource);
}

}  // namespace gpusweep::bench
