#include "cli/interpreter_hint.h"

#include <filesystem>

#include <fmt/format.h>

#include "run/trial_env.h"

namespace gpusweep {
namespace {

bool SaysModuleMissing(std::string_view text) {
  return text.find("ModuleNotFoundError") != std::string_view::npos ||
         text.find("No module named") != std::string_view::npos;
}

// The program the command starts, as written: command[0], or the first word of a shell
// command. Empty when it is a template (rendered per trial) or there is none.
std::string ProgramName(const ExperimentConfig& config) {
  std::string program;
  if (config.shell) {
    const std::size_t begin = config.shell_command.find_first_not_of(" \t\n");
    if (begin == std::string::npos) return "";
    const std::size_t end = config.shell_command.find_first_of(" \t\n;|&", begin);
    program = config.shell_command.substr(begin, end - begin);
  } else if (!config.command.empty()) {
    program = config.command.front();
  }
  return program.find("{{") == std::string::npos ? program : "";
}

// python, python3, python3.11 — but not /usr/bin/python3 (chosen on purpose) nor
// pytest or a script of the user's own.
bool IsBarePythonName(std::string_view program) {
  if (program.substr(0, 6) != "python") return false;
  for (char c : program.substr(6))
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  return true;
}

}  // namespace

std::optional<std::string> InterpreterHint(const ExperimentConfig& config,
                                           std::string_view failure_text,
                                           const std::vector<std::string>& env) {
  if (!SaysModuleMissing(failure_text)) return std::nullopt;
  const std::string program = ProgramName(config);
  if (!IsBarePythonName(program)) return std::nullopt;
  const Expected<std::filesystem::path> resolved = ResolveTrialProgram(program, env);
  const std::string where =
      resolved ? fmt::format("{}, which PATH resolves to {}", program, resolved->string())
               : fmt::format("{}, looked up on PATH", program);
  return fmt::format(
      "hint: a module is missing and the trials run {}: that may not be the interpreter "
      "your packages are installed in (a pyenv shim picks one by the trial's directory; a "
      "virtualenv must be active where gpusweep starts); pin it with its absolute path in "
      "command:, e.g. what `{} -c 'import sys; print(sys.executable)'` prints in the "
      "shell where your imports work (docs/protocol.md, \"Which python3 a trial runs\")",
      where, program);
}

std::optional<std::string> InterpreterHint(const ExperimentConfig& config,
                                           const std::vector<TrialRecord>& trials,
                                           const std::vector<std::string>& env) {
  for (const TrialRecord& trial : trials)
    if (trial.state == TrialState::kFailed && SaysModuleMissing(trial.failure_reason))
      return InterpreterHint(config, trial.failure_reason, env);
  return std::nullopt;
}

}  // namespace gpusweep
