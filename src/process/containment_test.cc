// containment_test.cc — a trial's descendants that leave its process group (setsid,
// setpgid(0,0), a double-forked daemon) end with the trial, under both mechanisms
// (cgroup v2 where this machine allows it, and process group + tag + subreaper); the
// guard ends a dead controller's trials; StopLeftovers finds a dead run's trials.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process/process_runner.h"
#include "process/test_util.h"

namespace gpusweep {
namespace {

using testing::CgroupExpected;
using testing::ShellRequest;
using testing::TempDir;
using testing::WaitForExit;
using testing::WaitUntil;

constexpr double kGenerous = 10.0;  // seconds; nothing here should take near this long

// Three ways out of the trial's process group, each writing its pid to a file, then
// the leader goes on (or ends) as `leader_tail` says.
std::string EscapingTrial(const std::string& leader_tail) {
  return "setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & "
         "python3 -c 'import os, time; os.setpgid(0, 0); "
         "open(\"setpgid.pid\", \"w\").write(str(os.getpid())); time.sleep(300)' & "
         "sh -c 'setsid sh -c \"echo \\$\\$ > daemon.pid; exec sleep 300\" & exit 0' & " +
         leader_tail;
}

std::optional<int> ReadPid(const std::filesystem::path& file) {
  std::ifstream in(file);
  int pid = 0;
  if (in >> pid && pid > 0) return pid;
  return std::nullopt;
}

bool Alive(int pid) {
  // A zombie (killed, not yet reaped by its new parent) counts as gone.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t end = text.rfind(')');
  return end != std::string::npos && end + 2 < text.size() && text[end + 2] != 'Z';
}

// The program a process runs now ("" once it is gone).
std::string ProgramOf(int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

const char* kEscapers[] = {"setsid.pid", "setpgid.pid", "daemon.pid"};

class ContainmentTest : public ::testing::TestWithParam<ContainmentChoice> {
 protected:
  void SetUp() override {
    ProcessRunnerOptions options;
    options.containment = GetParam();
    options.scope = "test" + std::to_string(::getpid());
    runner_ = MakePosixProcessRunner(options);
    ASSERT_NE(runner_, nullptr);
  }
  ProcessId Spawn(const std::string& script) {
    Expected<ProcessId> pid = runner_->Spawn(ShellRequest(script, dir_.path()));
    EXPECT_TRUE(pid) << pid.error().message;
    return pid.value_or(-1);
  }
  // Waits until every escaper wrote its pid; returns them.
  std::vector<int> EscaperPids() {
    std::vector<int> pids;
    EXPECT_TRUE(WaitUntil(
        [&] {
          pids.clear();
          for (const char* file : kEscapers)
            if (auto pid = ReadPid(dir_.path() / file)) pids.push_back(*pid);
          return pids.size() == 3;
        },
        kGenerous))
        << "escapers did not start";
    return pids;
  }
  void ExpectAllGone(const std::vector<int>& pids) {
    for (int pid : pids)
      EXPECT_TRUE(WaitUntil([&] { return !Alive(pid); }, kGenerous)) << "pid " << pid << " survived";
  }

  // Forks a controller process that makes a runner with `options`, starts an escaping
  // trial and waits forever; returns once the trial has started.
  pid_t StartController(const ProcessRunnerOptions& options) {
    runner_.reset();  // one runner per process: the controller is a child
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    const pid_t controller = ::fork();
    if (controller == 0) {
      auto runner = MakePosixProcessRunner(options);
      if (!runner || !runner->Spawn(ShellRequest(EscapingTrial("exec sleep 300"), dir_.path())))
        _exit(1);
      (void)!::write(ready[1], "x", 1);
      for (;;) runner->Wait(1);
    }
    ::close(ready[1]);
    char byte;
    EXPECT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    return controller;
  }
  void KillController(pid_t controller) {
    ::kill(controller, SIGKILL);
    ::waitpid(controller, nullptr, 0);
  }

  TempDir dir_;
  std::unique_ptr<ProcessRunner> runner_;
};

TEST_P(ContainmentTest, UsesTheMechanismAskedFor) {
  if (GetParam() == ContainmentChoice::kTaggedOnly) {
    EXPECT_EQ(runner_->containment(), ContainmentKind::kTagged);
  }
  // kAuto: a cgroup where gpusweep can write its own cgroup (root in CI), else tags.
  // Where the machine gives cgroups (CgroupExpected), the fallback is an error.
  if (GetParam() == ContainmentChoice::kAuto && CgroupExpected()) {
    EXPECT_EQ(runner_->containment(), ContainmentKind::kCgroup)
        << "GPUSWEEP_EXPECT_CGROUP=1 (scripts/cgroup-probe.sh made a cgroup here), but "
           "gpusweep fell back to process groups";
  }
  std::cout << "containment: "
            << (runner_->containment() == ContainmentKind::kCgroup ? "cgroup v2" : "tagged") << "\n";
}

TEST_P(ContainmentTest, EscapersEndWhenTheLeaderExits) {
  const ProcessId leader = Spawn(EscapingTrial(
      "while [ ! -s setsid.pid ] || [ ! -s setpgid.pid ] || [ ! -s daemon.pid ]; do sleep 0.05; "
      "done; exit 0"));
  std::optional<ProcessExit> exit = WaitForExit(*runner_, leader, kGenerous);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->exit_code, 0);
  ExpectAllGone(EscaperPids());
}

TEST_P(ContainmentTest, SignalReachesEscapersAndTheirTrialIsListed) {
  const ProcessId leader = Spawn(EscapingTrial("exec sleep 300"));
  const std::vector<int> escapers = EscaperPids();
  const std::vector<int> listed = runner_->TrialProcesses(leader);
  for (int pid : escapers)
    EXPECT_NE(std::find(listed.begin(), listed.end(), pid), listed.end()) << pid;
  // What a timeout, a prune or Ctrl-C does: SIGTERM to the trial.
  runner_->SignalGroup(leader, SIGTERM);
  ASSERT_TRUE(WaitForExit(*runner_, leader, kGenerous));
  ExpectAllGone(escapers);
}

TEST_P(ContainmentTest, TwoTrialsAreKeptApart) {
  TempDir other_dir;
  const ProcessId first = Spawn("exec sleep 300");
  Expected<ProcessId> second =
      runner_->Spawn(ShellRequest("setsid sleep 300 & exec sleep 300", other_dir.path()));
  ASSERT_TRUE(second);
  // Both of the second trial's processes settled as `sleep`: a shell or `setsid` caught
  // in its exec shows no environment for a moment, so no tag, and the count below would
  // drop to 1 by that alone (it did, once, in a loaded full run).
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::vector<int> pids = runner_->TrialProcesses(*second);
        return pids.size() == 2 && std::all_of(pids.begin(), pids.end(), [](int pid) {
                 return ProgramOf(pid) == "sleep";
               });
      },
      kGenerous));
  runner_->SignalGroup(first, SIGKILL);
  ASSERT_TRUE(WaitForExit(*runner_, first, kGenerous));
  EXPECT_EQ(runner_->TrialProcesses(*second).size(), 2u);  // untouched
  runner_->SignalGroup(*second, SIGKILL);
  ASSERT_TRUE(WaitForExit(*runner_, *second, kGenerous));
}

