#include "cli/terminal.h"

#include <pty.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "cli/terminal_observer.h"

namespace gpusweep {
namespace {

// A pseudo-terminal of the given width, opened as a FILE* on its child side.
class PseudoTerminal {
 public:
  explicit PseudoTerminal(unsigned short columns) {
    winsize size{};
    size.ws_col = columns;
    size.ws_row = 24;
    EXPECT_EQ(::openpty(&parent_, &child_, nullptr, nullptr, &size), 0);
    stream_ = ::fdopen(child_, "w");
  }
  ~PseudoTerminal() {
    if (stream_) std::fclose(stream_);
    ::close(parent_);
  }
  std::FILE* stream() const { return stream_; }

 private:
  int parent_ = -1, child_ = -1;
  std::FILE* stream_ = nullptr;
};

class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvGuard() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(InspectTerminalTest, TerminalWidthAndColour) {
  EnvGuard columns("COLUMNS", nullptr);
  EnvGuard no_color("NO_COLOR", nullptr);
  PseudoTerminal tty(57);
  TerminalInfo info = InspectTerminal(tty.stream());
  EXPECT_TRUE(info.is_tty);
  EXPECT_EQ(info.width, 57);
  EXPECT_EQ(info.color, ColorMode::kAlways);
}

TEST(InspectTerminalTest, NoColorTurnsColourOff) {
  EnvGuard no_color("NO_COLOR", "1");
  PseudoTerminal tty(80);
  EXPECT_EQ(InspectTerminal(tty.stream()).color, ColorMode::kNever);
}

TEST(InspectTerminalTest, FileIsNotATerminal) {
  EnvGuard columns("COLUMNS", nullptr);
  std::FILE* file = std::tmpfile();
  TerminalInfo info = InspectTerminal(file);
  EXPECT_FALSE(info.is_tty);
  EXPECT_EQ(info.color, ColorMode::kNever);
  std::fclose(file);
}

TEST(ControlsVisibleTest, EveryControlButNewlineAndTabIsWrittenVisibly) {
  EXPECT_EQ(ControlsVisible("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(ControlsVisible("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(ControlsVisible("10%\r50%"), "10%\\r50%");
  EXPECT_EQ(ControlsVisible(std::string("a\0b\x7f", 4)), "a\\x00b\\x7f");
  EXPECT_EQ(ControlsVisible("\xc2\x9b" "2J"), "\\u009b2J");  // C1 CSI
  EXPECT_EQ(ControlsVisible("caf\xc3\xa9 \xc2\xa0\xe2\x9c\x93"),
            "caf\xc3\xa9 \xc2\xa0\xe2\x9c\x93");  // other UTF-8 untouched
}

std::string Contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  return text;
}

TrialRecord Finished(int number, double objective) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::kCompleted;
  t.objective = objective;
  t.start_time = 100;
  t.end_time = 130;
  return t;
}

TEST(TerminalObserverTest, FirstLineSaysWhereTrialsRunOnAClusterInsteadOfLocalGpus) {
  std::FILE* out = std::tmpfile();
  ReportContext context;
  context.experiment_name = "e";
  TerminalObserver observer(out, TerminalInfo{false, 80, ColorMode::kNever}, context,
                            [] { return 100.0; });
  RunInfo info;
  info.experiment_dir = "runs/e";
  info.total_trials = 20;
  info.to_run = 20;
  info.gpus = {0, 1, 2, 3};  // the loop's count of jobs' GPUs, not devices of this machine
  info.placement = "SLURM (partition gpu, gres gpu:1 per trial, at most 4 jobs at once)";
  observer.OnStart(info);
  observer.Close();
  const std::string text = Contents(out);
  EXPECT_NE(text.find("20 to run on SLURM (partition gpu, gres gpu:1 per trial, at most 4 jobs "
                      "at once)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("GPUs 0,1,2,3"), std::string::npos) << text;
}

// With several objectives and a constraint, a finished trial's line gives each objective
// and whether it is feasible, not the primary objective alone.
TEST(TerminalObserverTest, FinishedTrialLineGivesEveryObjectiveAndFeasibility) {
  std::FILE* out = std::tmpfile();
  ReportContext context;
  context.experiment_name = "mo";
  context.metric = MetricSpec{"acc", Mode::kMax};
  context.pareto = Objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  TerminalObserver observer(out, TerminalInfo{false, 80, ColorMode::kNever}, context, [] { return 100.0; });
  TrialRecord feasible = Finished(0, 0.9);
  feasible.last_metrics = Json{{"acc", 0.9}, {"size", 3}, {"ms", 4}};
  TrialRecord infeasible = Finished(1, 0.8);
  infeasible.last_metrics = Json{{"acc", 0.8}, {"ms", 12.5}};
  observer.OnTrialFinished(feasible);
  observer.OnTrialFinished(infeasible);
  observer.Close();
  const std::string text = Contents(out);
  EXPECT_NE(text.find("trial 0 completed in 30s: acc=0.9, size=3, feasible\n"), std::string::npos) << text;
  EXPECT_NE(text.find("trial 1 completed in 30s: acc=0.8, size=-, infeasible +2.5\n"), std::string::npos)
      << text;
}

// A constraint whose metric a completed trial did not report is warned about at once,
// once per metric, not left to the summary after the sweep.
TEST(TerminalObserverTest, AConstraintMetricNeverReportedIsWarnedAboutOnce) {
  std::FILE* out = std::tmpfile();
  ReportContext context;
  context.experiment_name = "mo";
  context.metric = MetricSpec{"acc", Mode::kMax};
  context.pareto = Objective(MetricSpec{"acc", Mode::kMax}, {{"latncy", std::nullopt, 10.0}});
  TerminalObserver observer(out, TerminalInfo{false, 80, ColorMode::kNever}, context, [] { return 100.0; });
  for (int k = 0; k < 3; ++k) {
    TrialRecord t = Finished(k, 0.9);
    t.last_metrics = Json{{"acc", 0.9}, {"latency", 4}};
    observer.OnTrialFinished(t);
  }
  observer.Close();
  const std::string text = Contents(out);
  const std::string warning = "warning: trial 0 completed without a number for 'latncy', the metric of a "
                              "constraint, so it counts as infeasible; it reported acc, latency (did you "
                              "mean 'latency'? a misspelt name makes every trial infeasible)";
  EXPECT_NE(text.find(warning), std::string::npos) << text;
  EXPECT_EQ(text.find("completed without a number", text.find(warning) + warning.size()), std::string::npos)
      << text;
}

TEST(TerminalObserverTest, LiveLineIsRedrawnInPlaceAndFitsTheWidth) {
  std::FILE* out = std::tmpfile();
  double now = 100;
  ReportContext context;
  context.experiment_name = "a-rather-long-experiment-name";
  context.metric = MetricSpec{"val_acc", Mode::kMax};
  TerminalObserver observer(out, TerminalInfo{true, 40, ColorMode::kNever}, context,
                            [&] { return now; });
  RunInfo info;
  info.total_trials = 10;
  info.to_run = 10;
  info.cpu_slots = 2;
  info.concurrency = 2;
  observer.OnStart(info);
  now = 131;
  observer.OnTick({Finished(0, 0.87)});
  observer.OnTrialFinished(Finished(0, 0.87));
  observer.Close();
  const std::string text = Contents(out);
  EXPECT_NE(text.find("trial 0 completed in 30s: val_acc=0.87\n"), std::string::npos) << text;
  // Every redraw starts at column 0 with the line erased, and the live line (the text
  // not ended by a newline) never reaches the last column: 39 code points at most.
  std::size_t pos = 0;
  int redraws = 0;
  while ((pos = text.find("\r\x1b[K", pos)) != std::string::npos) {
    pos += 4;
    const std::size_t end = std::min(text.find_first_of("\r\n", pos), text.size());
    if (end < text.size() && text[end] == '\n') continue;  // an event line, printed above
    const std::string line = text.substr(pos, end - pos);
    const auto code_points = std::count_if(line.begin(), line.end(),
                                           [](char c) { return (c & 0xC0) != 0x80; });
    EXPECT_LE(code_points, 39) << line;
    if (!line.empty()) ++redraws;
  }
  EXPECT_GE(redraws, 2);
  EXPECT_NE(text.find("done 1/"), std::string::npos) << text;  // elided after that
  std::fclose(out);
}

// What the observer prints when `started` start, one after another.
std::string StartedText(const ReportContext& context, const std::vector<TrialRecord>& started) {
  std::FILE* out = std::tmpfile();
  {
    TerminalObserver observer(out, TerminalInfo{false, 160, ColorMode::kNever}, context,
                              [] { return 1000.0; });
    for (const TrialRecord& t : started) observer.OnTrialStarted(t);
  }
  std::string text = Contents(out);
  std::fclose(out);
  return text;
}

// A promotion starts the trial's next attempt; it is not reported as a retry. Under PBT
// the same record is a member's next segment, not a promotion.
TEST(TerminalObserverTest, PromotedTrialIsNamedByItsRungNotItsAttempt) {
  ReportContext context;
  context.experiment_name = "exp";
  context.scheduler = SchedulerSummary{};
  context.scheduler->resource = "epochs";
  TrialRecord promoted;
  promoted.number = 4;
  promoted.attempt = 2;
  promoted.rung = 1;
  promoted.budget = 9;
  TrialRecord resumed;  // interrupted at its first rung, started again
  resumed.number = 5;
  resumed.attempt = 2;
  resumed.budget = 3;
  const std::string text = StartedText(context, {promoted, resumed});
  EXPECT_NE(text.find("] trial 4 started on CPU up to epochs 9 (promoted to rung 1)\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("] trial 5 started on CPU up to epochs 3 (attempt 2)\n"),
            std::string::npos) << text;
  context.scheduler->type = "pbt";
  const std::string pbt = StartedText(context, {promoted});
  EXPECT_NE(pbt.find("] trial 4 started on CPU up to epochs 9 (segment 2)\n"), std::string::npos) << pbt;
}

TEST(TerminalObserverTest, PlainOutputHasTimestampsAndNoEscapes) {
  std::FILE* out = std::tmpfile();
  ReportContext context;
  context.experiment_name = "exp";
  context.metric = MetricSpec{"loss", Mode::kMin};
  TerminalObserver observer(out, TerminalInfo{false, 160, ColorMode::kNever}, context,
                            [] { return 1000.0; });
  observer.OnWarning("no GPU visible");
  TrialRecord failed = Finished(3, 0);
  failed.state = TrialState::kFailed;
  failed.objective.reset();
  failed.failure_reason = "exit code 2";
  observer.OnTrialFinished(failed);
  TrialRecord not_run = failed;  // cv: a fold of a configuration that had failed
  not_run.number = 5;
  not_run.state = TrialState::kPruned;
  not_run.failure_reason = "not run: configuration 1 failed (fold 0: exit code 2)";
  observer.OnTrialFinished(not_run);
  const std::string text = Contents(out);
  EXPECT_NE(text.find("] trial 5 not run: configuration 1 failed (fold 0: exit code 2)\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("] warning: no GPU visible\n"), std::string::npos) << text;
  EXPECT_NE(text.find("] trial 3 failed after 30s: exit code 2 (gpusweep show 3)\n"),
            std::string::npos) << text;
  std::fclose(out);
}

}  // namespace
}  // namespace gpusweep
