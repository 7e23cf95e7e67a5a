// command.h — running a short client command (sbatch, squeue, scancel) and capturing
// what it prints.
//
// Contract: the child gets stdin /dev/null, an emptied signal mask and default signal
// dispositions (gpusweep blocks SIGINT/SIGTERM/SIGCHLD while it supervises trials, and a
// blocked mask would be inherited), and no other descriptors. Its stdout and stderr are
// captured (each up to kMaxOutputBytes; the rest is read and dropped). A command still
// running after `timeout_seconds` is killed (SIGKILL) and reported as timed out.
#pragma once

#include <string>
#include <vector>

#include "gpusweep/status.h"

namespace gpusweep {

struct CommandResult {
  int exit_code = 0;       // -1 if it was killed by a signal (or timed out)
  bool timed_out = false;
  std::string out;         // stdout
  std::string err;         // stderr
};

inline constexpr std::size_t kMaxOutputBytes = std::size_t{4} << 20;

// Runs argv (argv[0] looked up in the PATH of `env`) with environment `env`
// ("KEY=VALUE"). Error{kProcess} when it cannot start ("sbatch: command not found on
// PATH=..."); a command that runs and fails is a result with its exit code, not an error.
Expected<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env, double timeout_seconds);

// The last non-empty line of a command's stderr (or stdout), for error messages.
std::string LastLine(const CommandResult& result);

}  // namespace gpusweep
