// trial_env.h — the environment a trial process starts with.
//
// The parent's environment, plus the protocol variables of docs/protocol.md
// (GPUSWEEP_TRIAL_ID, GPUSWEEP_TRIAL_DIR, GPUSWEEP_PARAMS, GPUSWEEP_METRICS,
// PYTHONUNBUFFERED=1, the Python helper's folder first on PYTHONPATH) and the
// resource variables from TrialResourceEnv (CUDA_VISIBLE_DEVICES, thread counts).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpusweep/status.h"

namespace gpusweep {

using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// The current process's environment as "KEY=VALUE" strings.
std::vector<std::string> CurrentEnvironment();

// `base` ("KEY=VALUE") with every key of `overrides` replaced or added. Order: base
// order, new keys appended in override order.
std::vector<std::string> MergeEnv(const std::vector<std::string>& base, const EnvPairs& overrides);

// Value of `key` in a "KEY=VALUE" list, or nullopt.
std::optional<std::string> LookupEnv(const std::vector<std::string>& env, const std::string& key);

// Protocol variables for trial `number` in `trial_dir`; PYTHONPATH is
// python_helper_dir followed by the parent's PYTHONPATH (from `base`), if any.
EnvPairs ProtocolEnv(int number, const std::filesystem::path& trial_dir,
                     const std::filesystem::path& python_helper_dir,
                     const std::vector<std::string>& base);

// The executable `program` names for a trial started with `env` (looked up on its PATH
// when the name has no '/'), as the trial's spawn resolves it; Error{kProcess} ("command
// not found: foo (PATH=...)") otherwise. For front ends that explain a trial's failure
// (which python3 it ran).
Expected<std::filesystem::path> ResolveTrialProgram(const std::string& program,
                                                    const std::vector<std::string>& env);

}  // namespace gpusweep