// A controller in a child process starts an escaping trial, then dies by SIGKILL
// without destroying its runner: its guard must end the trial and its escapers.
TEST_P(ContainmentTest, GuardEndsTrialsOfAKilledController) {
  ProcessRunnerOptions options;
  options.containment = GetParam();
  options.guard_grace_seconds = 1;
  const pid_t controller = StartController(options);
  const std::vector<int> escapers = EscaperPids();
  KillController(controller);
  ExpectAllGone(escapers);
}

// The guard can itself be killed (a kill -9 of everything): then the next run of the
// same experiment (same scope) stops what is left before it runs anything.
TEST_P(ContainmentTest, StopLeftoversEndsADeadRunsTrials) {
  const ProcessRunnerOptions options{"leftover" + std::to_string(::getpid()), GetParam(),
                                     ControllerGuard::kOff, 0};
  const pid_t controller = StartController(options);
  const std::vector<int> escapers = EscaperPids();
  KillController(controller);
  for (int pid : escapers) EXPECT_TRUE(Alive(pid));  // no guard: still there
  auto next = MakePosixProcessRunner(options);
  ASSERT_NE(next, nullptr);
  EXPECT_GE(next->StopLeftovers(kGenerous), 3);
  for (int pid : escapers) EXPECT_FALSE(Alive(pid)) << pid;
  EXPECT_EQ(next->StopLeftovers(kGenerous), 0);
}

// A run killed with its guard and never resumed leaves empty cgroups; the next
// gpusweep of any experiment removes them.
TEST_P(ContainmentTest, EmptyCgroupsOfDeadRunsAreRemoved) {
  if (GetParam() == ContainmentChoice::kTaggedOnly) GTEST_SKIP() << "cgroups only";
  if (runner_->containment() != ContainmentKind::kCgroup) {
    ASSERT_FALSE(CgroupExpected()) << "GPUSWEEP_EXPECT_CGROUP=1, but gpusweep uses no cgroup";
    GTEST_SKIP() << "no cgroups here";
  }
  std::string own;
  {
    std::ifstream cgroups("/proc/self/cgroup");
    for (std::string line; std::getline(cgroups, line);)
      if (line.starts_with("0::")) own = line.substr(3);
  }
  std::string mount;
  {
    std::ifstream mountinfo("/proc/self/mountinfo");
    for (std::string line; std::getline(mountinfo, line);)
      if (line.find(" - cgroup2 ") != std::string::npos) {
        std::istringstream fields(line);
        for (int i = 0; i < 5; ++i) fields >> mount;
      }
  }
  const std::filesystem::path scope =
      std::filesystem::path(mount) / std::filesystem::path(own).relative_path() /
      ("gpusweep-deadtest" + std::to_string(::getpid()));
  ASSERT_TRUE(std::filesystem::create_directories(scope / "run-999999999-1" / "trial-0"));
  runner_.reset();
  runner_ = MakePosixProcessRunner({});
  EXPECT_FALSE(std::filesystem::exists(scope));
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, ContainmentTest,
                         ::testing::Values(ContainmentChoice::kAuto, ContainmentChoice::kTaggedOnly),
                         [](const auto& info) {
                           return info.param == ContainmentChoice::kAuto ? "Auto" : "TaggedOnly";
                         });

}  // namespace
}  // namespace gpusweep
