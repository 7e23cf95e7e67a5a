// trial_stager.h — the next trials' directories, made before their slots free up.
//
// Creating a file or directory is the dearest step of a tiny trial's launch on some
// file systems (ext4 without a journal scans every recently deleted inode of the group
// before it reuses one: 0.1–1 ms per create on a busy machine, and a launch made three).
// The stager makes `trials/<k>/` with an empty `params.json` and `output.log` on a
// thread of its own while earlier trials run, so a freed slot launches its next trial
// without creating anything: params.json is filled in place, output.log opened for
// appending. Nothing else changes: params are still suggested (and the launch intent
// journaled) when the slot is free, so samplers see the same history.
//
// A staged directory no run took is harmless: it holds only those two empty files,
// which the next attempt's WriteTrialFiles overwrites (params.json) or keeps in place
// (an empty output.log has nothing to keep aside). The stager removes the ones it
// made and nobody took when it is destroyed; a kill -9 leaves them for the next run.
#pragma once

#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/unique_fd.h"
#include "run/serial_worker.h"

namespace gpusweep {

class TrialStager {
 public:
  // Trial k's directory is `trials_dir / TrialDirName(k)`.
  explicit TrialStager(std::filesystem::path trials_dir);
  // Waits for the staging in flight, then removes the directories nobody took (only
  // while they still hold nothing but the two empty files).
  ~TrialStager();
  TrialStager(const TrialStager&) = delete;
  TrialStager& operator=(const TrialStager&) = delete;

  // Stages the first `count` trials of `queue` that were not asked for before. A trial
  // whose directory exists already (an earlier attempt, a resume) is left alone.
  void StageNext(const std::vector<int>& queue, int count);
  // The directory of trial `number` (O_PATH), holding the two empty files, if it was
  // staged and that worked; waits for its staging if still in flight. Each trial is
  // taken once; nullopt means: write the trial directory the usual way.
  std::optional<UniqueFd> Take(int number);

 private:
  struct Staging {
    std::future<Status> done;
    std::shared_ptr<UniqueFd> dir;  // filled by the worker when `done` is ok
  };
  void RemoveUntaken(int number, Staging& staging);

  std::filesystem::path trials_dir_;
  std::map<int, Staging> staged_;  // asked for and not taken yet
  std::set<int> asked_;            // every trial ever asked for, taken or not
  bool spread_asked_ = false;      // SpreadSubdirectories(trials_dir_) submitted
  SerialWorker worker_;            // declared last: joined first
};

// Marks `dir` (best effort) with ext2/3/4's "top of directory hierarchies" hint
// (FS_TOPDIR_FL, `chattr +T`): its subdirectories are unrelated, so the allocator
// spreads them over the block groups with the fewest directories instead of packing
// them next to their parent. Trial directories are such, and on ext4 without a journal
// the difference is large: the parent's group is where a busy machine's temporary files
// come and go, and each create there first skips every inode deleted in the last minutes
// (400 tiny trials: 4.0–4.8 s packed, 1.5–1.9 s spread, measured back to back).
void SpreadSubdirectories(const std::filesystem::path& dir);

// Makes `dir` (which must not exist yet) with an empty params.json and output.log and
// returns it opened O_PATH. Error{kIo} if it exists or cannot be made; a partial
// staging is undone.
Expected<UniqueFd> StageTrialDirectory(const std::filesystem::path& dir);

}  // namespace gpusweep
