// End-to-end: a trial that turns its metrics file into hostile input (a FIFO, a
// directory, a link to /dev/zero, a 200 MB line, 50,000 levels of nesting, steps
// outside int64). gpusweep must finish in bounded time and memory, with the reason
// recorded for the trial (docs/protocol.md, "Limits").
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "gpusweep/journal.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

struct BoundedRun {
  bool exited = false;
  int exit_code = -1;
  long max_rss_kib = 0;
  std::string out;
};

class HostileMetricsTest : public ::testing::Test {
 protected:
  // One trial running `script` (sh) that reports `acc`.
  void WriteSweep(const std::string& script) {
    WriteFile(dir_.path() / "trial.sh", "M=\"$GPUSWEEP_METRICS\"\n" + script);
    WriteFile(dir_.path() / "sweep.yaml", fmt::format(R"(
name: e2e
command: [/bin/sh, {}]
metric: {{name: acc, mode: max}}
sampler: {{type: grid}}
search_space:
  a: {{type: choice, values: [1]}}
resources: {{gpus: none}}
kill_grace: 1s
)", (dir_.path() / "trial.sh").string()));
  }

  // Runs gpusweep; SIGKILLs it if it has not exited within `seconds` (a hang is a
  // failure, not a stuck test).
  BoundedRun Run(const std::vector<std::string>& args, double seconds = 120) {
    const auto log = dir_.path() / "gpusweep.out";
    const pid_t pid = testing::StartGpusweep(args, dir_.path(), log);
    BoundedRun run;
    int status = 0;
    rusage usage{};
    run.exited = testing::WaitUntil(
        seconds, [&] { return wait4(pid, &status, WNOHANG, &usage) == pid; });
    if (!run.exited) {
      kill(-pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
    }
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.max_rss_kib = usage.ru_maxrss;
    run.out = ReadFile(log);
    return run;
  }

  // Runs the sweep: it must end (no hang) with `exit_code`, its output holding `expected`.
  BoundedRun RunSweepExpecting(int exit_code, std::string_view expected = {}) {
    BoundedRun run = Run({"run", "sweep.yaml"});
    EXPECT_TRUE(run.exited) << run.out;
    EXPECT_EQ(run.exit_code, exit_code) << run.out;
    if (!expected.empty()) {
      EXPECT_NE(run.out.find(expected), std::string::npos) << run.out;
    }
    return run;
  }

  TrialRecord Trial0() {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    EXPECT_TRUE(journal) << journal.error().message;
    auto trials = (*journal)->LoadTrials();
    EXPECT_TRUE(trials && trials->size() == 1u);
    return trials && !trials->empty() ? trials->front() : TrialRecord{};
  }

  std::vector<IntermediateResult> Results0() {
    auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
    auto results = (*journal)->LoadResults(0);
    EXPECT_TRUE(results) << results.error().message;
    return results.value_or(std::vector<IntermediateResult>{});
  }

  std::filesystem::path exp() const { return dir_.path() / "runs" / "e2e"; }
  TempDir dir_;
};

// Today's bug: gpusweep blocked in open() on the FIFO forever and ignored SIGTERM.
TEST_F(HostileMetricsTest, FifoIsRefusedWithoutBlockingAndTheTrialStopped) {
  WriteSweep("rm -f \"$M\"; mkfifo \"$M\"; echo '{\"acc\": 1}' > \"$M\"; sleep 600\n");
  const BoundedRun run = RunSweepExpecting(1);
  const TrialRecord trial = Trial0();
  EXPECT_EQ(trial.state, TrialState::kFailed);
  EXPECT_NE(trial.failure_reason.find("metrics.jsonl is a FIFO, not a regular file"),
            std::string::npos)
      << trial.failure_reason;
}

TEST_F(HostileMetricsTest, DirectoryIsRefusedWithoutACrash) {
  WriteSweep("rm -f \"$M\"; mkdir \"$M\"; sleep 600\n");
  const BoundedRun run = RunSweepExpecting(1);
  EXPECT_NE(Trial0().failure_reason.find("metrics.jsonl is a directory"), std::string::npos);
}

TEST_F(HostileMetricsTest, LinkToDevZeroIsRefusedInBoundedMemory) {
  WriteSweep("ln -sf /dev/zero \"$M\"; sleep 600\n");
  const BoundedRun run = RunSweepExpecting(1);
  EXPECT_NE(Trial0().failure_reason.find("metrics.jsonl is a character device"),
            std::string::npos);
  EXPECT_LT(run.max_rss_kib, 100 * 1024);
}

TEST_F(HostileMetricsTest, TwoHundredMegabyteLineIsSkippedNotStored) {
  WriteSweep(
      "head -c 200000000 /dev/zero | tr '\\0' x > \"$M\"\n"
      "printf '\\n{\"acc\": 1}\\n' >> \"$M\"\n");
  const BoundedRun run = RunSweepExpecting(
      0, "metrics.jsonl:1: line of 200000000 bytes, over the 1048576-byte limit, skipped");
  const TrialRecord trial = Trial0();
  EXPECT_EQ(trial.state, TrialState::kCompleted);
  EXPECT_EQ(trial.objective, 1.0);
  EXPECT_LT(run.max_rss_kib, 100 * 1024);
  std::uintmax_t journal_bytes = 0;
  for (const auto& entry : std::filesystem::directory_iterator(exp()))
    if (entry.path().filename().string().starts_with("gpusweep.db"))
      journal_bytes += entry.file_size();
  EXPECT_LT(journal_bytes, 10u << 20);
}

TEST_F(HostileMetricsTest, DeeplyNestedLineIsSkippedAndResumeWorks) {
  WriteSweep(
      "{ printf '{\"a\": '; head -c 50000 /dev/zero | tr '\\0' '['\n"
      "  head -c 50000 /dev/zero | tr '\\0' ']'; printf '}\\n{\"acc\": 1}\\n'; } > \"$M\"\n");
  const BoundedRun run =
      RunSweepExpecting(0, "metrics.jsonl:1: nested more than 64 levels deep, skipped");
  EXPECT_EQ(Trial0().state, TrialState::kCompleted);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"run", "sweep.yaml"}, {"show", "0", "runs/e2e"},
        {"export", "runs/e2e"}}) {
    const BoundedRun again = Run(command);
    EXPECT_EQ(again.exit_code, 0) << command[0] << ": " << again.out;
  }
}

