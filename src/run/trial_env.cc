#include "run/trial_env.h"

#include "gpusweep/cv.h"
#include "gpusweep/experiment_files.h"
#include "process/spawn.h"

#include <optional>
#include <unordered_map>

extern char** environ;

namespace gpusweep {

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry)
    env.emplace_back(*entry);
  return env;
}

std::optional<std::string> LookupEnv(const std::vector<std::string>& env, const std::string& key) {
  for (const std::string& entry : env)
    if (entry.size() > key.size() && entry.compare(0, key.size(), key) == 0 &&
        entry[key.size()] == '=')
      return entry.substr(key.size() + 1);
  return std::nullopt;
}

std::vector<std::string> MergeEnv(const std::vector<std::string>& base, const EnvPairs& overrides) {
  std::unordered_map<std::string, std::size_t> position;
  std::vector<std::string> merged;
  merged.reserve(base.size() + overrides.size());
  for (const std::string& entry : base) {
    std::string key = entry.substr(0, entry.find('='));
    auto [it, inserted] = position.emplace(key, merged.size());
    if (inserted) merged.push_back(entry);
    else merged[it->second] = entry;  // a duplicate key: the later one wins, like getenv
  }
  for (const auto& [key, value] : overrides) {
    auto [it, inserted] = position.emplace(key, merged.size());
    if (inserted) merged.push_back(key + "=" + value);
    else merged[it->second] = key + "=" + value;
  }
  return merged;
}

EnvPairs ProtocolEnv(int number, const std::filesystem::path& trial_dir,
                     const std::filesystem::path& python_helper_dir,
                     const std::vector<std::string>& base) {
  std::string python_path = python_helper_dir.string();
  if (auto inherited = LookupEnv(base, "PYTHONPATH"); inherited && !inherited->empty())
    python_path += ":" + *inherited;
  return {
      {"GPUSWEEP_TRIAL_ID", std::to_string(number)},
      {"GPUSWEEP_TRIAL_DIR", trial_dir.string()},
      {"GPUSWEEP_PARAMS", TrialFiles{trial_dir}.params().string()},
      {"GPUSWEEP_METRICS", TrialFiles{trial_dir}.metrics().string()},
      {"PYTHONUNBUFFERED", "1"},
      {"PYTHONPATH", python_path},
  };
}

Expected<std::filesystem::path> ResolveTrialProgram(const std::string& program,
                                                    const std::vector<std::string>& env) {
  return ResolveExecutable(program, env, "/");
}

}  // namespace gpusweep
