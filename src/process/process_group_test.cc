// process_group_test.cc — /proc helpers and KillStaleProcessGroup on groups that were
// not started by a ProcessRunner (as after a gpusweep restart): fork + setpgid + exec.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "process/process_runner.h"
#include "process/test_util.h"

namespace gpusweep {
namespace {

using testing::ReadFile;
using testing::TempDir;
using testing::WaitUntil;

constexpr double kGenerous = 5.0;

// Forks `/bin/sh -c script` as the leader of a new process group, with clean signals.
int ForkShellGroupLeader(const std::string& script) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    sigset_t empty;
    sigemptyset(&empty);
    ::sigprocmask(SIG_SETMASK, &empty, nullptr);
    ::signal(SIGTERM, SIG_DFL);
    ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also in the parent, so the group exists once fork returns
  return pid;
}

// Reaps our forked leader; returns its wait status.
int Reap(int pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(ProcessStartTicksTest, ParsesOwnStatAndRejectsMissingPids) {
  std::optional<std::uint64_t> self = ProcessStartTicks(::getpid());
  ASSERT_TRUE(self.has_value());
  EXPECT_GT(*self, 0u);
  EXPECT_EQ(ProcessStartTicks(::getpid()), self);  // stable
  EXPECT_FALSE(ProcessStartTicks(0).has_value());
  EXPECT_FALSE(ProcessStartTicks(-5).has_value());
  EXPECT_FALSE(ProcessStartTicks(1 << 30).has_value());  // above pid_max
}

TEST(ProcessesInGroupTest, ListsLiveMembersOnly) {
  const int pid = ForkShellGroupLeader("exec sleep 1000");
  EXPECT_TRUE(WaitUntil([&] { return ProcessesInGroup(pid) == std::vector<int>{pid}; },
                        kGenerous));
  ::kill(-pid, SIGKILL);
  // A zombie (killed, not yet reaped) is not live.
  EXPECT_TRUE(WaitUntil([&] { return ProcessesInGroup(pid).empty(); }, kGenerous));
  Reap(pid);
  EXPECT_TRUE(ProcessesInGroup(0).empty());
}

TEST(KillStaleProcessGroupTest, KillsMatchingProcessAndRefusesReusedPid) {
  const int pid = ForkShellGroupLeader("exec sleep 1000");
  std::optional<std::uint64_t> ticks = ProcessStartTicks(pid);
  ASSERT_TRUE(ticks.has_value());

  EXPECT_FALSE(KillStaleProcessGroup(pid, *ticks + 1, 0.2));  // "a different process"
  EXPECT_EQ(::kill(pid, 0), 0);

  EXPECT_TRUE(KillStaleProcessGroup(pid, *ticks, kGenerous));
  const int status = Reap(pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);  // within the grace period: no SIGKILL needed
  EXPECT_FALSE(KillStaleProcessGroup(pid, *ticks, 0.2));  // gone: nothing to signal
}

TEST(KillStaleProcessGroupTest, EscalatesToSigkillAfterGrace) {
  TempDir dir;
  const std::string ready = (dir.path() / "ready").string();
  const int pid = ForkShellGroupLeader("trap '' TERM; touch " + ready + "; exec sleep 1000");
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(ready); }, kGenerous));
  std::optional<std::uint64_t> ticks = ProcessStartTicks(pid);
  ASSERT_TRUE(ticks.has_value());
  EXPECT_TRUE(KillStaleProcessGroup(pid, *ticks, 0.2));
  const int status = Reap(pid);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST(KillStaleProcessGroupTest, KillsStragglersOfAnExitedLeader) {
  TempDir dir;
  const std::string log = (dir.path() / "log").string();
  const int pid = ForkShellGroupLeader("sleep 1000 & echo $! > " + log);
  std::optional<std::uint64_t> ticks = ProcessStartTicks(pid);
  ASSERT_TRUE(ticks.has_value());
  Reap(pid);
  ASSERT_TRUE(WaitUntil([&] { return ReadFile(log).find('\n') != std::string::npos; },
                        kGenerous));
  const int straggler = std::stoi(ReadFile(log));
  EXPECT_EQ(ProcessesInGroup(pid), std::vector<int>{straggler});

  EXPECT_TRUE(KillStaleProcessGroup(pid, *ticks, kGenerous));
  EXPECT_TRUE(ProcessesInGroup(pid).empty());
}

TEST(KillStaleProcessGroupTest, RefusesNonsensePids) {
  EXPECT_FALSE(KillStaleProcessGroup(0, 0, 0.1));
  EXPECT_FALSE(KillStaleProcessGroup(1, 0, 0.1));
  EXPECT_FALSE(KillStaleProcessGroup(-1, 0, 0.1));
}

}  // namespace
}  // namespace gpusweep
