// process_runner_test.cc — the POSIX ProcessRunner against real /bin/sh processes.
#include "process/process_runner.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "process/test_util.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::ReadFile;
using testing::ShellRequest;
using testing::TempDir;
using testing::WaitForAll;
using testing::WaitForExit;
using testing::WaitUntil;
using Clock = std::chrono::steady_clock;

constexpr double kExitTimeout = 5.0;  // generous: nothing here should take near this long

class ProcessRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runner_ = MakePosixProcessRunner();
    ASSERT_NE(runner_, nullptr);
  }
  ProcessId SpawnShell(const std::string& script) {
    Expected<ProcessId> pid = runner_->Spawn(ShellRequest(script, dir_.path()));
    EXPECT_TRUE(pid) << pid.error().message;
    return pid.value_or(-1);
  }
  ProcessExit RunToExit(const std::string& script) {
    const ProcessId pid = SpawnShell(script);
    std::optional<ProcessExit> exit = WaitForExit(*runner_, pid, kExitTimeout);
    EXPECT_TRUE(exit.has_value()) << script;
    return exit.value_or(ProcessExit{});
  }
  std::string Log() const { return ReadFile(dir_.path() / "log"); }
  bool LogContains(const std::string& text) const {
    return Log().find(text) != std::string::npos;
  }

  TempDir dir_;
  std::unique_ptr<ProcessRunner> runner_;
};

TEST_F(ProcessRunnerTest, ReportsExitCodes) {
  const ProcessId ok = SpawnShell("exit 0");
  const ProcessId three = SpawnShell("exit 3");
  EXPECT_EQ(runner_->running(), 2u);
  std::map<ProcessId, ProcessExit> exits = WaitForAll(*runner_, kExitTimeout);
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_FALSE(exits[ok].signaled);
  EXPECT_EQ(exits[ok].exit_code, 0);
  EXPECT_FALSE(exits[three].signaled);
  EXPECT_EQ(exits[three].exit_code, 3);
  EXPECT_EQ(runner_->running(), 0u);
}

TEST_F(ProcessRunnerTest, ReportsNonZeroExitCode) {
  ProcessExit exit = RunToExit("exit 3");
  EXPECT_FALSE(exit.signaled);
  EXPECT_EQ(exit.exit_code, 3);
}

TEST_F(ProcessRunnerTest, AppendsStdoutAndStderrToLog) {
  RunToExit("echo out; echo err >&2");
  RunToExit("echo again");
  EXPECT_EQ(Log(), "out\nerr\nagain\n");
}

TEST_F(ProcessRunnerTest, RunsInRequestedDirectory) {
  fs::create_directory(dir_.path() / "work");
  SpawnRequest request = ShellRequest("pwd", dir_.path() / "work");
  request.log_path = dir_.path() / "log";
  Expected<ProcessId> pid = runner_->Spawn(request);
  ASSERT_TRUE(pid) << pid.error().message;
  ASSERT_TRUE(WaitForExit(*runner_, *pid, kExitTimeout));
  EXPECT_EQ(Log(), fs::canonical(dir_.path() / "work").string() + "\n");
}

TEST_F(ProcessRunnerTest, EnvironmentIsExactlyTheRequested) {
  ASSERT_EQ(::setenv("GS_PARENT_ONLY", "leaked", 1), 0);
  SpawnRequest request = ShellRequest("env", dir_.path());
  request.env.push_back("GS_TRIAL_VAR=42");
  Expected<ProcessId> pid = runner_->Spawn(request);
  ::unsetenv("GS_PARENT_ONLY");
  ASSERT_TRUE(pid) << pid.error().message;
  ASSERT_TRUE(WaitForExit(*runner_, *pid, kExitTimeout));
  EXPECT_THAT(Log(), HasSubstr("GS_TRIAL_VAR=42\n"));
  EXPECT_THAT(Log(), HasSubstr("PATH=/usr/bin:/bin\n"));
  EXPECT_THAT(Log(), Not(HasSubstr("GS_PARENT_ONLY")));
}

TEST_F(ProcessRunnerTest, StdinIsDevNull) {
  ProcessExit exit = RunToExit("readlink /proc/$$/fd/0; cat; echo cat-done");
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_EQ(Log(), "/dev/null\ncat-done\n");
}

