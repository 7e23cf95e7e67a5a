// verdict_file.h — gpusweep's answers to a trial's reports (verdicts.jsonl).
//
// Contract (docs/protocol.md, "Waiting for the verdict"): with an iterative scheduler,
// each metrics line the scheduler judges (it holds the resource and the metric as
// numbers) gets one JSON line here, appended in the order the lines were read, before
// any stop signal is sent:
//   {"resource":3,"verdict":"stop","rung":1,"reason":"rank 4 of 9 at rung 1 (epoch 3): ..."}
// A trial that waits after a report polls this file for a line whose resource is at
// least the one it reported (or any "stop", which is final). The file is created empty
// (truncated) for every attempt, before the trial starts, so a reader never sees an
// earlier attempt's answers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/unique_fd.h"
#include "gpusweep/scheduler.h"
#include "gpusweep/status.h"

namespace gpusweep {

class VerdictFile {
 public:
  // Creates (or truncates) `path`, refusing to follow a symlink there.
  // Error{kIo} naming the path when it cannot be opened.
  static Expected<VerdictFile> Create(const std::filesystem::path& path);
  // Opens an existing `path` to append to it (a re-attached job's, whose answers so
  // far stay), refusing to follow a symlink. Error{kIo} when it cannot be opened.
  static Expected<VerdictFile> Reopen(const std::filesystem::path& path);

  // Appends the answer to a report at `resource`: `decision` when the scheduler made one
  // there, else "continue" (no decision is needed to continue). One write() per line,
  // so a reader never sees half of it. Error{kIo} when the write fails.
  Status Append(double resource, const std::optional<Decision>& decision);

  const std::filesystem::path& path() const { return path_; }

 private:
  VerdictFile(std::filesystem::path path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}

  std::filesystem::path path_;
  UniqueFd fd_;
};

// The JSON line (without newline) VerdictFile::Append writes.
std::string VerdictLine(double resource, const std::optional<Decision>& decision);

}  // namespace gpusweep
