// MakeScheduler's validation, and the contract every scheduler shares: replaying the
// same calls gives the same state, and an interrupted job comes back first.
#include "gpusweep/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

std::string ErrorOf(const SchedulerConfig& config, TrialStyle style = TrialStyle::kBudgeted) {
  auto made = MakeScheduler(config, Mode::kMax, 10, style);
  if (made) return "ok";
  EXPECT_EQ(made.error().code, ErrorCode::kInvalidConfig);
  return made.error().message;
}

TEST(MakeScheduler, NoneIsNullptr) {
  auto made = MakeScheduler(SchedulerConfig{}, Mode::kMax, 10, TrialStyle::kIterative);
  ASSERT_TRUE(made.has_value());
  EXPECT_EQ(*made, nullptr);
}

TEST(MakeScheduler, MedianNeedsNoResources) {
  SchedulerConfig config;
  config.kind = SchedulerKind::kMedian;  // max_resource unset (0)
  EXPECT_EQ(ErrorOf(config, TrialStyle::kIterative), "ok");
}

TEST(MakeScheduler, RejectsBadRungs) {
  for (SchedulerKind kind :
       {SchedulerKind::kAsha, SchedulerKind::kHyperband, SchedulerKind::kSuccessiveHalving}) {
    EXPECT_EQ(ErrorOf(RungConfig(kind, 1, 27, 3)), "ok");
    EXPECT_EQ(ErrorOf(RungConfig(kind, 0, 27, 3)).rfind("scheduler.min_resource: 0 must", 0), 0u);
    EXPECT_EQ(ErrorOf(RungConfig(kind, 4, 2, 3)).rfind("scheduler.max_resource: 2 is below", 0),
              0u);
    EXPECT_EQ(ErrorOf(RungConfig(kind, 1, 27, 1)).rfind("scheduler.reduction_factor: 1", 0), 0u);
  }
}

TEST(MakeScheduler, SuccessiveHalvingNeedsBudgetedTrials) {
  const auto config = RungConfig(SchedulerKind::kSuccessiveHalving, 1, 16, 2);
  EXPECT_EQ(
      ErrorOf(config, TrialStyle::kIterative)
          .rfind("scheduler.type: successive_halving runs rounds of budgeted trials; make the "
                 "command read {{budget}} (e.g. --epochs {{budget}})",
                 0),
      0u);
  auto linear = config;
  linear.growth = BudgetGrowth::kLinear;
  EXPECT_EQ(ErrorOf(linear).rfind("scheduler.budget_step: 0 must be greater than 0", 0), 0u);
  linear.budget_step = 2;
  EXPECT_EQ(ErrorOf(linear), "ok");
}

TEST(MakeScheduler, HyperbandBracketsBetweenOneAndSMaxPlusOne) {
  auto config = RungConfig(SchedulerKind::kHyperband, 1, 27, 3);
  config.brackets = 0;
  EXPECT_EQ(ErrorOf(config).rfind("scheduler.brackets: 0 is not between 1 and 4", 0), 0u);
  config.brackets = 5;
  EXPECT_NE(ErrorOf(config), "ok");
  config.brackets = 4;
  EXPECT_EQ(ErrorOf(config), "ok");
}

// A small deterministic simulation: 3 workers, one resource unit per tick, values from
// the trial number and resource; the first running job is interrupted at tick 4. Every
// call is recorded with what it returned and NextJob's answer after it.
using Call = std::function<std::string(Scheduler&)>;  // returns the call's result, described

struct Recording {
  std::vector<Call> calls;
  std::vector<std::string> results;    // of each call
  std::vector<std::string> next_jobs;  // after each call
};

double ValueOf(int trial, double resource) { return ((trial * 37) % 11) / 10.0 + resource * 0.01; }

std::string DescribeDecision(const std::optional<Decision>& decision) {
  if (!decision) return "none";
  return fmt::format("{} {} r{} {}", decision->trial, ToString(decision->verdict), decision->rung,
                     decision->reason);
}

