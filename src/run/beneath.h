// beneath.h — writing inside a trial directory without following symbolic links out
// of it. A trial owns its directory and may leave links there (a previous attempt, a
// training script, a hostile one): gpusweep's own writes (params.json, rendered
// templates, the moves of a previous attempt's files) must never land outside it.
// Paths are resolved with openat2(RESOLVE_BENEATH) where the kernel has it (5.6+),
// else one component at a time with O_NOFOLLOW (then no link at all is followed).
#pragma once

#include <filesystem>
#include <string>

#include "common/unique_fd.h"
#include "gpusweep/status.h"

namespace gpusweep {

// Whether OpenOwnDirectory made the directory (so it holds nothing yet) or found it.
enum class DirectoryOrigin { kCreated, kExisted };

// Creates `dir` if missing (its parent must exist) and opens it; Error{kIo} when it is
// a symbolic link or not a directory. `origin`, if given, says which.
Expected<UniqueFd> OpenOwnDirectory(const std::filesystem::path& dir,
                                    DirectoryOrigin* origin = nullptr);

// mkdir -p of `relative` (no "..", not absolute) beneath the directory `root`, never
// leaving it; returns the last directory opened. `shown` names root in errors.
Expected<UniqueFd> MakeDirectoriesBeneath(int root, const std::filesystem::path& relative,
                                          const std::filesystem::path& shown);

// Writes `text` to `name` in directory `dir` atomically (temp file + renameat): a link
// named `name` is replaced, never followed. Error{kIo} naming `shown`.
Status WriteFileAt(int dir, const std::string& name, const std::string& text,
                   const std::filesystem::path& shown);
// Creates `name` (O_CREAT|O_EXCL|O_NOFOLLOW: an existing file or link is an error) and
// writes `text` in place; removed again on failure. For a directory gpusweep has just
// created (nothing there, nobody reading it yet). A kill -9 halfway leaves a partial
// file in a directory that the next attempt finds existing, so it writes through
// WriteFileAt.
Status WriteNewFileAt(int dir, const std::string& name, const std::string& text,
                      const std::filesystem::path& shown);

// Writes `text` into the existing, empty regular file `name` (never a link), in place:
// for a staged trial directory (trial_stager.h), whose files were made ahead of the
// launch so that none is created on its critical path. Nobody reads it yet; a kill -9
// halfway leaves a directory the next attempt finds existing, as with WriteNewFileAt.
Status WriteStagedFileAt(int dir, const std::string& name, const std::string& text,
                         const std::filesystem::path& shown);

// Renames `from` to `to` inside `dir` when `from` exists (a link is moved, not followed).
Status MoveAsideAt(int dir, const std::string& from, const std::string& to,
                   const std::filesystem::path& shown);

}  // namespace gpusweep
