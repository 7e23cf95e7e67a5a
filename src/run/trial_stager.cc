// trial_stager.cc — see trial_stager.h.
#include "run/trial_stager.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "gpusweep/experiment_files.h"
#include "gpusweep/trial.h"
#include "run/io_error.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStagedFiles[] = {TrialFiles::kParams, TrialFiles::kOutputLog};
// More than a few launches ahead buys nothing: staging runs while each launch's
// trial runs, and what is staged but never taken is removed again at the end.
constexpr int kMostAhead = 16;

// Removes a staged directory if it still holds nothing but the two empty files: what
// anyone else put there stays.
void RemoveIfUntouched(int dir_fd, const fs::path& dir) {
  for (const char* name : kStagedFiles) {
    struct stat info;
    if (::fstatat(dir_fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        (!S_ISREG(info.st_mode) || info.st_size != 0))
      return;
  }
  for (const char* name : kStagedFiles) ::unlinkat(dir_fd, name, 0);
  ::rmdir(dir.c_str());  // fails, keeping it, if anything else appeared in it
}

}  // namespace

void SpreadSubdirectories(const fs::path& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  int flags = 0;  // the kernel reads an int, whatever the ioctl's declared type says
  if (!fd.valid() || ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) != 0 || (flags & FS_TOPDIR_FL))
    return;
  flags |= FS_TOPDIR_FL;
  ::ioctl(fd.get(), FS_IOC_SETFLAGS, &flags);  // a hint: file systems without it refuse
}

Expected<UniqueFd> StageTrialDirectory(const fs::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0) return tl::unexpected(IoError(dir, "cannot create", errno));
  UniqueFd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return tl::unexpected(IoError(dir, "cannot open", errno));
  for (const char* name : kStagedFiles) {
    UniqueFd file(::openat(fd.get(), name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                           0644));
    if (!file.valid()) {
      const int err = errno;
      RemoveIfUntouched(fd.get(), dir);
      return tl::unexpected(IoError(dir / name, "cannot create", err));
    }
  }
  return fd;
}

TrialStager::TrialStager(fs::path trials_dir) : trials_dir_(std::move(trials_dir)) {}

TrialStager::~TrialStager() {
  for (auto& [number, staging] : staged_) RemoveUntaken(number, staging);
}

void TrialStager::StageNext(const std::vector<int>& queue, int count) {
  count = std::min(count, kMostAhead);
  if (!spread_asked_) {
    spread_asked_ = true;
    worker_.Submit([trials = trials_dir_]() -> Status {
      SpreadSubdirectories(trials);
      return {};
    });
  }
  for (auto it = queue.begin(); it != queue.end() && count > 0; ++it, --count) {
    const int number = *it;
    if (!asked_.insert(number).second) continue;
    auto dir = std::make_shared<UniqueFd>();
    std::future<Status> done = worker_.Submit(
        [trials = trials_dir_, number, dir]() -> Status {
          if (::mkdir(trials.c_str(), 0755) != 0 && errno != EEXIST)
            return tl::unexpected(IoError(trials, "cannot create", errno));
          GS_ASSIGN_OR_RETURN(*dir, StageTrialDirectory(trials / TrialDirName(number)));
          return {};
        });
    staged_.emplace(number, Staging{std::move(done), std::move(dir)});
  }
}

std::optional<UniqueFd> TrialStager::Take(int number) {
  auto it = staged_.find(number);
  if (it == staged_.end()) return std::nullopt;
  // Its directory exists (or not) for sure once the job ran: never two writers at once.
  const Status staged = it->second.done.get();
  std::shared_ptr<UniqueFd> dir = std::move(it->second.dir);
  staged_.erase(it);
  if (!staged) return std::nullopt;  // e.g. an earlier attempt's directory: the usual way
  return std::move(*dir);
}

void TrialStager::RemoveUntaken(int number, Staging& staging) {
  if (!staging.done.valid() || !staging.done.get() || !staging.dir->valid()) return;
  RemoveIfUntouched(staging.dir->get(), trials_dir_ / TrialDirName(number));
}

}  // namespace gpusweep
