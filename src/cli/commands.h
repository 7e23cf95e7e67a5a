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
  std::optional<std::string> backend;   // --backend local|slurm (overrides backend.type)
};
// Exit: 0 when every trial finished and at least one completed; 1 when none completed;
// Error{kInterrupted} (exit 130) after Ctrl-C / SIGTERM.
Expected<int> RunCommand(const RunCommandArgs& args);

struct CheckCommandArgs {
  std::string config_path;
  std::optional<std::string> dir;   // --dir, as run's (only printed)
  std::optional<std::string> gpus;  // --gpus 0,2, as run's
  int trials = 5;                   // --trials N: how many first trials to show
};
// `gpusweep check`: validates as `run` would and prints the plan; writes nothing.
// Exit 0; a bad config is Error{kInvalidConfig} (exit 2), as for run.
Expected<int> CheckCommand(const CheckCommandArgs& args);

struct StatusCommandArgs {
  std::optional<std::string> dir;
  std::optional<std::string> sort;   // --sort number|duration|objective|<metric>|<param>
  int top = 0;                       // --top N (sorts by objective unless --sort says)
  std::optional<std::string> state;  // --state completed|pruned|...
  bool group = false;                // --group: one row per group of the same params
  bool all = false;                  // --all: every row, beyond kStatusDefaultRows too
  std::vector<std::string> ignore{"seed"};  // --ignore NAME: params left out of grouping
};
// Error{kInvalidArgument} naming the choices for an unknown --sort key, --state or
// --ignore name (best too).
Expected<int> StatusCommand(const StatusCommandArgs& args);
struct BestCommandArgs {
  std::optional<std::string> dir;
  bool single = false;                      // --single: the best single trial
  bool json = false;                        // --json: the Pareto front as JSON
  bool replay = false;                      // --replay: a config replaying the best PBT schedule
  std::vector<std::string> ignore{"seed"};  // --ignore NAME: params left out of grouping
};
Expected<int> BestCommand(const BestCommandArgs& args);
enum class ExportFormat { kCsv, kJson, kOptuna };
enum class ExportRows { kTrials, kSteps };  // --steps: one row per reported line
Expected<int> ExportCommand(const std::optional<std::string>& dir, ExportFormat format,
                            ExportRows rows, const std::optional<std::string>& output_path);
Expected<int> ShowCommand(const std::string& trial_id, const std::optional<std::string>& dir);

struct ServeCommandArgs {
  std::vector<std::string> dirs;  // experiment dirs or dirs of them; default ./runs or .
  std::string host = "127.0.0.1";
  int port = 8080;                  // 0: any free port (the printed URL names it)
  std::optional<std::string> token; // required off loopback; generated when absent there
};
// Serves the dashboard until SIGINT/SIGTERM; prints the URL (with the token) first.
Expected<int> ServeCommand(const ServeCommandArgs& args);
// Writes the self-contained HTML report of one experiment to `output`.
Expected<int> ReportCommand(const std::optional<std::string>& dir, const std::string& output);

// `gpusweep doctor`: what this machine gives gpusweep (run/doctor.h), with what to do
// about each missing piece. 0 whatever is missing; an Error only when stdout fails.
Expected<int> DoctorCommand();

// Writes `text` to stdout, or atomically to `output_path`; 0, or Error{kIo} /
// Error{kOutputClosed}. (The hidden help-man and help-completion commands.)
Expected<int> PrintText(const std::string& text, const std::optional<std::string>& output_path);

}  // namespace gpusweep
