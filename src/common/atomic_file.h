// atomic_file.h — a file that appears whole or not at all: written to a temporary name
// beside it, renamed into place by Commit.
//
// Contract:
// - Create opens "<path>.tmp.<pid>" (created or truncated, mode 0644, close-on-exec);
//   Write appends (EINTR retried); Commit closes and renames it over `path`.
// - Until Commit succeeds nothing at `path` changes; destroying an uncommitted file (an
//   error, an exception) removes the temporary one, so a failed write leaves nothing
//   half-written behind.
// - Errors (ErrorCode::kIo) name `path`, not the temporary name: "<path>: cannot
//   write: No space left on device".
// - No fsync: readers see the file whole or not at all, which is what the callers
//   (trial files, exports) need; durability is the journal's job.
#pragma once

#include <filesystem>
#include <string_view>

#include "common/unique_fd.h"
#include "gpusweep/status.h"

namespace gpusweep {

class AtomicFile {
 public:
  static Expected<AtomicFile> Create(const std::filesystem::path& path);
  AtomicFile(AtomicFile&&) noexcept = default;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  Status Write(std::string_view text);
  Status Commit();

 private:
  AtomicFile(std::filesystem::path path, std::filesystem::path temp, UniqueFd fd)
      : path_(std::move(path)), temp_(std::move(temp)), fd_(std::move(fd)) {}
  Status Abandon(std::string_view what, int err);  // closes, removes the temporary, errs

  std::filesystem::path path_, temp_;
  UniqueFd fd_;  // invalid once committed or failed (then temp_ is already removed)
};

// The whole of `text` at `path`, atomically: Create, Write, Commit.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view text);

}  // namespace gpusweep
