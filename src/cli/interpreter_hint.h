// interpreter_hint.h — points at the usual cause when trials fail to import a module:
// the `python3` a trial finds on PATH is not the interpreter the user's packages are in
// (a pyenv shim picks one per directory, and a trial runs in its own directory; a
// virtualenv active in another terminal; gpusweep started from cron or an IDE).
//
// Only when the failure text says a module is missing (ModuleNotFoundError, "No module
// named") and the command's program is a bare python name (python, python3, python3.11,
// ...) looked up on PATH: an absolute interpreter was chosen on purpose, and any other
// program's import errors are its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// The hint (one line, no trailing newline) for `failure_text`, or nullopt. `env` is the
// environment trials inherit (for its PATH; see ResolveExecutable), so the hint can name
// the file the program resolved to, e.g. "python3, which PATH resolves to
// /root/.pyenv/shims/python3".
std::optional<std::string> InterpreterHint(const ExperimentConfig& config,
                                           std::string_view failure_text,
                                           const std::vector<std::string>& env);

// InterpreterHint for the first failed trial of `trials` whose failure reason says a
// module is missing.
std::optional<std::string> InterpreterHint(const ExperimentConfig& config,
                                           const std::vector<TrialRecord>& trials,
                                           const std::vector<std::string>& env);

}  // namespace gpusweep
