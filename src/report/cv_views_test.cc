// status, best, the summary and the exports of a cross-validated experiment.
#include "report/cv_views.h"

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

// 3 folds. Configuration 0 (lr 0.1): 0.80, 0.82, 0.84. Configuration 1 (lr 0.2): one
// lucky fold 0.95, then 0.70, 0.71. Configuration 2 (lr 0.3): 0.99, then a failed fold
// and one still running.
std::vector<TrialRecord> CvSweep() {
  std::vector<TrialRecord> trials;
  auto add = [&](double lr, TrialState state, std::optional<double> value) {
    const int number = static_cast<int>(trials.size());
    trials.push_back(MakeTrial(number, state, value, Json{{"lr", lr}, {"epochs", 3}}));
    if (state == TrialState::kFailed) trials.back().failure_reason = "exit code 1";
  };
  add(0.1, TrialState::kCompleted, 0.80); add(0.1, TrialState::kCompleted, 0.82);
  add(0.1, TrialState::kCompleted, 0.84);
  add(0.2, TrialState::kCompleted, 0.95); add(0.2, TrialState::kCompleted, 0.70);
  add(0.2, TrialState::kCompleted, 0.71);
  add(0.3, TrialState::kCompleted, 0.99); add(0.3, TrialState::kFailed, std::nullopt);
  add(0.3, TrialState::kRunning, std::nullopt);
  return trials;
}

ReportContext CvContext(int allowed_failures = 0) {
  ReportContext ctx = MakeContext(120);
  ctx.cv = CvConfig{3, allowed_failures, 1};
  ctx.total_trials = 12;
  return ctx;
}

TEST(CvViewsTest, BestNamesTheConfigurationWithTheBestMeanNotTheLuckiestFold) {
  const auto trials = CvSweep();
  auto best = FormatBest(trials, CvContext());
  ASSERT_TRUE(best);
  EXPECT_THAT(*best, HasSubstr("Best configuration 0 of fmnist-cnn (2 of 3 recorded "
                               "configurations completed, 3-fold cross-validation)"));
  EXPECT_THAT(*best, HasSubstr("val_acc = 0.82 ± 0.02 (n=3) (max), mean ± std over its folds"));
  EXPECT_THAT(*best, HasSubstr("Folds      0: 0.8, 1: 0.82, 2: 0.84"));
  EXPECT_THAT(*best, HasSubstr("lr = 0.1"));
  EXPECT_THAT(*best, HasSubstr("/runs/fmnist-cnn/trials/0000 .. 0002 (trials 0..2, one per fold)"));
  // --single still ranks single trials: the lucky 0.99.
  auto single = FormatBest(trials, CvContext(), GroupingOptions{{}, true});
  EXPECT_THAT(*single, HasSubstr("Best trial #6"));
}

TEST(CvViewsTest, NoBestUntilAConfigurationCompletesAllItsFolds) {
  std::vector<TrialRecord> trials = CvSweep();
  trials.resize(2);  // configuration 0 has a fold still to run
  EXPECT_FALSE(FormatBest(trials, CvContext()));
  EXPECT_THAT(FormatNoBest(trials, CvContext()),
              HasSubstr("No configuration of fmnist-cnn has completed its 3 folds with val_acc "
                        "yet"));
}

TEST(CvViewsTest, StatusShowsConfigurationsWithTheirFoldsUnderThem) {
  ReportContext wide = CvContext();
  wide.width = 0;  // unlimited: no column dropped
  const std::string status = testing::StripAnsi(FormatStatus(CvSweep(), wide));
  EXPECT_THAT(status, HasSubstr("3-fold cross-validation: 3 configurations recorded, 2 completed, "
                                "1 failed,"));
  EXPECT_THAT(status, HasSubstr("Best       val_acc = 0.82 ± 0.02 (n=3) (max) configuration 0"));
  EXPECT_THAT(status, HasSubstr("fold 1 failed (exit code 1); cv.allow_failed_folds is 0"));
  EXPECT_THAT(status, HasSubstr("0.786667 ± 0.141539 (n=3)"));  // configuration 1
  // A configuration row, then its folds.
  const auto config2 = status.find("\n     2   all");
  ASSERT_NE(config2, std::string::npos) << status;
  EXPECT_THAT(status.substr(config2), HasSubstr("\n           0      6  completed"));
  EXPECT_THAT(status.substr(config2), HasSubstr("\n           2      8  running"));
}

