// GroupTrials, grouped `best` and `status --group`.
#include "report/groups.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::MakeContext;
using testing::MakeTrial;

// lr 0.1 on seeds 0..2: 0.80, 0.82, 0.84 (mean 0.82); lr 0.2 on seeds 0..2: one lucky
// 0.95 then 0.70, 0.71 (mean 0.7867); lr 0.3: a single 0.99 (its other seeds failed).
std::vector<TrialRecord> SeedSweep() {
  std::vector<TrialRecord> trials;
  auto add = [&](double lr, int seed, std::optional<double> value) {
    const int number = static_cast<int>(trials.size());
    trials.push_back(MakeTrial(number, value ? TrialState::kCompleted : TrialState::kFailed,
                               value, Json{{"lr", lr}, {"seed", seed}}));
  };
  add(0.1, 0, 0.80); add(0.1, 1, 0.82); add(0.1, 2, 0.84);
  add(0.2, 0, 0.95); add(0.2, 1, 0.70); add(0.2, 2, 0.71);
  add(0.3, 0, 0.99); add(0.3, 1, std::nullopt); add(0.3, 2, std::nullopt);
  return trials;
}

TEST(GroupTrialsTest, MeanStdAndTheRankingRule) {
  const auto trials = SeedSweep();
  const auto groups = report::GroupTrials(trials, MetricSpec{"acc", Mode::kMax}, {"seed"});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].params, (Json{{"lr", 0.1}}));
  EXPECT_NEAR(*groups[0].mean, 0.82, 1e-12);
  EXPECT_NEAR(*groups[0].stddev, 0.02, 1e-12);  // sample std (n - 1)
  EXPECT_EQ(groups[1].params, (Json{{"lr", 0.2}}));
  // One lucky run out of three does not win: a group whose runs failed ranks last.
  EXPECT_EQ(groups[2].params, (Json{{"lr", 0.3}}));
  EXPECT_EQ(report::MeanText(groups[2]), "0.99 (n=1)");
  EXPECT_EQ(report::MeanText(groups[0]), "0.82 ± 0.02 (n=3)");
  // Without ignoring the seed every trial is its own group.
  EXPECT_FALSE(report::HasRepeats(report::GroupTrials(trials, MetricSpec{"acc", Mode::kMax}, {})));
}

// A random sampler draws a choice's values unevenly, so groups differ in size with no
// failure at all: how often a group ran must not rank it (a new user's check: lr=3 at
// loss 10.05 drawn 12 times was `best` over lr=1e-05 at 1.63 drawn 6 times). A pruned
// trial or one that completed without the objective spoils its group as a failure does.
TEST(GroupTrialsTest, UnevenDrawsRankByMeanAndOnlyFailuresPruningOrNoObjectiveDemote) {
  std::vector<TrialRecord> trials;
  auto add = [&](double lr, TrialState state, std::optional<double> loss) {
    trials.push_back(MakeTrial(static_cast<int>(trials.size()), state, loss, Json{{"lr", lr}}));
  };
  for (int k = 0; k < 12; ++k) add(3.0, TrialState::kCompleted, 10 + 0.01 * k);
  for (int k = 0; k < 6; ++k) add(1e-5, TrialState::kCompleted, 1.6 + 0.01 * k);
  add(1e-5, TrialState::kRunning, std::nullopt);  // not ended: spoils nothing
  add(0.1, TrialState::kCompleted, 0.5);
  add(0.1, TrialState::kPruned, 0.4);
  add(0.01, TrialState::kCompleted, 0.6);
  add(0.01, TrialState::kCompleted, std::nullopt);  // completed without the objective
  const auto groups = report::GroupTrials(trials, MetricSpec{"loss", Mode::kMin}, {});
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].params, (Json{{"lr", 1e-5}}));
  EXPECT_EQ(groups[1].params, (Json{{"lr", 3.0}}));
  EXPECT_EQ(groups[2].params, (Json{{"lr", 0.1}}));   // 0.5, better, but one run was pruned
  EXPECT_EQ(groups[3].params, (Json{{"lr", 0.01}}));
  EXPECT_EQ(groups[2].spoiled, 1);
}

