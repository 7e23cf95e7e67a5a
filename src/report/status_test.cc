// FormatStatus, FormatBest, FormatNoBest and FormatSummary.
#include <fmt/format.h>
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
  // Only the optimizer is the same in every trial (a constant, listed once).
  auto params = [&](int k) {
    Json p = long_params;
    if (k != 4) p["lr"] = 0.001 * (k + 1);
    p["net"]["widths"].push_back(k);
    return p;
  };
  std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 0.8712, params(0)),
      MakeTrial(1, TrialState::kFailed, std::nullopt, params(1)),
      MakeTrial(2, TrialState::kRunning, std::nullopt, params(2)),
      MakeTrial(3, TrialState::kInterrupted, std::nullopt, params(3)),
      MakeTrial(4, TrialState::kCompleted, 0.91, params(4)),
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
      if (width == 40) {
        EXPECT_TRUE(elided);  // the directory; params wrap instead
      }
      // Narrow terminals hide GPUS/DURATION rather than the objective, and wrap counts.
      EXPECT_THAT(StripAnsi(out), HasSubstr("OBJECTIVE"));
      EXPECT_THAT(StripAnsi(out), HasSubstr("0.8712"));
      EXPECT_THAT(out, HasSubstr("11 queued"));
    }
  }
}

std::vector<TrialRecord> VaryingTrials() {
  std::vector<TrialRecord> trials;
  const double values[] = {0.7, 0.9, 0.8};
  for (int k = 0; k < 3; ++k) {
    trials.push_back(MakeTrial(k, TrialState::kCompleted, values[k],
                               Json{{"lr", 0.1 * (3 - k)}, {"epochs", 4}}));
    trials.back().end_time = trials.back().start_time + 10 * (k + 1);
  }
  TrialRecord pruned = MakeTrial(3, TrialState::kPruned, 0.2, Json{{"lr", 0.5}, {"epochs", 4}});
  pruned.failure_reason = "pruned: rank 2 of 2 at rung 0 (epoch 1): only the top 1 continue";
  trials.push_back(pruned);
  TrialRecord failed = MakeTrial(4, TrialState::kFailed, std::nullopt, Json{{"lr", 0.6}, {"epochs", 4}});
  failed.failure_reason = "exit code 1: ValueError: lr too large";
  trials.push_back(failed);
  return trials;
}

// The table's rows (after the blank line under the header), trial numbers in order.
std::vector<int> RowTrials(const std::string& out) {
  std::vector<int> numbers;
  const auto lines = SplitLines(out);
  auto it = std::find(lines.begin(), lines.end(), "");
  for (it += 2; it < lines.end(); ++it) numbers.push_back(std::stoi(*it));
  return numbers;
}

TEST(ReportStatusTest, ConstantsOnceAboveTheTableAndNotesSayWhy) {
  const std::string out = FormatStatus(VaryingTrials(), MakeContext(200));
  EXPECT_THAT(out, HasSubstr("Constants  epochs=4\n"));
  EXPECT_THAT(out, Not(HasSubstr("epochs=4,")));
  const auto lines = SplitLines(out);
  const auto row3 = std::find_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.rfind("    3  ", 0) == 0; });
  ASSERT_NE(row3, lines.end()) << out;
  EXPECT_THAT(*row3, HasSubstr("rank 2 of 2 at rung 0 (epoch 1)"));
  EXPECT_THAT(*row3, HasSubstr("lr=0.5"));
  EXPECT_THAT(out, Not(HasSubstr("only the top 1")));  // `show` has the whole reason
  EXPECT_THAT(out, HasSubstr("exit code 1: ValueError: lr too large"));
}

TEST(ReportStatusTest, SortTopAndStateChooseTheRows) {
  const ReportContext ctx = MakeContext(200);
  EXPECT_EQ(RowTrials(FormatStatus(VaryingTrials(), ctx)), (std::vector<int>{0, 1, 2, 3, 4}));
  StatusOptions by_objective;
  by_objective.sort = StatusSort::kObjective;
  EXPECT_EQ(RowTrials(FormatStatus(VaryingTrials(), ctx, by_objective)),
            (std::vector<int>{1, 2, 0, 3, 4}));  // the failed trial has no value: last
  by_objective.top = 2;
  const std::string top = FormatStatus(VaryingTrials(), ctx, by_objective);
  EXPECT_EQ(RowTrials(top), (std::vector<int>{1, 2}));
  EXPECT_THAT(top, HasSubstr("Showing    2 of 5 recorded trials"));
  StatusOptions by_lr;
  by_lr.sort = StatusSort::kParam;
  by_lr.sort_param = "lr";
  EXPECT_EQ(RowTrials(FormatStatus(VaryingTrials(), ctx, by_lr)),
            (std::vector<int>{2, 1, 0, 3, 4}));
  StatusOptions longest;
  longest.sort = StatusSort::kDuration;
  EXPECT_EQ(RowTrials(FormatStatus(VaryingTrials(), ctx, longest)).front(), 3);  // 83 s
  StatusOptions pruned_only;
  pruned_only.state = TrialState::kPruned;
  EXPECT_EQ(RowTrials(FormatStatus(VaryingTrials(), ctx, pruned_only)), (std::vector<int>{3}));
}

