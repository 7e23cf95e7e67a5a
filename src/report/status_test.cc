// FormatStatus, FormatBest, FormatNoBest and FormatSummary.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::CodePoints;
using testing::MakeContext;
using testing::MakeTrial;
using testing::SplitLines;
using testing::StripAnsi;

std::vector<TrialRecord> SampleTrials() {
  const Json long_params = Json::parse(
      R"({"lr":0.0031622776601683794,"optimizer":"adamw-with-a-long-name",
          "net":{"bn":true,"activation":["relu","gelu"],"widths":[64,128,256,512]}})");
  std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.8712, long_params),
      MakeTrial(1, TrialState::kFailed, std::nullopt, long_params),
      MakeTrial(2, TrialState::kRunning, std::nullopt, long_params),
      MakeTrial(3, TrialState::kInterrupted, std::nullopt, long_params),
      MakeTrial(4, TrialState::kCompleted, 0.91, long_params),
  };
  trials[0].gpus = {0, 1};
  trials[2].gpus = {3};
  return trials;
}

TEST(ReportStatusTest, HeaderCountsAndEveryTrial) {
  const std::string out = FormatStatus(SampleTrials(), MakeContext(200));
  EXPECT_THAT(out, HasSubstr("fmnist-cnn"));
  EXPECT_THAT(out, HasSubstr("/runs/fmnist-cnn"));
  EXPECT_THAT(out, HasSubstr("16 planned: 2 completed, 1 running, 1 failed, 1 interrupted, "
                             "11 queued"));
  EXPECT_THAT(out, HasSubstr("val_acc=0.91 (max) trial #4"));
  const auto lines = SplitLines(out);
  for (int number = 0; number < 5; ++number) {
    const std::string prefix = "    " + std::to_string(number) + "  ";
    const int rows = std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.rfind(prefix, 0) == 0;
    });
    EXPECT_EQ(rows, 1) << "trial " << number << "\n" << out;
  }
  EXPECT_THAT(out, HasSubstr("0,1"));
  EXPECT_THAT(out, HasSubstr("cpu"));
  EXPECT_THAT(out, HasSubstr("1m23s"));
  EXPECT_THAT(out, HasSubstr("0.8712"));
  EXPECT_THAT(out, HasSubstr("net.bn=true"));
  EXPECT_THAT(out, HasSubstr(R"(net.activation=["relu","gelu"])"));
}

TEST(ReportStatusTest, RunningTrialDurationUsesNow) {
  std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kRunning, std::nullopt)};
  ReportContext ctx = MakeContext();
  ctx.now = trials[0].start_time + 125;
  EXPECT_THAT(FormatStatus(trials, ctx), HasSubstr("2m05s"));
}

TEST(ReportStatusTest, EveryLineFitsWidth) {
  for (int width : {40, 80}) {
    for (ColorMode color : {ColorMode::kNever, ColorMode::kAlways}) {
      ReportContext ctx = MakeContext(width);
      ctx.color = color;
      ctx.experiment_dir = "/home/someone/experiments/ünïcödé/runs/fmnist-cnn-with-long-name";
      const std::string out = FormatStatus(SampleTrials(), ctx);
      bool elided = false;
      for (const std::string& line : SplitLines(StripAnsi(out))) {
        EXPECT_LE(CodePoints(line), width) << line;
        elided |= line.find("…") != std::string::npos;
      }
      EXPECT_TRUE(elided);
      // Narrow terminals hide GPUS/DURATION rather than the objective, and wrap counts.
      EXPECT_THAT(StripAnsi(out), HasSubstr("OBJECTIVE"));
      EXPECT_THAT(StripAnsi(out), HasSubstr("0.8712"));
      EXPECT_THAT(out, HasSubstr("11 queued"));
    }
  }
}

TEST(ReportStatusTest, ColourOnlyWhenAsked) {
  ReportContext ctx = MakeContext();
  EXPECT_THAT(FormatStatus(SampleTrials(), ctx), Not(HasSubstr("\x1b[")));
  ctx.color = ColorMode::kAlways;
  const std::string out = FormatStatus(SampleTrials(), ctx);
  EXPECT_THAT(out, HasSubstr("\x1b[32mcompleted\x1b[0m"));
  EXPECT_THAT(out, HasSubstr("\x1b[31mfailed\x1b[0m"));
  EXPECT_THAT(out, HasSubstr("\x1b[33mrunning\x1b[0m"));
  EXPECT_THAT(out, HasSubstr("\x1b[33minterrupted\x1b[0m"));
}