TEST(CvViewsTest, AllowedFailuresAndQueuedFolds) {
  std::vector<TrialRecord> trials = CvSweep();
  trials[8].state = TrialState::kCompleted;
  trials[8].objective = 0.97;
  trials.resize(10);  // configuration 3: fold 0 done, folds 1 and 2 queued
  trials[9] = MakeTrial(9, TrialState::kCompleted, 0.5, Json{{"lr", 0.4}, {"epochs", 3}});
  const std::string status = testing::StripAnsi(FormatStatus(trials, CvContext(1)));
  EXPECT_THAT(status, HasSubstr("0.98 ± 0.0141421 (n=2)"));  // the failed fold is allowed
  EXPECT_THAT(status, HasSubstr("queued"));
  auto best = FormatBest(trials, CvContext(1));
  EXPECT_THAT(*best, HasSubstr("Best configuration 2 "));
  StatusOptions completed_only;
  completed_only.state = TrialState::kCompleted;
  EXPECT_THAT(FormatStatus(trials, CvContext(1), completed_only),
              HasSubstr("3 of 4 recorded configurations"));
}

TEST(CvViewsTest, ProgressLineShowsTheBestConfigurationsMean) {
  const ReportContext ctx = CvContext();
  const Progress progress = ComputeProgress(CvSweep(), ctx, 2, 1000);
  EXPECT_EQ(progress.best_configuration, 0);
  EXPECT_FALSE(progress.best_trial);
  EXPECT_THAT(FormatProgressLine(progress, ctx), HasSubstr("best val_acc=0.82 (config 0)"));
}

TEST(CvViewsTest, SummaryRanksConfigurations) {
  const std::string summary = FormatSummary(CvSweep(), CvContext(), 5);
  EXPECT_THAT(summary, HasSubstr("Top 2 of 2 configurations by the mean val_acc over 3 folds (max)"));
  EXPECT_THAT(summary, HasSubstr("0..2"));
  EXPECT_THAT(summary, Not(HasSubstr("0.99")));
}

TEST(CvViewsTest, ShowOfAFoldNamesItsConfigurationMeanAndSiblingFolds) {
  const auto trials = CvSweep();
  ReportContext ctx = CvContext();
  ctx.width = 0;
  const std::string out = testing::StripAnsi(FormatTrial(trials[4], {}, "", ctx, {}, trials));
  EXPECT_THAT(out, HasSubstr("Fold       1 of 3 (0..2) of configuration 1 (trials 3..5)\n"));
  EXPECT_THAT(out, HasSubstr("Config     completed, val_acc = 0.786667 ± 0.141539 (n=3) over its "
                             "folds\n"));
  EXPECT_THAT(out, HasSubstr("Folds of configuration 1:\n"));
  EXPECT_THAT(out, HasSubstr("   0      3  completed       0.95"));
  EXPECT_THAT(out, HasSubstr("   1      4  completed        0.7  <- this trial"));
  EXPECT_THAT(out, Not(HasSubstr("     6  ")));  // another configuration's fold
  // A failed configuration says why; a fold still to run is queued.
  std::vector<TrialRecord> partial(trials.begin(), trials.begin() + 8);
  const std::string failed = testing::StripAnsi(FormatTrial(partial[6], {}, "", ctx, {}, partial));
  EXPECT_THAT(failed, HasSubstr("Config     failed, val_acc = 0.99 ± 0 (n=1) over its folds; fold "
                                "1 failed (exit code 1); cv.allow_failed_folds is 0"));
  EXPECT_THAT(failed, HasSubstr("   2      8  queued"));
  // A fold never run because its configuration had failed says so.
  std::vector<TrialRecord> skipped = partial;
  skipped.push_back(MakeTrial(8, TrialState::kPruned, std::nullopt, trials[8].params));
  skipped.back().failure_reason = "not run: configuration 2 failed (fold 1: exit code 1; ...)";
  const std::string not_run = FormatTrial(skipped.back(), {}, "", ctx, {}, skipped);
  EXPECT_THAT(not_run, HasSubstr("\nNot run    configuration 2 failed (fold 1: exit code 1; ...)\n"));
  EXPECT_THAT(not_run, Not(HasSubstr("Stopped")));
  // Without cv, show is as before.
  EXPECT_THAT(FormatTrial(trials[4], {}, "", MakeContext(), {}, trials), Not(HasSubstr("Fold ")));
}

TEST(CvViewsTest, ExportsCarryConfigurationFoldAndTheConfigurationsMean) {
  const auto trials = CvSweep();
  const std::string csv = ExportCsv(trials, CvContext().cv);
  EXPECT_THAT(csv, HasSubstr("trial,configuration,fold,state,attempt,repeat,objective,cv_state,"
                             "cv_mean,cv_std,"));
  EXPECT_THAT(csv, HasSubstr("\r\n2,0,2,completed,1,0,0.84,completed,0.8"));
  EXPECT_THAT(csv, HasSubstr("\r\n7,2,1,failed,1,0,,failed,0.99,0"));
  const Json json = Json::parse(ExportJson(trials, CvContext().cv));
  EXPECT_EQ(json[4]["configuration"], 1);
  EXPECT_EQ(json[4]["fold"], 1);
  EXPECT_NEAR(json[4]["cv_mean"].get<double>(), 0.786667, 1e-6);
  // Without cv the exports are as before.
  EXPECT_THAT(ExportCsv(trials), HasSubstr("trial,state,attempt"));
}

}  // namespace
}  // namespace gpusweep