// The cap `status` puts on an experiment read whole (schedulers, NAS): the latest rows
// by number, the best by objective, said in "Showing"; --top and a filter that leaves
// fewer rows than the cap are not "capped".
TEST(ReportStatusTest, TheCapListsTheLatestOrTheBestAndSaysSo) {
  const ReportContext ctx = MakeContext(200);
  StatusOptions capped;
  capped.cap = 3;
  const std::string latest = FormatStatus(VaryingTrials(), ctx, capped);
  EXPECT_EQ(RowTrials(latest), (std::vector<int>{2, 3, 4}));
  EXPECT_THAT(latest, HasSubstr("Showing    3 of 5 recorded trials; the latest 3; `--all` "
                                "lists every one, `--top N` the best N"));
  capped.sort = StatusSort::kObjective;
  const std::string best = FormatStatus(VaryingTrials(), ctx, capped);
  EXPECT_EQ(RowTrials(best), (std::vector<int>{1, 2, 0}));
  EXPECT_THAT(best, HasSubstr("; the best 3;"));
  capped.top = 2;
  EXPECT_THAT(FormatStatus(VaryingTrials(), ctx, capped), Not(HasSubstr("the best 3")));
  StatusOptions few;
  few.cap = 3;
  few.state = TrialState::kPruned;
  const std::string pruned = FormatStatus(VaryingTrials(), ctx, few);
  EXPECT_EQ(RowTrials(pruned), (std::vector<int>{3}));
  EXPECT_THAT(pruned, Not(HasSubstr("latest")));
}

TEST(ReportStatusTest, ParamsWrapInsteadOfHidingWhereRowsDiffer) {
  const Json a = Json::parse(R"({"optimizer":"adamw","schedule":"cosine","lr":0.1,"tail":1})");
  Json b = a;
  b["tail"] = 2;
  b["lr"] = 0.2;
  const std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kCompleted, 0.5, a),
                                           MakeTrial(1, TrialState::kCompleted, 0.6, b)};
  Json c = a;  // a third trial keeps optimizer and schedule from being constants
  c["optimizer"] = "sgd-nesterov";
  c["schedule"] = "linear-warmup-then-cosine";
  std::vector<TrialRecord> all = trials;
  all.push_back(MakeTrial(2, TrialState::kCompleted, 0.7, c));
  const std::string out = FormatStatus(all, MakeContext(80));
  for (const std::string& line : SplitLines(out)) EXPECT_LE(CodePoints(line), 80) << line;
  EXPECT_THAT(out, HasSubstr("tail=1"));
  EXPECT_THAT(out, HasSubstr("tail=2"));
  EXPECT_THAT(out, Not(HasSubstr("…\n")));
}

// Values that differ only at their end, longer than the PARAMS column: continued on the
// next line, not cut into identical-looking rows.
TEST(ReportStatusTest, LongValuesDifferingAtTheEndStayDistinct) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 3; ++k)
    trials.push_back(MakeTrial(k, TrialState::kCompleted, 0.5,
                               Json{{"lr", 0.1 * k},
                                    {"name", "a-very-long-string-value-that-differs-only-at-"
                                             "the-very-end-" + std::to_string(k)}}));
  auto squashed = [](std::string text) {  // continuation lines joined back
    std::erase_if(text, [](char c) { return c == ' ' || c == '\n'; });
    return text;
  };
  const std::string out = FormatStatus(trials, MakeContext(80));
  for (const std::string& line : SplitLines(out)) EXPECT_LE(CodePoints(line), 80) << line;
  EXPECT_THAT(out, Not(HasSubstr("…")));
  const std::string summary = FormatSummary(trials, MakeContext(80), 3);
  for (int k = 0; k < 3; ++k) {
    const std::string value = "differs-only-at-the-very-end-" + std::to_string(k);
    EXPECT_THAT(squashed(out), HasSubstr(value)) << out;
    EXPECT_THAT(squashed(summary), HasSubstr(value)) << summary;
  }
}

// An interrupted row shows the last value it reported next to its step (never a step
// alone), and its note is whole when piped (width 0), cut only on a terminal.
TEST(ReportStatusTest, InterruptedRowsShowValueWithStepAndWholeNoteWhenPiped) {
  const std::string reason = "stopped because gpusweep was interrupted by SIGINT";
  std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kInterrupted, std::nullopt),
                                     MakeTrial(1, TrialState::kInterrupted, std::nullopt)};
  trials[0].last_metrics = Json{{"epoch", 5}, {"val_acc", 0.984379}};
  trials[1].last_metrics = Json{{"epoch", 2}};  // a step, but no value of the metric
  for (TrialRecord& t : trials) t.failure_reason = reason;
  ReportContext piped = MakeContext(0);
  piped.scheduler = SchedulerSummary{"asha", "epoch", 9};
  const std::vector<std::string> lines = SplitLines(FormatStatus(trials, piped));
  auto row = [&](int number) {
    for (const std::string& line : lines)
      if (line.rfind(fmt::format("    {}  interrupted", number), 0) == 0) return line;
    return std::string();
  };
  EXPECT_THAT(row(0), HasSubstr("      5   0.984379  " + reason)) << row(0);
  EXPECT_THAT(row(1), HasSubstr("      -          -  " + reason)) << row(1);
  ReportContext terminal = piped;
  terminal.width = 200;
  EXPECT_THAT(FormatStatus(trials, terminal), HasSubstr("interrupted by SIG…"));
}