TEST_F(ProcessRunnerTest, ChildInheritsNoOtherDescriptors) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  RunToExit("ls /proc/$$/fd");
  ::close(leaky);
  EXPECT_THAT("\n" + Log(), Not(HasSubstr("\n" + std::to_string(leaky) + "\n")));
  EXPECT_THAT(Log(), HasSubstr("2\n"));
}

TEST_F(ProcessRunnerTest, ReportsDeathBySignal) {
  ProcessExit exit = RunToExit("ulimit -c 0; kill -SEGV $$");
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.signal, SIGSEGV);
}

TEST_F(ProcessRunnerTest, SignalGroupTerminatesSleep) {
  const ProcessId pid = SpawnShell("exec sleep 1000");
  EXPECT_EQ(::getpgid(pid), pid);  // leads its own group, so SignalGroup reaches only it
  EXPECT_NE(::getpgid(pid), ::getpgid(0));
  runner_->SignalGroup(pid, SIGTERM);
  std::optional<ProcessExit> exit = WaitForExit(*runner_, pid, kExitTimeout);
  ASSERT_TRUE(exit);
  EXPECT_TRUE(exit->signaled);
  EXPECT_EQ(exit->signal, SIGTERM);
}

TEST_F(ProcessRunnerTest, ChildIgnoringSigtermDiesOnSigkill) {
  const ProcessId pid = SpawnShell("trap '' TERM; echo ready; sleep 1000");
  ASSERT_TRUE(WaitUntil([&] { return LogContains("ready"); }, kExitTimeout));
  runner_->SignalGroup(pid, SIGTERM);
  WaitOutcome outcome = runner_->Wait(0.3);
  EXPECT_TRUE(outcome.exited.empty());
  EXPECT_EQ(runner_->running(), 1u);
  runner_->SignalGroup(pid, SIGKILL);
  std::optional<ProcessExit> exit = WaitForExit(*runner_, pid, kExitTimeout);
  ASSERT_TRUE(exit);
  EXPECT_TRUE(exit->signaled);
  EXPECT_EQ(exit->signal, SIGKILL);
}

TEST_F(ProcessRunnerTest, StragglersDieWithTheirLeader) {
  const ProcessId pid = SpawnShell("sleep 1000 & echo $!");
  std::optional<ProcessExit> exit = WaitForExit(*runner_, pid, kExitTimeout);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 0);
  const int straggler = std::stoi(Log());
  EXPECT_GT(straggler, 0);
  EXPECT_TRUE(WaitUntil([&] { return ProcessesInGroup(pid).empty(); }, 1.0))
      << "straggler " << straggler << " survived its leader";
}

TEST_F(ProcessRunnerTest, SpawnErrorsNameTheProblem) {
  SpawnRequest request = ShellRequest("true", dir_.path());
  request.argv = {"gs-no-such-command", "--flag"};
  Expected<ProcessId> missing = runner_->Spawn(request);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kProcess);
  EXPECT_THAT(missing.error().message, HasSubstr("command not found: gs-no-such-command"));

  request = ShellRequest("true", dir_.path() / "missing_dir");
  Expected<ProcessId> no_cwd = runner_->Spawn(request);
  ASSERT_FALSE(no_cwd);
  EXPECT_EQ(no_cwd.error().code, ErrorCode::kIo);

  request = ShellRequest("true", dir_.path());
  request.log_path = dir_.path() / "missing_dir" / "log";
  Expected<ProcessId> no_log = runner_->Spawn(request);
  ASSERT_FALSE(no_log);
  EXPECT_EQ(no_log.error().code, ErrorCode::kIo);
  EXPECT_EQ(runner_->running(), 0u);
}

// A failure after the clone (exec refuses the file) comes back from the child: through
// shared memory in the CLONE_VM clone into a cgroup, through a pipe or vfork otherwise.
TEST_F(ProcessRunnerTest, ExecFailureInTheChildIsReported) {
  const std::filesystem::path program = dir_.path() / "not-a-program";
  {
    std::ofstream out(program, std::ios::binary);
    out << std::string("\x01\x02\x03 no shebang, no ELF\n");
  }
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  SpawnRequest request = ShellRequest("true", dir_.path());
  request.argv = {program.string()};
  for (int attempt = 0; attempt < 3; ++attempt) {  // the runner stays usable after each
    Expected<ProcessId> failed = runner_->Spawn(request);
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().code, ErrorCode::kProcess);
    EXPECT_THAT(failed.error().message, HasSubstr("Exec format error"));
    EXPECT_EQ(runner_->running(), 0u);
  }
  const ProcessId ok = SpawnShell("exit 3");
  std::optional<ProcessExit> exit = WaitForExit(*runner_, ok, kExitTimeout);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 3);
}

