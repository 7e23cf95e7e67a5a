#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace gpusweep {

Expected<AtomicFile> AtomicFile::Create(const std::filesystem::path& path) {
  std::filesystem::path temp = path;
  temp += fmt::format(".tmp.{}", ::getpid());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid())
    return Fail(ErrorCode::kIo, fmt::format("{}: cannot create: {}", path.string(),
                                            std::strerror(errno)));
  return AtomicFile(path, std::move(temp), std::move(fd));
}

AtomicFile::~AtomicFile() {
  if (fd_.valid()) {
    fd_.Reset();
    ::unlink(temp_.c_str());
  }
}

Status AtomicFile::Abandon(std::string_view what, int err) {
  fd_.Reset();
  ::unlink(temp_.c_str());
  return gpusweep::Fail(ErrorCode::kIo,
                        fmt::format("{}: {}: {}", path_.string(), what, std::strerror(err)));
}

Status AtomicFile::Write(std::string_view text) {
  if (!fd_.valid()) return Abandon("cannot write", EBADF);
  while (!text.empty()) {
    const ssize_t n = ::write(fd_.get(), text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Abandon("cannot write", errno);
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Status AtomicFile::Commit() {
  if (!fd_.valid()) return Abandon("cannot write", EBADF);
  if (::close(fd_.release()) != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    return gpusweep::Fail(ErrorCode::kIo, fmt::format("{}: cannot write: {}", path_.string(),
                                                      std::strerror(err)));
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp_.c_str());
    return gpusweep::Fail(ErrorCode::kIo, fmt::format("{}: cannot rename into place: {}",
                                                      path_.string(), std::strerror(err)));
  }
  return {};
}

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view text) {
  GS_ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  GS_TRY(file.Write(text));
  return file.Commit();
}

}  // namespace gpusweep