TEST(ReportStatusTest, RunningValueComesWithItsStep) {
  std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kRunning, 0.42),
                                     MakeTrial(1, TrialState::kRunning, 0.43)};
  StatusOptions options;
  options.running_steps[0] = 3;  // trial 1's value has no step: not shown
  const std::string out = FormatStatus(trials, MakeContext(200), options);
  EXPECT_THAT(out, HasSubstr("0.42 (step 3)"));
  EXPECT_THAT(out, Not(HasSubstr("0.43")));
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
  // Nested params under the names status and export use.
  EXPECT_THAT(*out, HasSubstr("  net.bn = true\n"));
  EXPECT_THAT(*out, HasSubstr(R"(  net.activation = ["relu","gelu"])"));
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

// Several objectives and a constraint: one column per objective and the Pareto rank,
// and --sort objective ranks by it.
std::vector<TrialRecord> ParetoStatusTrials() {
  auto trial = [](int number, TrialState state, Json metrics) {
    TrialRecord t = MakeTrial(number, state, std::nullopt, Json{{"lr", number}});
    if (metrics.contains("acc")) t.objective = metrics["acc"].get<double>();
    t.last_metrics = std::move(metrics);
    return t;
  };
  return {trial(0, TrialState::kCompleted, {{"acc", 0.7}, {"size", 5}, {"ms", 5}}),   // dominated by 2
          trial(1, TrialState::kCompleted, {{"acc", 0.99}, {"size", 1}, {"ms", 12}}), // infeasible
          trial(2, TrialState::kCompleted, {{"acc", 0.8}, {"size", 2}, {"ms", 5}}),   // front
          trial(3, TrialState::kFailed, Json::object()),                                // not ranked
          trial(4, TrialState::kCompleted, {{"acc", 0.9}, {"size", 10}, {"ms", 5}})}; // front
}

TEST(ReportStatusTest, SeveralObjectivesShowEachValueAndTheParetoRank) {
  ReportContext ctx = MakeContext(200);
  ctx.metric = MetricSpec{"acc", Mode::kMax};
  ctx.pareto = Objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  const std::string out = StripAnsi(FormatStatus(ParetoStatusTrials(), ctx));
  EXPECT_THAT(out, HasSubstr("Best       Pareto front of 2 trials (acc max, size min)"));
  EXPECT_THAT(out, HasSubstr("acc  size  ms  PARETO"));  // the constraint's metric too
  EXPECT_THAT(out, Not(HasSubstr("OBJECTIVE")));
  const auto lines = SplitLines(out);
  auto row = [&](int number) {
    for (const std::string& line : lines)
      if (line.rfind(fmt::format("{:>5}  ", number), 0) == 0) return line;
    return std::string();
  };
  EXPECT_THAT(row(0), HasSubstr("0.7     5   5  2 "));
  EXPECT_THAT(row(1), HasSubstr("infeasible +2"));
  EXPECT_THAT(row(2), HasSubstr("front"));
  EXPECT_THAT(row(3), HasSubstr("-     -   -  -"));
  StatusOptions ranked;
  ranked.sort = StatusSort::kObjective;
  // The front (4 before 2: equal crowding, then input order), the next front, the
  // infeasible trial, then the trial that never completed.
  EXPECT_EQ(RowTrials(FormatStatus(ParetoStatusTrials(), ctx, ranked)), (std::vector<int>{2, 4, 0, 1, 3}));
  // By one objective, best first by its own mode (size: min), the failed trial last;
  // a constraint's metric ascending.
  StatusOptions by_size;
  by_size.sort = StatusSort::kMetric;
  by_size.sort_metric = MetricSpec{"size", Mode::kMin};
  EXPECT_EQ(RowTrials(FormatStatus(ParetoStatusTrials(), ctx, by_size)), (std::vector<int>{1, 2, 0, 4, 3}));
  by_size.sort_metric = MetricSpec{"acc", Mode::kMax};
  EXPECT_EQ(RowTrials(FormatStatus(ParetoStatusTrials(), ctx, by_size)), (std::vector<int>{1, 4, 2, 0, 3}));
  by_size.sort_metric = MetricSpec{"ms", Mode::kMin};
  by_size.top = 2;
  EXPECT_EQ(RowTrials(FormatStatus(ParetoStatusTrials(), ctx, by_size)), (std::vector<int>{0, 2}));
}

}  // namespace
}  // namespace gpusweep