TEST(ReportBestTest, BestTrialWithParamsAndDirectory) {
  const auto out = FormatBest(SampleTrials(), MakeContext());
  ASSERT_TRUE(out);
  EXPECT_THAT(*out, HasSubstr("#4"));
  EXPECT_THAT(*out, HasSubstr("val_acc = 0.91 (max)"));
  EXPECT_THAT(*out, HasSubstr("  lr = 0.0031622776601683794\n"));
  EXPECT_THAT(*out, HasSubstr("  optimizer = adamw-with-a-long-name\n"));
  EXPECT_THAT(*out, HasSubstr(R"(  net = {"bn":true,"activation":["relu","gelu"])"));
  EXPECT_THAT(*out, HasSubstr("/runs/fmnist-cnn/trials/0004\n"));
}

TEST(ReportBestTest, MinModePicksLowest) {
  const auto out = FormatBest(SampleTrials(), MakeContext(100, Mode::kMin));
  ASSERT_TRUE(out);
  EXPECT_THAT(*out, HasSubstr("#0"));
  EXPECT_THAT(*out, HasSubstr("(min)"));
}

TEST(ReportBestTest, NoCompletedTrial) {
  const std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kFailed, 0.99),
                                           MakeTrial(1, TrialState::kRunning, std::nullopt)};
  EXPECT_FALSE(FormatBest(trials, MakeContext()));
  EXPECT_FALSE(FormatBest({}, MakeContext()));
  const std::string message = FormatNoBest(trials, MakeContext());
  EXPECT_THAT(message, HasSubstr("No completed trial"));
  EXPECT_THAT(message, HasSubstr("1 failed, 0 pruned, 1 running, 14 queued"));
}

TEST(ReportSummaryTest, TopTrialsRankedAndLimited) {
  std::vector<TrialRecord> trials = SampleTrials();
  trials.push_back(MakeTrial(5, TrialState::kCompleted, 0.95));
  const std::string out = FormatSummary(trials, MakeContext(200), /*limit=*/2);
  EXPECT_THAT(out, HasSubstr("Top 2 of 3 by val_acc (max)"));
  const auto lines = SplitLines(out);
  auto row_of = [&](const std::string& prefix) {
    return std::find_if(lines.begin(), lines.end(),
                        [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  };
  ASSERT_NE(row_of("   1      5  "), lines.end()) << out;
  ASSERT_NE(row_of("   2      4  "), lines.end()) << out;
  EXPECT_EQ(row_of("   3  "), lines.end()) << out;
  EXPECT_THAT(out, HasSubstr("Results in /runs/fmnist-cnn"));
  EXPECT_THAT(out, HasSubstr("`gpusweep best /runs/fmnist-cnn`"));
  EXPECT_THAT(out, HasSubstr("3 completed"));
}

TEST(ReportSummaryTest, WithoutACompletedTrialPointsAtWhy) {
  std::vector<TrialRecord> trials{MakeTrial(0, TrialState::kFailed, std::nullopt),
                                  MakeTrial(1, TrialState::kFailed, std::nullopt)};
  const std::string out = FormatSummary(trials, MakeContext(100), 10);
  EXPECT_THAT(out, HasSubstr("No trial completed with val_acc."));
  EXPECT_THAT(out, HasSubstr("See why with `gpusweep status /runs/fmnist-cnn`"));
  EXPECT_THAT(out, Not(HasSubstr("gpusweep best")));
}

TEST(ReportSummaryTest, TableFitsWidth) {
  const std::string out = FormatSummary(SampleTrials(), MakeContext(40), 0);
  for (const std::string& line : SplitLines(out)) {
    if (line.rfind("Results in", 0) != 0 && line.rfind("See `gpusweep", 0) != 0) {
      EXPECT_LE(CodePoints(line), 40) << line;
    }
  }
}

}  // namespace
}  // namespace gpusweep
