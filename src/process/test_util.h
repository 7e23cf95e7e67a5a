// test_util.h — helpers shared by the process module's tests (real processes, temp dirs).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "process/process_runner.h"

namespace gpusweep::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Whole file content; "" if it cannot be read.
std::string ReadFile(const std::filesystem::path& path);

// Polls `condition` every 10 ms; true once it holds, false after `seconds`.
bool WaitUntil(const std::function<bool()>& condition, double seconds);

// /bin/sh -c `script`, PATH=/usr/bin:/bin only, cwd `dir`, log dir/"log".
SpawnRequest ShellRequest(const std::string& script, const std::filesystem::path& dir);

// Waits (repeatedly, up to `seconds`) until `pid` is reaped by `runner`.
std::optional<ProcessExit> WaitForExit(ProcessRunner& runner, ProcessId pid, double seconds);

// Waits until `runner` has no running child (up to `seconds`); every exit seen, by pid.
std::map<ProcessId, ProcessExit> WaitForAll(ProcessRunner& runner, double seconds);

}  // namespace gpusweep::testing
