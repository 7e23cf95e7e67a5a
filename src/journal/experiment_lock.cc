// gpusweep::ExperimentLock (see include/gpusweep/journal.h): flock on gpusweep.lock.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/unique_fd.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/journal.h"

namespace gpusweep {
namespace {

Error IoError(std::string_view what, const std::filesystem::path& path, int err) {
  return Error{ErrorCode::kIo, fmt::format("{} {}: {}", what, path.string(), std::strerror(err))};
}

// The holder's pid as written in the file; nullopt if unreadable or not yet written
// (the holder writes it right after locking, so a reader can race it).
std::optional<long> ReadHolderPid(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return std::nullopt;
  char* end = nullptr;
  const long pid = std::strtol(buffer, &end, 10);
  if (end == buffer || pid <= 0) return std::nullopt;
  return pid;
}

int LockNonBlocking(int fd) {
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

// Replaces the file's content with "<pid>\n".
int WritePid(int fd) {
  const std::string text = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0) return errno;
  const ssize_t n = ::pwrite(fd, text.data(), text.size(), 0);
  if (n < 0) return errno;
  return n == static_cast<ssize_t>(text.size()) ? 0 : EIO;
}

}  // namespace

bool ExperimentLock::IsHeld(const std::filesystem::path& experiment_dir) {
  const std::filesystem::path path = ExperimentFiles{experiment_dir}.lock();
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  int rc;
  do {
    rc = ::flock(fd.get(), LOCK_SH | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return errno == EWOULDBLOCK;
  ::flock(fd.get(), LOCK_UN);
  return false;
}

Expected<ExperimentLock> ExperimentLock::Acquire(const std::filesystem::path& experiment_dir) {
  std::filesystem::path path = ExperimentFiles{experiment_dir}.lock();
  // No O_TRUNC: the file may belong to a running holder whose pid we want to report.
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (fd.get() < 0) return tl::unexpected(IoError("cannot open lock file", path, errno));

  if (const int err = LockNonBlocking(fd.get()); err != 0) {
    if (err != EWOULDBLOCK) return tl::unexpected(IoError("cannot lock", path, err));
    const std::optional<long> pid = ReadHolderPid(fd.get());
    return Fail(ErrorCode::kAlreadyRunning,
                fmt::format("experiment {} is already running ({}); wait for it or stop it",
                            experiment_dir.string(),
                            pid ? fmt::format("pid {}", *pid) : std::string("pid unknown")));
  }
  if (const int err = WritePid(fd.get()); err != 0)
    return tl::unexpected(IoError("cannot write pid to", path, err));
  return ExperimentLock(fd.release(), std::move(path));
}

ExperimentLock::ExperimentLock(ExperimentLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

ExperimentLock& ExperimentLock::operator=(ExperimentLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

ExperimentLock::~ExperimentLock() { Release(); }

void ExperimentLock::Release() {
  if (fd_ < 0) return;
  // Clear the pid while still holding the lock so no later reader reports a pid that
  // no longer runs; closing the only fd drops the flock.
  (void)::ftruncate(fd_, 0);
  ::close(std::exchange(fd_, -1));
}

}  // namespace gpusweep