TEST(GroupTrialsTest, BestIsTheBestMeanNotTheLuckiestRun) {
  const auto trials = SeedSweep();
  const auto best = FormatBest(trials, MakeContext());
  ASSERT_TRUE(best);
  EXPECT_THAT(*best, HasSubstr("val_acc = 0.82 ± 0.02 (n=3) (max)"));
  EXPECT_THAT(*best, HasSubstr("Runs       #0 0.8, #1 0.82, #2 0.84\n"));
  EXPECT_THAT(*best, HasSubstr("  lr = 0.1\n"));
  EXPECT_THAT(*best, Not(HasSubstr("seed =")));
  EXPECT_THAT(*best, HasSubstr("/runs/fmnist-cnn/trials/0002 (its best run, #2;"));
  GroupingOptions single;
  single.single = true;
  EXPECT_THAT(*FormatBest(trials, MakeContext(), single), HasSubstr("Best trial #6"));
}

TEST(GroupTrialsTest, GridRepeatsGroupWithoutASeedParam) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 4; ++k) {
    trials.push_back(MakeTrial(k, TrialState::kCompleted, 0.5 + 0.1 * k, Json{{"a", k % 2}}));
    trials.back().repeat = k / 2;
  }
  const std::string out = FormatGroups(trials, MakeContext(200));
  EXPECT_THAT(out, HasSubstr("2 groups of trials with the same params, ignoring the repeat index"));
  EXPECT_THAT(out, HasSubstr("0.7 ± 0.141421 (n=2)"));  // a=1: 0.6 and 0.8
  EXPECT_THAT(out, HasSubstr("#1 #3"));
  EXPECT_THAT(FormatStatus(trials, MakeContext(200)), HasSubstr("REPEAT"));
}

// The status header and the end-of-run summary speak of groups too: the lucky 0.99 and
// 0.95 runs are not "Best".
TEST(GroupTrialsTest, StatusBestAndRunSummaryRankGroupsNotLuckyRuns) {
  const auto trials = SeedSweep();
  const std::string status = FormatStatus(trials, MakeContext(200));
  EXPECT_THAT(status, HasSubstr("Best       val_acc=0.82 ± 0.02 (n=3) (max), mean of trials #0 "
                                "#1 #2 with the same params"));
  EXPECT_THAT(status, Not(HasSubstr("trial #6")));
  const std::string summary = FormatSummary(trials, MakeContext(200), 2);
  EXPECT_THAT(summary, HasSubstr("Top 2 of 3 groups of trials with the same params (repeats, "
                                 "seeds) by mean val_acc (max):"));
  EXPECT_THAT(summary, HasSubstr("0.82 ± 0.02 (n=3)"));
  EXPECT_THAT(summary, HasSubstr("0.786667 ± 0.141539 (n=3)"));
  EXPECT_THAT(summary, Not(HasSubstr("0.99")));
  // Without repeats: single trials, as before.
  const std::vector<TrialRecord> once(trials.begin(), trials.begin() + 1);
  EXPECT_THAT(FormatStatus(once, MakeContext(200)), HasSubstr("val_acc=0.8 (max) trial #0"));
}

// In a NAS search equal params are RACOS proposing a setting again, not repeats: the
// best is the best evaluation (the retrain, in a real search), never a group's mean.
TEST(GroupTrialsTest, NasExperimentsRankSingleEvaluations) {
  auto trials = SeedSweep();
  trials[6].params["nas_stage"] = "retrain";  // the result (nas_result_test.cc)
  ReportContext ctx = MakeContext(200);
  ctx.nas = true;
  EXPECT_THAT(FormatStatus(trials, ctx), HasSubstr("val_acc=0.99 (max) trial #6"));
  EXPECT_THAT(FormatSummary(trials, ctx, 2), Not(HasSubstr("groups of trials")));
  const auto best = FormatBest(trials, ctx);
  ASSERT_TRUE(best);
  EXPECT_THAT(*best, HasSubstr("trial #6, the retrain"));
}

}  // namespace
}  // namespace gpusweep
