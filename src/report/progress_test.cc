// RankTrials, ComputeProgress and FormatProgressLine.
#include <gtest/gtest.h>

#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using testing::CodePoints;
using testing::MakeContext;
using testing::MakeTrial;

std::vector<int> Numbers(const std::vector<const TrialRecord*>& ranked) {
  std::vector<int> numbers;
  for (const TrialRecord* t : ranked) numbers.push_back(t->number);
  return numbers;
}

std::vector<TrialRecord> MixedTrials() {
  return {
      MakeTrial(0, TrialState::kCompleted, 0.5),
      MakeTrial(1, TrialState::kCompleted, 0.9),
      MakeTrial(2, TrialState::kFailed, 0.99),        // failed: never best
      MakeTrial(3, TrialState::kCompleted, 0.5),      // ties with 0
      MakeTrial(4, TrialState::kCompleted, std::nullopt),
      MakeTrial(5, TrialState::kRunning, 1.5),        // running: not ranked
      MakeTrial(6, TrialState::kInterrupted, 2.0),    // interrupted: not ranked
      MakeTrial(7, TrialState::kCompleted, 0.1),
      MakeTrial(8, TrialState::kCompleted, std::nan("")),
  };
}

TEST(ReportRankTest, MaxModeBestFirstTiesByTrialNumber) {
  const auto trials = MixedTrials();
  EXPECT_EQ(Numbers(RankTrials(trials, {"val_acc", Mode::kMax})),
            (std::vector<int>{1, 0, 3, 7}));
}

TEST(ReportRankTest, MinModeLowestFirstTiesByTrialNumber) {
  auto trials = MixedTrials();
  std::swap(trials[0], trials[3]);  // input order must not decide ties
  EXPECT_EQ(Numbers(RankTrials(trials, {"loss", Mode::kMin})), (std::vector<int>{7, 0, 3, 1}));
}

// The limited ranking is the full one's prefix, ties included, whatever the limit.
TEST(ReportRankTest, ALimitedRankingIsTheFullRankingsPrefix) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 200; ++k)  // values repeat: ties to the lower number
    trials.push_back(MakeTrial(199 - k, k % 7 == 3 ? TrialState::kFailed : TrialState::kCompleted,
                               0.1 * ((k * 37) % 11)));
  for (const Mode mode : {Mode::kMax, Mode::kMin}) {
    const std::vector<int> full = Numbers(RankTrials(trials, {"acc", mode}));
    for (const std::size_t limit : {0ul, 1ul, 5ul, 100ul, full.size(), full.size() + 9}) {
      const std::vector<int> prefix(full.begin(),
                                    full.begin() + static_cast<std::ptrdiff_t>(std::min(limit, full.size())));
      EXPECT_EQ(Numbers(RankTrials(trials, {"acc", mode}, limit)), prefix) << limit;
    }
  }
}

TEST(ReportRankTest, EmptyWhenOnlyFailedOrRunning) {
  const std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kFailed, 0.9),
                                           MakeTrial(1, TrialState::kRunning, std::nullopt)};
  EXPECT_TRUE(RankTrials(trials, {"val_acc", Mode::kMax}).empty());
}

TEST(ReportProgressTest, CountsBestAndEta) {
  // Trials 0..3 finished in 83 s each (one failed), trial 4 running for 30 s.
  std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.8), MakeTrial(1, TrialState::kCompleted, 0.87),
      MakeTrial(2, TrialState::kFailed, std::nullopt), MakeTrial(3, TrialState::kCompleted, 0.7),
      MakeTrial(4, TrialState::kRunning, std::nullopt)};
  ReportContext ctx = MakeContext();
  ctx.total_trials = 10;
  ctx.now = trials[4].start_time + 30;
  const Progress p = ComputeProgress(trials, ctx, /*concurrency=*/2, /*started_at=*/ctx.now - 130);
  EXPECT_EQ(p.done, 4);
  EXPECT_EQ(p.failed, 1);
  EXPECT_EQ(p.running, 1);
  EXPECT_EQ(p.queued, 5);
  EXPECT_EQ(p.best, 0.87);
  EXPECT_EQ(p.best_trial, 1);
  EXPECT_DOUBLE_EQ(p.elapsed_seconds, 130);
  ASSERT_TRUE(p.eta_seconds);
  EXPECT_DOUBLE_EQ(*p.eta_seconds, (5 * 83.0 + (83 - 30)) / 2);
}

