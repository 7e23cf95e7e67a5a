// cli_harness.h — starting the gpusweep binary from tests and inspecting /proc.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gpusweep::testing {

struct CommandResult {
  int exit_code = -1;  // 128 + signal if killed by one
  std::string out;     // stdout and stderr together
};

// Runs gpusweep with `args` in `cwd` to completion.
CommandResult RunGpusweep(const std::vector<std::string>& args, const std::filesystem::path& cwd);

// Runs gpusweep with `args` in `cwd` with its stdout and stderr a pseudo-terminal (as
// in an interactive shell, COLUMNS=200; the terminal turns "\n" into "\r\n").
CommandResult RunGpusweepInTerminal(const std::vector<std::string>& args,
                                    const std::filesystem::path& cwd);

// Starts gpusweep in the background (own process group, like a shell job); its output
// goes to `log`. Returns its pid.
pid_t StartGpusweep(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                    const std::filesystem::path& log);

// Waits for `pid` (a child of this process): its exit code, or 128 + signal.
int WaitExit(pid_t pid);

// Pids of live (not zombie) processes whose environment has GPUSWEEP_TRIAL_DIR under
// `experiment_dir`: every process of every trial, including grandchildren.
std::vector<pid_t> LiveTrialProcesses(const std::filesystem::path& experiment_dir);

// Polls `condition` every 50 ms until it holds or `seconds` pass.
bool WaitUntil(double seconds, const std::function<bool()>& condition);

}  // namespace gpusweep::testing
