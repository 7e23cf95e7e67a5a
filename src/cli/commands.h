// commands.h — the CLI's subcommands. Each returns the process exit code after printing
// its output to stdout; errors come back as Error for main() to print.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpusweep/status.h"

namespace gpusweep {

struct RunCommandArgs {
  std::string config_path;
  std::optional<std::string> dir;       // --dir
  std::optional<std::string> gpus;      // --gpus 0,2
  bool retry_failed = false;            // --retry-failed
};
// Exit: 0 when every trial finished and at least one completed; 1 when none completed;
// Error{kInterrupted} (exit 130) after Ctrl-C / SIGTERM.
Expected<int> RunCommand(const RunCommandArgs& args);

Expected<int> StatusCommand(const std::optional<std::string>& dir);
Expected<int> BestCommand(const std::optional<std::string>& dir);
enum class ExportFormat { kCsv, kJson };
Expected<int> ExportCommand(const std::optional<std::string>& dir, ExportFormat format,
                            const std::optional<std::string>& output_path);
Expected<int> ShowCommand(const std::string& trial_id, const std::optional<std::string>& dir);

}  // namespace gpusweep
