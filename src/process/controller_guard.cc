// controller_guard.cc — the guard process (see controller_guard.h).
#include "process/controller_guard.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "process/containment.h"

namespace gpusweep {
namespace {

[[noreturn]] void RunGuard(Containment& containment, double grace_seconds, int read_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_NAME, "gpusweep-guard", 0, 0, 0);
  // Nothing of gpusweep's may stay open here: above all not the experiment lock, which
  // would keep the experiment "running" after gpusweep died.
  const int null_fd = ::open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd) ::dup2(null_fd, fd);
  if (read_fd > 3) ::close_range(3, read_fd - 1, 0);
  ::close_range(read_fd + 1, ~0U, 0);
  char byte = 0;
  ssize_t n;
  while ((n = ::read(read_fd, &byte, 1)) < 0 && errno == EINTR) {
  }
  if (n == 1 && byte == 'Q') _exit(0);
  containment.StopOwn(grace_seconds);
  _exit(0);
}

}  // namespace

std::optional<GuardProcess> GuardProcess::Start(Containment& containment, double grace_seconds) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) RunGuard(containment, grace_seconds, read_end.get());
  return GuardProcess(pid, std::move(write_end));
}

GuardProcess::GuardProcess(GuardProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pipe_(std::move(other.pipe_)) {}

GuardProcess::~GuardProcess() {
  if (pid_ <= 0) return;
  if (pipe_.valid()) (void)!::write(pipe_.get(), "Q", 1);
  pipe_ = UniqueFd();
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace gpusweep