TEST_F(HostileMetricsTest, StepsOutsideInt64FallBackToTheLineOrdinalWithAWarning) {
  WriteSweep(
      "printf '{\"step\": 1e300, \"acc\": 1}\\n{\"step\": 18446744073709551615, \"acc\": 2}\\n"
      "{\"step\": 7, \"acc\": 3}\\n' > \"$M\"\n");
  const BoundedRun run = RunSweepExpecting(
      0, "metrics.jsonl:1: \"step\": 1e+300 is outside the 64-bit integer range, ignored "
         "as a step");
  EXPECT_NE(run.out.find("metrics.jsonl:2: \"step\": 18446744073709551615 is outside"),
            std::string::npos)
      << run.out;
  const std::vector<IntermediateResult> results = Results0();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].step, 0);
  EXPECT_EQ(results[1].step, 1);
  EXPECT_EQ(results[2].step, 7);
}

// A NUL in a reported string and in the log used to end `export` and `show` output
// there (CSV rows lost with exit 0, the log's real last line hidden).
TEST_F(HostileMetricsTest, NulBytesDoNotCutShowOrExportShort) {
  WriteSweep(
      "printf '{\"acc\": 1, \"note\": \"a\\u0000b\"}\\n' > \"$M\"\n"
      "printf 'before\\000after\\nthe real last line\\n'\n");
  ASSERT_EQ(Run({"run", "sweep.yaml"}).exit_code, 0);
  const BoundedRun csv = Run({"export", "runs/e2e"});
  EXPECT_EQ(csv.exit_code, 0) << csv.out;
  EXPECT_NE(csv.out.find("a\u2400b"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find('\0'), std::string::npos);
  EXPECT_EQ(csv.out.substr(csv.out.size() - 2), "\r\n") << "the row is whole";
  const BoundedRun show = Run({"show", "0", "runs/e2e"});
  EXPECT_EQ(show.exit_code, 0) << show.out;
  EXPECT_NE(show.out.find("before\u2400after"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("the real last line"), std::string::npos) << show.out;
}

}  // namespace
}  // namespace gpusweep
