// experiment_watch.cc — see experiment_watch.h.
#include "run/experiment_watch.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gpusweep {

Expected<ExperimentWatch> ExperimentWatch::Start(const std::filesystem::path& dir,
                                                 const std::filesystem::path& journal_name) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  struct stat dir_stat, journal_stat;
  if (!fd.valid() || ::fstat(fd.get(), &dir_stat) != 0 ||
      ::fstatat(fd.get(), journal_name.c_str(), &journal_stat, 0) != 0)
    return Fail(ErrorCode::kIo, fmt::format("{}: cannot open the experiment directory: {}",
                                            dir.string(), std::strerror(errno)));
  return ExperimentWatch(std::move(fd), dir, journal_name, {dir_stat.st_dev, dir_stat.st_ino},
                         {journal_stat.st_dev, journal_stat.st_ino});
}

Status ExperimentWatch::Check() const {
  struct stat info;
  if (::stat(dir_.c_str(), &info) != 0 || info.st_dev != dir_id_.device ||
      info.st_ino != dir_id_.inode)
    return Fail(ErrorCode::kIo,
                fmt::format("{}: the experiment directory was moved or deleted while gpusweep "
                            "ran it; stopping its trials (nothing more is recorded). Move it "
                            "back and run the same command again to resume",
                            dir_.string()));
  if (::fstatat(dir_fd_.get(), journal_name_.c_str(), &info, 0) != 0 ||
      info.st_dev != journal_id_.device || info.st_ino != journal_id_.inode)
    return Fail(ErrorCode::kIo,
                fmt::format("{}: the journal was deleted or replaced while gpusweep ran the "
                            "experiment; stopping its trials (nothing more is recorded). "
                            "Restore it from a backup to resume, or start a new experiment",
                            (dir_ / journal_name_).string()));
  return {};
}

}  // namespace gpusweep
