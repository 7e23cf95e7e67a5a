// End-to-end hardening: the experiment directory changed under a running gpusweep,
// read commands on an experiment the reader cannot write, symbolic links in a trial
// directory, and the launch intent journaled before the spawn.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_harness.h"
#include "gpusweep/journal.h"
#include "gpusweep/trial.h"
#include "run/test_util.h"

namespace gpusweep {
namespace {

using testing::LiveTrialProcesses;
using testing::RunGpusweep;
using testing::StartGpusweep;
using testing::WaitExit;
using testing::WaitUntil;

// Trials that report once and then run long (until stopped).
constexpr const char* kLongTrials = R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"; exec sleep 300']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 4}
resources: {cpu_slots: 2}
kill_grace: 1s
)";

using testing::CommandResult;

class CliHardeningTest : public ::testing::Test {
 protected:
  // gpusweep `args` (shell words) as a user who cannot write the experiment: as root,
  // "nobody" (setpriv); otherwise the current user, for whom chmod a-w suffices.
  CommandResult RunAsReader(const std::string& args) {
    const std::string as_reader =
        ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
    const std::string line = fmt::format("cd / && {}{} {} 2>&1", as_reader, GPUSWEEP_BINARY, args);
    CommandResult result;
    FILE* pipe = ::popen(line.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) result.out.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }
  void Write(const std::string& yaml) { WriteFile(dir_.path() / "sweep.yaml", yaml); }
  std::filesystem::path exp() const { return dir_.path() / "runs" / "e2e"; }
  std::filesystem::path Log() const { return dir_.path() / "run.log"; }
  // Starts `run` and waits until two trials run.
  pid_t StartLongRun() {
    Write(kLongTrials);
    const pid_t pid = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), Log());
    EXPECT_TRUE(WaitUntil(20, [&] { return LiveTrialProcesses(exp()).size() >= 2; }))
        << ReadFile(Log());
    return pid;
  }
  TempDir dir_;
};

TEST_F(CliHardeningTest, JournalDeletedMidRunStopsWithAnErrorAndRecreatesNothing) {
  const pid_t run = StartLongRun();
  std::filesystem::remove(exp() / "gpusweep.db");
  const int code = WaitExit(run);
  const std::string out = ReadFile(Log());
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(out.find("the journal was deleted or replaced"), std::string::npos) << out;
  EXPECT_EQ(out.find("Results in"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(exp() / "gpusweep.db"));
  EXPECT_TRUE(LiveTrialProcesses(exp()).empty());
}

TEST_F(CliHardeningTest, ExperimentDirRenamedMidRunStopsAndTheOldPathStaysGone) {
  const pid_t run = StartLongRun();
  const std::filesystem::path moved = dir_.path() / "moved";
  std::filesystem::rename(exp(), moved);
  const int code = WaitExit(run);
  const std::string out = ReadFile(Log());
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(out.find("the experiment directory was moved or deleted"), std::string::npos) << out;
  EXPECT_FALSE(std::filesystem::exists(exp())) << "the old path was recreated";
  EXPECT_TRUE(LiveTrialProcesses(moved).empty());
  // Moved back, it resumes: nothing was lost or half-written.
  std::filesystem::rename(moved, exp());
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal) << journal.error().message;
  EXPECT_FALSE((*journal)->LoadTrials().value_or(std::vector<TrialRecord>{}).empty());
}

// Every read command on a copy the reader cannot write (as root: run as "nobody").
TEST_F(CliHardeningTest, ReadCommandsWorkOnAnExperimentTheUserCannotWrite) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 3}
)");
  ASSERT_EQ(RunGpusweep({"run", "sweep.yaml"}, dir_.path()).exit_code, 0);
  ASSERT_EQ(std::system(fmt::format("chmod -R a+rX,a-w '{}'", exp().string()).c_str()), 0);
  for (const char* command : {"status", "best", "export", "show 1"}) {
    const CommandResult result = RunAsReader(fmt::format("{} '{}'", command, exp().string()));
    EXPECT_EQ(result.exit_code, 0) << command << ": " << result.out;
    EXPECT_NE(result.out.find(command == std::string("export") ? "acc" : "2"), std::string::npos)
        << command << ": " << result.out;
  }
  ASSERT_EQ(std::system(fmt::format("chmod -R u+w '{}'", exp().string()).c_str()), 0);
}

// `gpusweep export DIR | head`: the reader goes away; gpusweep ends quietly with the
// status a shell gives a tool stopped by SIGPIPE (141), as other Unix tools do. The
// pipe's read end is closed before gpusweep starts, so every write fails (EPIPE).
TEST_F(CliHardeningTest, ClosedStdoutPipeEndsQuietly) {
  Write(R"(
name: e2e
command: [/bin/sh, -c, 'echo "{\"acc\": {{a}}}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 3}
)");
  ASSERT_EQ(RunGpusweep({"run", "sweep.yaml"}, dir_.path()).exit_code, 0);
  for (const char* command : {"export", "status"}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[0]);
    const std::filesystem::path err = dir_.path() / "stderr.txt";
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::dup2(fds[1], 1);
      const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err_fd >= 0) ::dup2(err_fd, 2);
      ::execl(GPUSWEEP_BINARY, GPUSWEEP_BINARY, command, exp().c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << command;
    EXPECT_EQ(WEXITSTATUS(status), 141) << command;
    EXPECT_EQ(ReadFile(err), "") << command;
  }
}

