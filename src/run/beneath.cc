// beneath.cc — see beneath.h.
#include "run/beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

Error BeneathIoError(const fs::path& path, std::string_view what, int err) {
  return Error{ErrorCode::kIo, fmt::format("{}: {}: {}", path.string(), what,
                                           err == ELOOP || err == EXDEV
                                               ? "a symbolic link leads out of the trial directory"
                                               : std::strerror(err))};
}

// Opens directory `relative` beneath `root`: openat2 refuses any resolution that leaves
// root (absolute links, "..", links pointing outside); without openat2 every component
// is opened with O_NOFOLLOW.
int OpenDirectoryBeneath(int root, const fs::path& relative) {
  open_how how = {};
  how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, root, relative.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  UniqueFd current(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  for (const fs::path& part : relative) {
    UniqueFd next(::openat(current.get(), part.c_str(),
                           O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) return -1;
    current = std::move(next);
  }
  return current.release();
}

bool Confined(const fs::path& relative) {
  if (relative.is_absolute()) return false;
  for (const fs::path& part : relative)
    if (part == "..") return false;
  return true;
}

}  // namespace

Expected<UniqueFd> OpenOwnDirectory(const fs::path& dir, DirectoryOrigin* origin) {
  const bool created = ::mkdir(dir.c_str(), 0755) == 0;
  if (!created && errno != EEXIST)
    return tl::unexpected(BeneathIoError(dir, "cannot create directory", errno));
  if (origin != nullptr) *origin = created ? DirectoryOrigin::kCreated : DirectoryOrigin::kExisted;
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid())
    return tl::unexpected(BeneathIoError(dir, "cannot open directory",
                                  errno == ENOTDIR ? ELOOP : errno));  // a link is ENOTDIR here
  return fd;
}

Expected<UniqueFd> MakeDirectoriesBeneath(int root, const fs::path& relative,
                                          const fs::path& shown) {
  if (!Confined(relative))
    return Fail(ErrorCode::kIo, fmt::format("{}: {} is outside the trial directory",
                                            shown.string(), relative.string()));
  UniqueFd current(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  fs::path done;
  for (const fs::path& part : relative) {
    if (part.empty() || part == ".") continue;
    if (::mkdirat(current.get(), part.c_str(), 0755) != 0 && errno != EEXIST)
      return tl::unexpected(BeneathIoError(shown / done / part, "cannot create directory", errno));
    done /= part;
    // From root each time, so a link anywhere on the way is judged as a whole.
    UniqueFd next(OpenDirectoryBeneath(root, done));
    if (!next.valid()) return tl::unexpected(BeneathIoError(shown / done, "cannot open directory", errno));
    current = std::move(next);
  }
  return current;
}

namespace {

// Writes all of `text` to `fd` and closes it; 0 or the errno of the failure.
int WriteAllAndClose(UniqueFd fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    written += static_cast<std::size_t>(n);
  }
  return ::close(fd.release()) == 0 ? 0 : errno;
}

}  // namespace

Status WriteNewFileAt(int dir, const std::string& name, const std::string& text,
                      const fs::path& shown) {
  UniqueFd fd(::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0644));
  if (!fd.valid()) return tl::unexpected(BeneathIoError(shown, "cannot create", errno));
  if (const int err = WriteAllAndClose(std::move(fd), text); err != 0) {
    ::unlinkat(dir, name.c_str(), 0);
    return tl::unexpected(BeneathIoError(shown, "cannot write", err));
  }
  return {};
}

Status WriteStagedFileAt(int dir, const std::string& name, const std::string& text,
                         const fs::path& shown) {
  // O_NONBLOCK: a FIFO put in its place must not hang the run; it is refused below.
  UniqueFd fd(::openat(dir, name.c_str(), O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return tl::unexpected(BeneathIoError(shown, "cannot open", errno));
  struct stat info;
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode))
    return Fail(ErrorCode::kIo, fmt::format("{}: not a regular file", shown.string()));
  if (::ftruncate(fd.get(), 0) != 0) return tl::unexpected(BeneathIoError(shown, "cannot write", errno));
  if (const int err = WriteAllAndClose(std::move(fd), text); err != 0)
    return tl::unexpected(BeneathIoError(shown, "cannot write", err));
  return {};
}

Status WriteFileAt(int dir, const std::string& name, const std::string& text,
                   const fs::path& shown) {
  const std::string temp = fmt::format(".{}.tmp.{}", name, ::getpid());
  ::unlinkat(dir, temp.c_str(), 0);  // a leftover of a killed gpusweep (or a link)
  // No fsync: rename makes the file appear whole or not at all to readers, which is
  // what matters; after a power loss the journal (fsync'ed) still says the trial did
  // not finish, so it runs again and these files are written anew.
  GS_TRY(WriteNewFileAt(dir, temp, text, shown));
  if (::renameat(dir, temp.c_str(), dir, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir, temp.c_str(), 0);
    return tl::unexpected(BeneathIoError(shown, "cannot rename into place", err));
  }
  return {};
}

Status MoveAsideAt(int dir, const std::string& from, const std::string& to,
                   const fs::path& shown) {
  if (::renameat(dir, from.c_str(), dir, to.c_str()) == 0 || errno == ENOENT) return {};
  return tl::unexpected(BeneathIoError(shown / from, fmt::format("cannot rename to {}", to), errno));
}

}  // namespace gpusweep