Recording Simulate(Scheduler& scheduler) {
  Recording rec;
  auto record = [&](Call call) {
    rec.results.push_back(call(scheduler));
    rec.calls.push_back(std::move(call));
    rec.next_jobs.push_back(Describe(scheduler.NextJob()));
    return rec.results.back();
  };
  struct Running {
    Job job;
    int done = 0;
  };
  std::vector<Running> running;
  for (int tick = 0; tick < 400; ++tick) {
    while (running.size() < 3) {
      const Job job = scheduler.NextJob();
      if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) break;
      record([job](Scheduler& s) {
        s.JobStarted(job);
        return std::string("started");
      });
      running.push_back({job, 0});
    }
    if (running.empty()) break;
    if (tick == 4) {
      const Job victim = running.front().job;
      running.erase(running.begin());
      record([victim](Scheduler& s) {
        s.OnJobInterrupted(victim);
        return std::string();
      });
      EXPECT_EQ(Describe(scheduler.NextJob()), Describe(victim));
      continue;
    }
    for (size_t i = 0; i < running.size();) {
      Running& r = running[i];
      const int trial = r.job.trial;
      const double resource = ++r.done;
      const double value = ValueOf(trial, resource);
      bool stopped = false;
      if (scheduler.style() == TrialStyle::kIterative) {
        const std::string result = record([trial, resource, value](Scheduler& s) {
          return DescribeDecision(s.OnReport(trial, resource, value));
        });
        stopped = result.find(" stop ") != std::string::npos;
      }
      if (stopped || resource >= r.job.budget) {
        const Job job = r.job;
        record(
            [job, value](Scheduler& s) { return DescribeDecision(s.OnJobFinished(job, value)); });
        running.erase(running.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }
  EXPECT_EQ(scheduler.NextJob().kind, Job::Kind::kDone);
  return rec;
}

struct Case {
  const char* name;
  SchedulerConfig config;
  TrialStyle style;
};

std::vector<Case> AllSchedulers() {
  SchedulerConfig median;
  median.kind = SchedulerKind::kMedian;
  median.max_resource = 9;
  median.min_trials = 2;
  return {
      {"median", median, TrialStyle::kIterative},
      {"asha iterative", RungConfig(SchedulerKind::kAsha, 1, 9, 3), TrialStyle::kIterative},
      {"asha budgeted", RungConfig(SchedulerKind::kAsha, 1, 9, 3), TrialStyle::kBudgeted},
      {"hyperband iterative", RungConfig(SchedulerKind::kHyperband, 1, 9, 3),
       TrialStyle::kIterative},
      {"hyperband budgeted", RungConfig(SchedulerKind::kHyperband, 1, 9, 3), TrialStyle::kBudgeted},
      {"successive halving", RungConfig(SchedulerKind::kSuccessiveHalving, 1, 8, 2),
       TrialStyle::kBudgeted},
  };
}

TEST(SchedulerContract, ReplayingTheCallsReachesTheSameState) {
  for (const Case& c : AllSchedulers()) {
    SCOPED_TRACE(c.name);
    auto original = Make(c.config, Mode::kMax, 20, c.style);
    const Recording rec = Simulate(*original);
    // The simulation must exercise the interesting paths: stops, or promotions.
    const auto stops = std::count_if(rec.results.begin(), rec.results.end(),
                                     [](auto& r) { return r.find(" stop ") != std::string::npos; });
    const auto promotions = std::count_if(rec.next_jobs.begin(), rec.next_jobs.end(),
                                          [](auto& j) { return j.rfind("promote", 0) == 0; });
    EXPECT_GT(c.style == TrialStyle::kIterative ? stops : promotions, 0);
    auto replayed = Make(c.config, Mode::kMax, 20, c.style);
    for (size_t i = 0; i < rec.calls.size(); ++i) {
      ASSERT_EQ(rec.calls[i](*replayed), rec.results[i]) << "call " << i;
      ASSERT_EQ(Describe(replayed->NextJob()), rec.next_jobs[i]) << "after call " << i;
    }
  }
}

TEST(SchedulerContract, InterruptedJobComesBackFirstUnchanged) {
  auto asha = Make(RungConfig(SchedulerKind::kAsha, 1, 4, 2), Mode::kMax, 6, TrialStyle::kBudgeted);
  std::vector<Job> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(Launch(*asha));
  asha->OnJobFinished(jobs[0], 0.1);
  asha->OnJobFinished(jobs[1], 0.9);
  const Job promotion = Launch(*asha);
  EXPECT_EQ(Describe(promotion), "promote 1 b0 r1 @2");
  asha->OnJobInterrupted(promotion);
  asha->OnJobInterrupted(jobs[2]);
  EXPECT_EQ(Describe(Launch(*asha)), "promote 1 b0 r1 @2");
  EXPECT_EQ(Describe(Launch(*asha)), "start 2 b0 r0 @1");
  EXPECT_EQ(Describe(Launch(*asha)), "start 3 b0 r0 @1");
}

TEST(SchedulerContract, StoppedIterativeTrialIsNotRunAgain) {
  auto asha =
      Make(RungConfig(SchedulerKind::kAsha, 1, 9, 3), Mode::kMax, 2, TrialStyle::kIterative);
  const Job first = Launch(*asha);
  const Job second = Launch(*asha);
  asha->OnReport(0, 1, 0.9);
  ASSERT_EQ(asha->OnReport(1, 1, 0.1)->verdict, Verdict::kStop);
  asha->OnJobInterrupted(second);
  asha->OnJobInterrupted(first);
  EXPECT_EQ(Describe(Launch(*asha)), "start 0 b0 r0 @9");
  EXPECT_EQ(asha->NextJob().kind, Job::Kind::kDone);
}

}  // namespace
}  // namespace gpusweep::schedule_detail
