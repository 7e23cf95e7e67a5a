#include "schedule/successive_halving.h"

#include <gtest/gtest.h>

#include <map>

#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

SchedulerConfig Halving(double min, double max, double eta = 2) {
  return RungConfig(SchedulerKind::kSuccessiveHalving, min, max, eta);
}

struct Round {
  Job::Kind kind;
  double budget;
  std::vector<int> trials;  // in launch order
};

struct RunLog {
  std::vector<Round> rounds;
  int waits = 0;
  std::map<Verdict, int> verdicts;
};

// Runs every round with unlimited workers: launch all that NextJob offers, then finish
// them all in trial order with value_of(trial).
template <class ValueOf>
RunLog RunToTheEnd(Scheduler& scheduler, ValueOf value_of) {
  RunLog log;
  for (;;) {
    std::vector<Job> running;
    for (Job job = Launch(scheduler);
         job.kind == Job::Kind::kStart || job.kind == Job::Kind::kPromote;
         job = Launch(scheduler)) {
      running.push_back(job);
    }
    if (running.empty()) break;
    EXPECT_EQ(scheduler.NextJob().kind, Job::Kind::kWait);
    ++log.waits;
    Round round{running.front().kind, running.front().budget, {}};
    for (const Job& job : running) {
      round.trials.push_back(job.trial);
      EXPECT_EQ(job.budget, round.budget);
    }
    log.rounds.push_back(round);
    for (const Job& job : running)
      ++log.verdicts[scheduler.OnJobFinished(job, value_of(job.trial)).verdict];
  }
  EXPECT_EQ(scheduler.NextJob().kind, Job::Kind::kDone);
  return log;
}

TEST(SuccessiveHalving, SeedsHalving15To8To4To2To1) {
  auto halving = Make(Halving(1, 16), Mode::kMax, 15, TrialStyle::kBudgeted);
  const RunLog log = RunToTheEnd(*halving, [](int trial) { return double(trial); });
  ASSERT_EQ(log.rounds.size(), 5u);
  const std::vector<size_t> sizes{15, 8, 4, 2, 1};
  const std::vector<double> budgets{1, 2, 4, 8, 16};
  for (size_t r = 0; r < 5; ++r) {
    EXPECT_EQ(log.rounds[r].trials.size(), sizes[r]) << "round " << r;
    EXPECT_EQ(log.rounds[r].budget, budgets[r]) << "round " << r;
    EXPECT_EQ(log.rounds[r].kind, r == 0 ? Job::Kind::kStart : Job::Kind::kPromote);
  }
  // Higher trials are better: survivors best first.
  EXPECT_EQ(log.rounds[1].trials, (std::vector<int>{14, 13, 12, 11, 10, 9, 8, 7}));
  EXPECT_EQ(log.rounds[4].trials, (std::vector<int>{14}));
  EXPECT_EQ(log.waits, 5);
  EXPECT_EQ(log.verdicts.at(Verdict::kPause), 15 + 8 + 4 + 2);
  EXPECT_EQ(log.verdicts.at(Verdict::kComplete), 1);
  const std::vector<Decision>& eliminated = halving->Eliminated();
  EXPECT_EQ(eliminated.size(), 14u);
  EXPECT_EQ(eliminated.front().reason, "rank 9 of 15 in round 0 (epoch 1): only the top 8 survive");
}

TEST(SuccessiveHalving, WaitsUntilTheWholeRoundHasFinished) {
  auto halving = Make(Halving(1, 16), Mode::kMin, 15, TrialStyle::kBudgeted);
  std::vector<Job> jobs;
  for (int i = 0; i < 15; ++i) jobs.push_back(Launch(*halving));
  for (int i = 0; i < 14; ++i) {
    EXPECT_EQ(halving->OnJobFinished(jobs[i], i).verdict, Verdict::kPause);
    EXPECT_EQ(halving->NextJob().kind, Job::Kind::kWait);
  }
  halving->OnJobFinished(jobs[14], 14);
  EXPECT_EQ(Describe(halving->NextJob()), "promote 0 b0 r1 @2");  // min mode: lowest first
}

TEST(SuccessiveHalving, TiesGoToLowerTrialsAndFailedTrialsNeverSurvive) {
  auto halving = Make(Halving(1, 16), Mode::kMax, 15, TrialStyle::kBudgeted);
  std::vector<Job> jobs;
  for (int i = 0; i < 15; ++i) jobs.push_back(Launch(*halving));
  for (int i = 0; i < 15; ++i) {
    const std::optional<double> value = i < 2 ? std::nullopt : std::optional<double>(1.0);
    const Verdict verdict = halving->OnJobFinished(jobs[i], value).verdict;
    EXPECT_EQ(verdict, i < 2 ? Verdict::kStop : Verdict::kPause);
  }
  std::vector<int> promoted;
  for (Job job = Launch(*halving); job.kind == Job::Kind::kPromote; job = Launch(*halving))
    promoted.push_back(job.trial);
  EXPECT_EQ(promoted, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(SuccessiveHalving, MaxReachedBeforeOneRemainsCompletesAllSurvivors) {
  auto halving = Make(Halving(1, 4), Mode::kMax, 15, TrialStyle::kBudgeted);
  const RunLog log = RunToTheEnd(*halving, [](int trial) { return double(trial); });
  ASSERT_EQ(log.rounds.size(), 3u);
  EXPECT_EQ(log.rounds[2].trials.size(), 4u);
  EXPECT_EQ(log.rounds[2].budget, 4);
  EXPECT_EQ(log.verdicts.at(Verdict::kComplete), 4);
}

TEST(SuccessiveHalving, ALoneSurvivorRunsAtMaxResource) {
  auto halving = Make(Halving(1, 16), Mode::kMax, 4, TrialStyle::kBudgeted);
  const RunLog log = RunToTheEnd(*halving, [](int trial) { return double(trial); });
  ASSERT_EQ(log.rounds.size(), 3u);
  EXPECT_EQ(log.rounds[1].budget, 2);
  EXPECT_EQ(log.rounds[2].budget, 16);
  EXPECT_EQ(log.rounds[2].trials, (std::vector<int>{3}));
  auto single = Make(Halving(1, 16), Mode::kMax, 1, TrialStyle::kBudgeted);
  EXPECT_EQ(Describe(single->NextJob()), "start 0 b0 r4 @16");
}

TEST(SuccessiveHalving, LinearGrowthAddsTheStepPerRound) {
  SchedulerConfig config = Halving(2, 20);
  config.growth = BudgetGrowth::kLinear;
  config.budget_step = 3;
  auto halving = Make(config, Mode::kMax, 8, TrialStyle::kBudgeted);
  const RunLog log = RunToTheEnd(*halving, [](int trial) { return double(trial); });
  std::vector<double> budgets;
  for (const Round& round : log.rounds) budgets.push_back(round.budget);
  EXPECT_EQ(budgets, (std::vector<double>{2, 5, 8, 20}));  // 8 -> 4 -> 2 -> 1 at max
}

TEST(SuccessiveHalving, NoConfigurationsIsDone) {
  auto halving = Make(Halving(1, 16), Mode::kMax, 0, TrialStyle::kBudgeted);
  EXPECT_EQ(halving->NextJob().kind, Job::Kind::kDone);
}

}  // namespace
}  // namespace gpusweep::schedule_detail
