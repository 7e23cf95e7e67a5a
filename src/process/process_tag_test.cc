// process_tag_test.cc — StopTagged, the fallback that ends a run's processes by their
// environment tag where there is no cgroup.
#include "process/process_tag.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

// Starts /bin/sh -c `script` with the tag in its environment; returns its pid.
pid_t StartTagged(const std::string& tag, const char* script) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv(std::string(kProcessTagVariable).c_str(), tag.c_str(), 1);
    ::execl("/bin/sh", "sh", "-c", script, static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Whatever a failed test left (a surviving sleep would hold CTest's output pipe open
// for 300 s): SIGKILL until nothing tagged is seen for a while.
void KillAllTagged(const std::string& tag) {
  for (int quiet = 0; quiet < 20; ::usleep(10000)) {
    const std::vector<int> left = ProcessesTagged(tag);
    for (int pid : left) ::kill(pid, SIGKILL);
    quiet = left.empty() ? quiet + 1 : 0;
  }
}

// A process that shows up after the first scan — here forked by a tagged shell when it
// gets SIGTERM; equally one mid-exec during that scan, whose environment reads empty —
// gets its SIGTERM on a later scan instead of waiting out the grace for a SIGKILL, and
// is counted.
TEST(StopTaggedTest, TerminatesProcessesThatAppearWhileItWaits) {
  const std::string tag = "tagtest" + std::to_string(::getpid()) + ":0:0";
  struct Cleanup {
    const std::string& tag;
    ~Cleanup() { KillAllTagged(tag); }
  } cleanup{tag};
  const pid_t shell = StartTagged(tag, "trap 'sleep 300 & exit 0' TERM; sleep 300 & wait");
  // Wait until the shell and its first sleep are both visible.
  for (int i = 0; i < 500 && ProcessesTagged(tag).size() < 2; ++i) ::usleep(10000);
  ASSERT_EQ(ProcessesTagged(tag).size(), 2u);
  // shell + first sleep at the first scan, the trap's sleep later: 3 processes, each
  // ended by its SIGTERM well inside the grace. The trap's fork can be signalled before
  // its exec and swallow that TERM; StopTagged signals it again as the new program, so
  // nothing waits for the SIGKILL at the grace's end (it did, 60 s, before).
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(StopTagged(tag, {}, /*grace_seconds=*/60), 3);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(ProcessesTagged(tag).empty());
  int status = 0;
  ASSERT_EQ(::waitpid(shell, &status, 0), shell);
  EXPECT_TRUE(WIFEXITED(status)) << "the shell ran its trap and exited";
}

TEST(StopTaggedTest, FindsNothingForAnUnusedPrefix) {
  EXPECT_EQ(StopTagged("tagtest-none" + std::to_string(::getpid()), {}, 1), 0);
}

}  // namespace
}  // namespace gpusweep
