// checkpoint_copy.h — the loop's side of a policy whose jobs continue from checkpoints
// (SearchPolicy::checkpoints(), population-based training; docs/protocol.md).
//
// A trial's checkpoint is the directory TrialFiles::checkpoint() ($GPUSWEEP_CHECKPOINT_DIR).
// It is complete, and the trial's own, when its marker (gpusweep-checkpoint.json,
// written last) names the trial: {"trial": n, ...}. A copied-in checkpoint keeps its
// writer's marker, so a trial that saved nothing of its own is never taken for one that
// did.
#pragma once

#include <filesystem>

#include "gpusweep/status.h"

namespace gpusweep {

// Replaces `trial_dir`'s checkpoint with a copy of `parent_dir`'s: copied (files, not
// hard links: a trial that rewrites a file in place would otherwise change its donor's
// checkpoint) into checkpoint.incoming/ beside it, then renamed into place, so the
// trial sees the whole copy or none. Symbolic links are copied as links, never
// followed. A parent without a checkpoint directory leaves none (the trial starts
// fresh). `trial_dir` must exist. A leftover checkpoint.incoming/ (a kill -9 during a
// copy) is removed first.
// Error{kIo} naming the path when a copy, removal or rename fails.
Status CopyParentCheckpoint(const std::filesystem::path& parent_dir,
                            const std::filesystem::path& trial_dir);

// Removes `trial_dir`'s checkpoint (and a leftover checkpoint.incoming/): a job without
// a parent (a member's first segment) starts from nothing on every attempt, as one with
// a parent starts from its parent's, so no attempt resumes from half of an earlier one.
// Error{kIo} naming the path when a removal fails.
Status ClearCheckpoint(const std::filesystem::path& trial_dir);

// Whether `trial_dir` holds a complete checkpoint of trial `number` (the marker names
// it). Reads at most 64 KiB of the marker; never fails (anything wrong: false).
bool HasOwnCheckpoint(const std::filesystem::path& trial_dir, int number);

}  // namespace gpusweep