TEST_F(ProcessRunnerTest, InterruptIsReportedNotFatal) {
  const ProcessId pid = SpawnShell("exec sleep 1000");
  ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
  WaitOutcome outcome = runner_->Wait(kExitTimeout);
  EXPECT_EQ(outcome.interrupt_signal, SIGINT);
  EXPECT_TRUE(outcome.exited.empty());
  EXPECT_EQ(runner_->running(), 1u);  // the child is in its own group: not interrupted
  EXPECT_EQ(::kill(pid, 0), 0);
  EXPECT_EQ(runner_->Wait(0).interrupt_signal, 0);  // reported once
}

// A child that has already exited makes Wait return without sleeping; the interrupt
// that arrived meanwhile must be reported all the same, or a stream of instant
// trials would keep Ctrl-C pending forever.
TEST_F(ProcessRunnerTest, InterruptIsReportedEvenWhenAChildHasAlreadyExited) {
  const ProcessId pid = SpawnShell("exit 0");
  ASSERT_TRUE(WaitUntil([&] { return ProcessStartTicks(pid) == std::nullopt ||
                                     ProcessesInGroup(pid).empty(); }, kExitTimeout));
  ASSERT_EQ(::kill(::getpid(), SIGINT), 0);
  WaitOutcome outcome = runner_->Wait(kExitTimeout);
  EXPECT_EQ(outcome.exited.size(), 1u);
  EXPECT_EQ(outcome.interrupt_signal, SIGINT);
}

TEST_F(ProcessRunnerTest, SignalTakenByAnotherThreadStillWakesWait) {
  SpawnShell("exec sleep 1000");
  std::thread other([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    sigset_t hup;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &hup, nullptr);
    ::raise(SIGHUP);  // handled in this thread, while the main thread sits in ppoll
  });
  const Clock::time_point start = Clock::now();
  WaitOutcome outcome = runner_->Wait(10.0);
  other.join();
  EXPECT_EQ(outcome.interrupt_signal, SIGHUP);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5.0);
}

TEST_F(ProcessRunnerTest, WaitReturnsEmptyAfterTimeout) {
  SpawnShell("exec sleep 1000");
  const Clock::time_point start = Clock::now();
  WaitOutcome outcome = runner_->Wait(0.2);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_TRUE(outcome.exited.empty());
  EXPECT_EQ(outcome.interrupt_signal, 0);
  EXPECT_GE(elapsed, 0.19);
  EXPECT_LT(elapsed, 3.0);
}

TEST_F(ProcessRunnerTest, DestructorKillsGroupsAndRestoresSignals) {
  const ProcessId pid = SpawnShell("sleep 1000 & echo $!; wait");
  ASSERT_TRUE(WaitUntil([&] { return LogContains("\n"); }, kExitTimeout));
  const int straggler = std::stoi(Log());
  runner_.reset();
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped, not just killed
  EXPECT_TRUE(WaitUntil([&] { return ProcessesInGroup(pid).empty(); }, 2.0))
      << "straggler " << straggler << " survived";
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  EXPECT_FALSE(sigismember(&mask, SIGINT));
  EXPECT_FALSE(sigismember(&mask, SIGCHLD));
  struct sigaction action;
  sigaction(SIGTERM, nullptr, &action);
  EXPECT_EQ(action.sa_handler, SIG_DFL);
}

TEST_F(ProcessRunnerTest, OnlyOneRunnerAtATime) {
  EXPECT_EQ(MakePosixProcessRunner(), nullptr);
  runner_.reset();
  EXPECT_NE(MakePosixProcessRunner(), nullptr);
}

TEST_F(ProcessRunnerTest, StartTicksExistForLiveProcessesOnly) {
  EXPECT_TRUE(ProcessStartTicks(::getpid()).has_value());
  const ProcessId pid = SpawnShell("exit 0");
  EXPECT_TRUE(WaitForExit(*runner_, pid, kExitTimeout));
  EXPECT_FALSE(ProcessStartTicks(pid).has_value());
}

}  // namespace
}  // namespace gpusweep
