// test_util.h — helpers for the journal module's tests only.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"

namespace gpusweep::testing_util {

using ScratchDir = test_support::TempDir;

// fork + exec `sleep 30`; the constructor returns once exec has happened (a CLOEXEC
// pipe reaches EOF at exec), so the child's fd table is final. Killed and reaped at
// scope exit.
class SleepingChild {
 public:
  SleepingChild() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2 failed";
      return;
    }
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    char byte;
    while (::read(fds[0], &byte, 1) > 0) {
    }
    ::close(fds[0]);
  }
  SleepingChild(const SleepingChild&) = delete;
  SleepingChild& operator=(const SleepingChild&) = delete;
  ~SleepingChild() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status;
    ::waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// Targets of /proc/<pid>/fd/* (the files a process has open).
inline std::vector<std::filesystem::path> OpenFilesOf(pid_t pid) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  const std::filesystem::path dir = "/proc/" + std::to_string(pid) + "/fd";
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::error_code link_ec;
    const auto target = std::filesystem::read_symlink(entry.path(), link_ec);
    if (!link_ec) files.push_back(target);
  }
  if (ec) ADD_FAILURE() << "cannot list " << dir << ": " << ec.message();
  return files;
}

}  // namespace gpusweep::testing_util