// Descendants that left the process group end with their trial, on a timeout and
// on Ctrl-C alike (a normal end and pruning use the same kill; see
// process_containment_test).
TEST_F(CliHardeningTest, EscapedDescendantsEndOnTimeoutAndOnInterrupt) {
  Write(R"yaml(
name: e2e
command: [/bin/sh, -c, 'setsid sleep 300 & python3 -c "import os, time; os.setpgid(0, 0); time.sleep(300)" & sh -c "setsid sleep 300 & exit 0"; exec sleep 300']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 2}
resources: {cpu_slots: 1}
timeout: 1s
kill_grace: 1s
)yaml");
  const pid_t run = StartGpusweep({"run", "sweep.yaml"}, dir_.path(), Log());
  EXPECT_TRUE(WaitUntil(20, [&] { return LiveTrialProcesses(exp()).size() >= 4; }))
      << ReadFile(Log());
  // Trial 0 times out; trial 1 starts and gets its escapers going, then Ctrl-C.
  ASSERT_TRUE(WaitUntil(20, [&] { return ReadFile(Log()).find("timed out") != std::string::npos; }))
      << ReadFile(Log());
  EXPECT_TRUE(WaitUntil(20, [&] { return LiveTrialProcesses(exp()).size() >= 4; }));
  ::kill(run, SIGINT);
  EXPECT_EQ(WaitExit(run), 130) << ReadFile(Log());
  EXPECT_TRUE(LiveTrialProcesses(exp()).empty()) << ReadFile(Log());
}

// Where scripts/cgroup-probe.sh found cgroups usable (GPUSWEEP_EXPECT_CGROUP=1, set by
// scripts/test.sh and .ci/run), every trial of a real run sits in a cgroup of its own:
// a gpusweep that quietly fell back to process groups fails here instead of passing.
TEST_F(CliHardeningTest, EveryTrialRunsInACgroupOfItsOwnWhereTheMachineAllows) {
  const char* expect = std::getenv("GPUSWEEP_EXPECT_CGROUP");
  if (expect == nullptr || std::string(expect) != "1")
    GTEST_SKIP() << "GPUSWEEP_EXPECT_CGROUP is not 1 (scripts/test.sh sets it where "
                    "scripts/cgroup-probe.sh finds cgroup v2 usable)";
  Write(R"yaml(
name: e2e
command: [/bin/sh, -c, 'sed -n "s/^0:://p" /proc/self/cgroup > cgroup.txt; echo "{\"acc\": 1}" >> "$GPUSWEEP_METRICS"']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 3}
resources: {cpu_slots: 2}
)yaml");
  const CommandResult run = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ASSERT_EQ(run.exit_code, 0) << run.out;
  std::set<std::string> cgroups;
  for (int trial = 0; trial < 3; ++trial) {
    std::string cgroup = ReadFile(exp() / "trials" / TrialDirName(trial) / "cgroup.txt");
    while (!cgroup.empty() && cgroup.back() == '\n') cgroup.pop_back();
    EXPECT_NE(cgroup.find("/gpusweep-"), std::string::npos) << trial << ": " << cgroup;
    EXPECT_NE(cgroup.find("/trial-"), std::string::npos) << trial << ": " << cgroup;
    cgroups.insert(cgroup);
  }
  EXPECT_EQ(cgroups.size(), 3u);  // one each
}

// The launch intent is in the journal before the process starts: the trial finds its
// own row, state running, attempt 1, when it looks at its first instant.
TEST_F(CliHardeningTest, TheTrialsRowIsJournaledBeforeItStarts) {
  Write(R"yaml(
name: e2e
command: [python3, -c, 'import json, os, sqlite3; db = sqlite3.connect("file:{{experiment_dir}}/gpusweep.db?mode=ro", uri=True); row = db.execute("select state, attempt from trials where number = {{trial.number}}").fetchone(); open(os.environ["GPUSWEEP_METRICS"], "a").write(json.dumps({"acc": 1 if row == ("running", 1) else 0, "row": str(row)}) + "\n")']
metric: {name: acc, mode: max}
sampler: {type: grid}
search_space:
  a: {type: int, low: 1, high: 3}
)yaml");
  // A slow disk: were the row written after the spawn, the trial would look too early.
  ::setenv("GPUSWEEP_TEST_SLOW_DISK_MS", "300", 1);
  auto result = RunGpusweep({"run", "sweep.yaml"}, dir_.path());
  ::unsetenv("GPUSWEEP_TEST_SLOW_DISK_MS");
  ASSERT_EQ(result.exit_code, 0) << result.out;
  auto journal = OpenJournal(exp() / "gpusweep.db", JournalAccess::kReadOnly);
  ASSERT_TRUE(journal);
  for (const TrialRecord& trial : (*journal)->LoadTrials().value_or(std::vector<TrialRecord>{}))
    EXPECT_EQ(trial.objective, std::optional<double>(1)) << trial.last_metrics.dump();
}

}  // namespace
}  // namespace gpusweep
