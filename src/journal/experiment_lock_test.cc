#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "journal/test_util.h"

namespace gpusweep {
namespace {

using testing_util::OpenFilesOf;
using testing_util::ScratchDir;
using testing_util::SleepingChild;

bool HasOpen(const std::vector<std::filesystem::path>& files, const std::filesystem::path& path) {
  return std::find(files.begin(), files.end(), path) != files.end();
}

std::string AlreadyRunningMessage(const std::filesystem::path& dir, long pid) {
  return "experiment " + dir.string() + " is already running (pid " + std::to_string(pid) +
         "); wait for it or stop it";
}

TEST(ExperimentLockTest, SecondAcquireInSameProcessIsRefusedWithOurPid) {
  ScratchDir dir;
  auto first = ExperimentLock::Acquire(dir.path());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->path(), dir.path() / kLockFileName);

  auto second = ExperimentLock::Acquire(dir.path());
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kAlreadyRunning);
  EXPECT_EQ(second.error().message, AlreadyRunningMessage(dir.path(), ::getpid()));
  // The failed attempt must not have disturbed the holder's lock or pid.
  auto third = ExperimentLock::Acquire(dir.path());
  ASSERT_FALSE(third);
  EXPECT_EQ(third.error().message, AlreadyRunningMessage(dir.path(), ::getpid()));
}

TEST(ExperimentLockTest, IsHeldTellsWhetherARunHoldsTheLock) {
  ScratchDir dir;
  EXPECT_FALSE(ExperimentLock::IsHeld(dir.path()));  // no lock file yet
  {
    auto lock = ExperimentLock::Acquire(dir.path());
    ASSERT_TRUE(lock);
    EXPECT_TRUE(ExperimentLock::IsHeld(dir.path()));
    // Probing does not take the lock away or block the holder's next check.
    EXPECT_TRUE(ExperimentLock::IsHeld(dir.path()));
  }
  EXPECT_FALSE(ExperimentLock::IsHeld(dir.path()));  // file left behind, lock released
  EXPECT_TRUE(ExperimentLock::Acquire(dir.path()));  // and the probe left it free
}

TEST(ExperimentLockTest, ReleasedByDestructorAndFollowsMoves) {
  ScratchDir dir;
  {
    auto lock = ExperimentLock::Acquire(dir.path());
    ASSERT_TRUE(lock);
    ExperimentLock moved = std::move(*lock);
    EXPECT_FALSE(ExperimentLock::Acquire(dir.path()));  // still held after the move
  }
  auto again = ExperimentLock::Acquire(dir.path());
  EXPECT_TRUE(again) << again.error().message;
}

TEST(ExperimentLockTest, ChildProcessesDoNotInheritTheLockFd) {
  ScratchDir dir;
  auto lock = ExperimentLock::Acquire(dir.path());
  ASSERT_TRUE(lock);
  // Control: an fd opened without O_CLOEXEC does show up in the child, so the check
  // below can see an inherited file.
  const std::filesystem::path control = dir.path() / "inherited";
  const int control_fd = ::open(control.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(control_fd, 0);

  SleepingChild child;
  ASSERT_GT(child.pid(), 0);
  const auto files = OpenFilesOf(child.pid());
  ::close(control_fd);
  EXPECT_TRUE(HasOpen(files, control));
  EXPECT_FALSE(HasOpen(files, lock->path()));
}

TEST(ExperimentLockTest, ChildProcessesDoNotInheritJournalFds) {
  ScratchDir dir;
  auto journal = OpenJournal(dir.path() / kJournalFileName, JournalAccess::kReadWrite);
  ASSERT_TRUE(journal) << journal.error().message;
  ASSERT_TRUE((*journal)->AppendEvent(1, "started", Json::object()));  // opens -wal too

  SleepingChild child;
  ASSERT_GT(child.pid(), 0);
  for (const auto& file : OpenFilesOf(child.pid()))
    EXPECT_EQ(file.string().find(dir.path().string()), std::string::npos) << file;
}

// Forks a child that takes the lock, reports "locked" through a pipe, then waits to
// be killed. Returns the child's pid (<= 0 on failure).
pid_t ForkLockHolder(const std::filesystem::path& dir) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    auto lock = ExperimentLock::Acquire(dir);
    const char status = lock ? 'L' : 'E';
    if (::write(fds[1], &status, 1) != 1) ::_exit(1);
    while (true) ::pause();
  }
  ::close(fds[1]);
  char status = 0;
  const ssize_t n = ::read(fds[0], &status, 1);
  ::close(fds[0]);
  if (n != 1 || status != 'L') {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    return -1;
  }
  return pid;
}

TEST(ExperimentLockTest, LockHeldByAnotherProcessIsRefusedUntilItIsKilled) {
  ScratchDir dir;
  const pid_t holder = ForkLockHolder(dir.path());
  ASSERT_GT(holder, 0) << "child could not take the lock";

  auto refused = ExperimentLock::Acquire(dir.path());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kAlreadyRunning);
  EXPECT_EQ(refused.error().message, AlreadyRunningMessage(dir.path(), holder));

  // kill -9 leaves no stale lock behind.
  ASSERT_EQ(::kill(holder, SIGKILL), 0);
  ASSERT_EQ(::waitpid(holder, nullptr, 0), holder);
  auto acquired = ExperimentLock::Acquire(dir.path());
  ASSERT_TRUE(acquired) << acquired.error().message;
  std::ifstream file(acquired->path());
  long written_pid = 0;
  file >> written_pid;
  EXPECT_EQ(written_pid, ::getpid());
}

TEST(ExperimentLockTest, MissingDirectoryIsAnIoError) {
  ScratchDir dir;
  auto lock = ExperimentLock::Acquire(dir.path() / "missing");
  ASSERT_FALSE(lock);
  EXPECT_EQ(lock.error().code, ErrorCode::kIo);
}

}  // namespace
}  // namespace gpusweep
