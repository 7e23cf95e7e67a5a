// A NAS experiment's result (FindNasResult) in best, status, the summary and progress.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/nas_result.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::MakeContext;
using testing::MakeTrial;

Json Stage(const std::string& stage, int block, int round = 0) {
  return Json{{"nas_stage", stage}, {"nas_block", block}, {"nas_round", round},
              {"nas_code", Json::array({0, 1})}};
}

// Two blocks: block 1's round 3 evaluation on little data scored highest of all.
std::vector<TrialRecord> TwoBlockSearch(bool retrained, bool block2_confirmed) {
  std::vector<TrialRecord> trials;
  auto add = [&](Json params, std::optional<double> value,
                 TrialState state = TrialState::kCompleted) {
    trials.push_back(MakeTrial(static_cast<int>(trials.size()), state, value, std::move(params)));
  };
  add(Stage("round", 1, 1), 0.40);
  add(Stage("round", 1, 3), 0.97);  // the lucky search evaluation
  add(Stage("winner", 1), 0.60);
  add(Stage("confirm", 1), 0.70);
  add(Stage("round", 2, 1), 0.50);
  if (block2_confirmed) add(Stage("confirm", 2), 0.80);
  if (retrained) add(Stage("retrain", 2), 0.89);
  return trials;
}

ReportContext NasContext() {
  ReportContext ctx = MakeContext(200);
  ctx.nas = true;
  return ctx;
}

TEST(NasResultTest, TheRetrainIsTheResultWhateverASearchEvaluationScored) {
  const auto trials = TwoBlockSearch(true, true);
  const auto result = FindNasResult(trials);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->trial->number, 6);
  EXPECT_TRUE(result->retrain);
  EXPECT_EQ(NasResultStage(*result), "retrain");

  const auto best = FormatBest(trials, NasContext());
  ASSERT_TRUE(best);
  EXPECT_THAT(*best, HasSubstr("Result of fmnist-cnn: trial #6, the retrain"));
  EXPECT_THAT(*best, HasSubstr("val_acc = 0.89 (max)"));
  EXPECT_THAT(*best, HasSubstr("/runs/fmnist-cnn/trials/"));
  EXPECT_THAT(FormatStatus(trials, NasContext()),
              HasSubstr("Best       val_acc=0.89 (max) trial #6, retrain"));
  const std::string summary = FormatSummary(trials, NasContext(), 3);
  EXPECT_THAT(summary, HasSubstr("Result: val_acc=0.89 (max) trial #6, retrain"));
  EXPECT_THAT(summary, HasSubstr("Top 3 of 7 evaluations of every stage by val_acc (max)"));
  EXPECT_THAT(summary, HasSubstr("block 1 round 3"));  // each row names its stage
  const std::string line = FormatProgressLine(ComputeProgress(trials, NasContext(), 1, 0),
                                              NasContext());
  EXPECT_THAT(line, HasSubstr("result val_acc=0.89 (#6, retrain)"));

  // A sweep still ranks by score: the same records without ctx.nas name trial 1, as
  // `best --single` does in a NAS search.
  EXPECT_THAT(*FormatBest(trials, MakeContext(200)), HasSubstr("Best trial #1"));
  EXPECT_THAT(*FormatBest(trials, NasContext(), GroupingOptions{{"seed"}, true}),
              HasSubstr("Best trial #1"));
}

TEST(NasResultTest, BeforeTheRetrainTheLatestConfirmedBlock) {
  const auto trials = TwoBlockSearch(false, true);
  const auto result = FindNasResult(trials);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->trial->number, 5);  // block 2's confirm, though block 1's scored less
  EXPECT_EQ(result->block, 2);
  EXPECT_THAT(*FormatBest(trials, NasContext()),
              HasSubstr("Result of fmnist-cnn so far: trial #5, the confirm of block 2"));
  EXPECT_THAT(FormatStatus(trials, NasContext()),
              HasSubstr("trial #5, confirm of block 2, the retrain has not completed"));

  // A failed retrain leaves the latest confirm as the result.
  auto failed = TwoBlockSearch(false, true);
  failed.push_back(MakeTrial(6, TrialState::kFailed, std::nullopt, Stage("retrain", 2)));
  EXPECT_EQ(FindNasResult(failed)->trial->number, 5);
}

TEST(NasResultTest, NoResultBeforeTheFirstConfirm) {
  auto trials = TwoBlockSearch(false, false);
  trials.resize(3);  // block 1's rounds and winner refinement only
  EXPECT_FALSE(FindNasResult(trials));
  EXPECT_FALSE(FormatBest(trials, NasContext()));
  EXPECT_THAT(FormatNoBest(trials, NasContext()), HasSubstr("No block of fmnist-cnn is confirmed yet"));
  EXPECT_THAT(FormatStatus(trials, NasContext()), HasSubstr("- (no block confirmed yet)"));
  EXPECT_THAT(FormatStatus(trials, NasContext()), Not(HasSubstr("trial #1")));
}

TEST(NasResultTest, StageLabels) {
  EXPECT_EQ(report::NasStageLabel(Stage("round", 1, 3)), "block 1 round 3");
  EXPECT_EQ(report::NasStageLabel(Stage("winner", 2)), "block 2 winner");
  EXPECT_EQ(report::NasStageLabel(Stage("retrain", 2)), "retrain");
  EXPECT_EQ(report::NasStageLabel(Json{{"lr", 0.1}}), "");
}

}  // namespace
}  // namespace gpusweep
