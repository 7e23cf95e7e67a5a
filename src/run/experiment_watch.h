// experiment_watch.h — noticing that the experiment directory changed under a run.
//
// A run holds its experiment directory open and remembers the identity (device and
// inode) of the directory and of its journal. If the directory is renamed or deleted,
// or the journal deleted or replaced, SQLite would go on writing to a file nobody can
// see any more and trial files would recreate the old path: the run must stop instead.
#pragma once

#include <sys/types.h>

#include <filesystem>

#include "common/unique_fd.h"
#include "gpusweep/status.h"

namespace gpusweep {

class ExperimentWatch {
 public:
  // Opens `dir` and records its identity and that of dir/`journal_name`.
  static Expected<ExperimentWatch> Start(const std::filesystem::path& dir,
                                         const std::filesystem::path& journal_name);

  // Error{kIo} naming what changed and what to do, when `dir` no longer names the
  // directory the run started in, or its journal is gone or another file. Two stat
  // calls: cheap enough for every loop iteration.
  Status Check() const;

 private:
  struct Identity {
    dev_t device = 0;
    ino_t inode = 0;
  };
  ExperimentWatch(UniqueFd dir_fd, std::filesystem::path dir, std::filesystem::path journal_name,
                  Identity dir_id, Identity journal_id)
      : dir_fd_(std::move(dir_fd)), dir_(std::move(dir)), journal_name_(std::move(journal_name)),
        dir_id_(dir_id), journal_id_(journal_id) {}

  UniqueFd dir_fd_;  // held open: the directory's inode stays ours even if renamed
  std::filesystem::path dir_;
  std::filesystem::path journal_name_;
  Identity dir_id_;
  Identity journal_id_;
};

}  // namespace gpusweep