// Several objectives: the front's size, not the first objective's best; one constrained
// objective: the best feasible value, never an infeasible trial's better one.
TEST(ReportProgressTest, ParetoObjectivesGiveTheFrontOrTheBestFeasible) {
  std::vector<TrialRecord> trials;
  const std::vector<Json> metrics{{{"acc", 0.9}, {"size", 10}, {"ms", 5}},
                                  {{"acc", 0.8}, {"size", 2}, {"ms", 5}},
                                  {{"acc", 0.7}, {"size", 5}, {"ms", 5}},
                                  {{"acc", 0.99}, {"size", 1}, {"ms", 12}}};
  for (int k = 0; k < 4; ++k) {
    trials.push_back(MakeTrial(k, TrialState::kCompleted, metrics[k]["acc"].get<double>()));
    trials.back().last_metrics = metrics[k];
  }
  ReportContext ctx = MakeContext();
  ctx.total_trials = 4;
  ctx.pareto = Objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  Progress p = ComputeProgress(trials, ctx, 1, ctx.now);
  EXPECT_EQ(p.pareto_front, 2);
  EXPECT_FALSE(p.best);
  EXPECT_NE(FormatProgressLine(p, ctx).find("  Pareto front 2  "), std::string::npos);
  ctx.pareto = Objective(MetricSpec{"acc", Mode::kMax}, {{"ms", std::nullopt, 10.0}});
  p = ComputeProgress(trials, ctx, 1, ctx.now);
  EXPECT_FALSE(p.pareto_front);
  EXPECT_EQ(p.best, 0.9);  // trial 3's 0.99 breaks ms <= 10
  EXPECT_EQ(p.best_trial, 0);
}

TEST(ReportProgressTest, EtaUnknownUntilATrialFinishes) {
  const std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kRunning, std::nullopt)};
  const Progress p = ComputeProgress(trials, MakeContext(), 4, 0);
  EXPECT_FALSE(p.eta_seconds);
  EXPECT_FALSE(p.best);
  EXPECT_EQ(p.queued, 15);
}

TEST(ReportProgressLineTest, FullLine) {
  Progress p;
  p.done = 5, p.running = 2, p.queued = 9, p.failed = 1;
  p.best = 0.8712, p.best_trial = 3;
  p.elapsed_seconds = 130, p.eta_seconds = 240;
  EXPECT_EQ(FormatProgressLine(p, MakeContext(200)),
            "fmnist-cnn  done 5/16  running 2  queued 9  failed 1  best val_acc=0.8712 (#3)  "
            "elapsed 2m10s  ETA 4m00s");
}

TEST(ReportProgressLineTest, UnknownBestAndEtaShowDash) {
  Progress p;
  p.queued = 16;
  const std::string line = FormatProgressLine(p, MakeContext(200));
  EXPECT_NE(line.find("best -"), std::string::npos);
  EXPECT_NE(line.find("ETA -"), std::string::npos);
  EXPECT_EQ(line.find("failed"), std::string::npos);
}

TEST(ReportProgressLineTest, NeverLongerThanWidth) {
  Progress p;
  p.done = 500, p.running = 8, p.queued = 1000, p.failed = 12, p.interrupted = 3;
  p.best = 0.123456789, p.best_trial = 417;
  p.elapsed_seconds = 99999, p.eta_seconds = 123456;
  for (int width : {1, 10, 40, 80}) {
    ReportContext ctx = MakeContext(width);
    ctx.experiment_name = "a-very-long-experiment-name-with-ünïcödé";
    const std::string line = FormatProgressLine(p, ctx);
    EXPECT_LE(CodePoints(line), width) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.substr(line.size() - 3), "…") << line;
  }
}

}  // namespace
}  // namespace gpusweep
