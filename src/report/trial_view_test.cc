// FormatTrial (`gpusweep show`).
#include <csignal>
#include <cstdlib>
#include <ctime>

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

class ReportTrialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_tz_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (saved_tz_) setenv("TZ", saved_tz_->c_str(), 1); else unsetenv("TZ");
    tzset();
  }

 private:
  std::optional<std::string> saved_tz_;
};

IntermediateResult Result(std::int64_t step, Json values, int attempt = 1) {
  IntermediateResult r;
  r.trial = 7;
  r.attempt = attempt;
  r.step = step;
  r.values = std::move(values);
  return r;
}

TEST_F(ReportTrialTest, PrunedTrialSaysWhereItWasStoppedNotItsExitCode) {
  TrialRecord t = MakeTrial(7, TrialState::kPruned, 0.61);
  t.exit_code = 0;  // it handled SIGTERM and exited cleanly
  t.budget = 27;    // iterative: the planned max_resource
  t.last_metrics = {{"epoch", 3}, {"val_acc", 0.61}};
  t.failure_reason = "pruned: rank 4 of 9 at rung 1 (epoch 3): only the top 3 continue";
  ReportContext ctx = MakeContext();
  ctx.scheduler = SchedulerSummary{"asha", "epoch", 27};
  const std::string out = FormatTrial(t, {}, "", ctx);
  EXPECT_THAT(out, HasSubstr("Stopped    at epoch 3 by asha: rank 4 of 9 at rung 1 (epoch 3): "
                             "only the top 3 continue\n"));
  EXPECT_THAT(out, HasSubstr("Budget     epoch 27 planned\n"));
  EXPECT_THAT(out, Not(HasSubstr("exit code")));
  EXPECT_THAT(out, Not(HasSubstr("Reason")));
}

TEST_F(ReportTrialTest, KilledTrialShowsSignalReasonAndLogTail) {
  TrialRecord t = MakeTrial(7, TrialState::kFailed, std::nullopt,
                            Json::parse(R"({"lr":0.1,"net":{"depth":3}})"));
  t.attempt = 2;
  t.gpus = {2, 3};
  t.start_time = 1700000000;
  t.end_time = 1700000083;
  t.term_signal = SIGSEGV;
  t.failure_reason = "killed by signal SIGSEGV";
  const std::string out =
      FormatTrial(t, {}, "epoch 3 loss 0.4\nSegmentation fault (core dumped)\n", MakeContext());
  EXPECT_THAT(out, HasSubstr("Trial #7 of fmnist-cnn"));
  EXPECT_THAT(out, HasSubstr("failed"));
  EXPECT_THAT(out, HasSubstr("Attempt    2"));
  EXPECT_THAT(out, HasSubstr("2,3"));
  EXPECT_THAT(out, HasSubstr("SIGSEGV (11)"));
  EXPECT_THAT(out, HasSubstr("Reason     killed by signal SIGSEGV"));
  EXPECT_THAT(out, HasSubstr("Started    2023-11-14T22:13:20+00:00"));
  EXPECT_THAT(out, HasSubstr("Ended      2023-11-14T22:14:43+00:00"));
  EXPECT_THAT(out, HasSubstr("Duration   1m23s"));
  EXPECT_THAT(out, HasSubstr("val_acc = -"));
  EXPECT_THAT(out, HasSubstr("  net.depth = 3\n"));  // flattened, as status names it
  EXPECT_THAT(out, HasSubstr("/runs/fmnist-cnn/trials/0007"));
  EXPECT_THAT(out, HasSubstr("Segmentation fault (core dumped)\n"));
  EXPECT_THAT(out, Not(HasSubstr("\x1b[")));
}

TEST_F(ReportTrialTest, ExitCodeAndObjective) {
  TrialRecord t = MakeTrial(1, TrialState::kCompleted, 0.912345678);
  t.exit_code = 0;
  const std::string out = FormatTrial(t, {}, "", MakeContext());
  EXPECT_THAT(out, HasSubstr("exit code 0"));
  EXPECT_THAT(out, HasSubstr("val_acc = 0.912346"));
  EXPECT_THAT(out, Not(HasSubstr("Reason")));
  EXPECT_THAT(out, HasSubstr("Last output: none"));
}

TEST_F(ReportTrialTest, IntermediateResultsTable) {
  const TrialRecord t = MakeTrial(7, TrialState::kRunning, std::nullopt);
  const std::vector<IntermediateResult> results = {
      Result(1, Json::parse(R"({"step":1,"loss":0.91234567})")),
      Result(2, Json::parse(R"({"step":2,"loss":0.5,"val_acc":0.8})")),
  };
  const std::string out = FormatTrial(t, results, "", MakeContext());
  const auto lines = SplitLines(out);
  EXPECT_THAT(lines, ::testing::Contains("STEP      loss  val_acc")) << out;
  EXPECT_THAT(lines, ::testing::Contains("   1  0.912346        -")) << out;
  EXPECT_THAT(lines, ::testing::Contains("   2       0.5      0.8")) << out;
  EXPECT_THAT(out, Not(HasSubstr("ATTEMPT")));
}

TEST_F(ReportTrialTest, AttemptColumnAndWidthWithManyKeys) {
  const TrialRecord t = MakeTrial(7, TrialState::kRunning, std::nullopt);
  Json wide = Json::object();
  for (int i = 0; i < 20; ++i) wide["metric_number_" + std::to_string(i)] = i * 0.5;
  const std::vector<IntermediateResult> results = {Result(1, wide, 1), Result(1, wide, 2)};
  ReportContext ctx = MakeContext(40);
  ctx.color = ColorMode::kAlways;
  const std::string out = FormatTrial(t, results, "", ctx);
  EXPECT_THAT(out, HasSubstr("ATTEMPT"));
  EXPECT_THAT(out, HasSubstr("\x1b[33mrunning\x1b[0m"));
  for (const std::string& line : SplitLines(out)) {
    if (line.rfind("ATTEMPT", 0) == 0 || line.rfind("      ", 0) == 0) {
      EXPECT_LE(CodePoints(line), 40) << line;
    }
  }
}

TEST_F(ReportTrialTest, KeepsOnlyTheLastResultRows) {
  const TrialRecord t = MakeTrial(7, TrialState::kRunning, std::nullopt);
  std::vector<IntermediateResult> results;
  for (int step = 0; step < 120; ++step) results.push_back(Result(step, {{"loss", 1.0}}));
  const std::string out = FormatTrial(t, results, "", MakeContext());
  EXPECT_THAT(out, HasSubstr("last 50 of 120"));
  EXPECT_THAT(out, HasSubstr("\n 119  "));
  EXPECT_THAT(out, Not(HasSubstr("\n  69  ")));
  EXPECT_THAT(out, HasSubstr("\n  70  "));
}

}  // namespace
}  // namespace gpusweep
