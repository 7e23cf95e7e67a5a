#include "run/experiment_setup.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/experiment_meta.h"

namespace gpusweep {
namespace {

bool IsRandom(const Json& identity) { return identity.at("sampler").value("type", "") == "random"; }

// Successive halving's rounds are cohorts of all the configurations: more trials would
// change every round already run (and replaying its journal would diverge).
bool MayGrow(const Json& identity) {
  return IsRandom(identity) &&
         !(identity.contains("scheduler") &&
           identity["scheduler"].value("type", "") == "successive_halving");
}

// Raising a random sweep's trial count only adds trials (trial k's params depend on the
// seed and k alone, so recorded ones stay valid); lowering it would orphan recorded or
// planned trials. Returns "" when `config` keeps or raises the count, else the change
// to report, e.g. "sampler.trials (9 -> 7) [a random sweep may only grow: ...]".
Expected<std::string> RandomSweepShrinks(Journal& journal, const std::filesystem::path& dir,
                                         const ExperimentRecord& existing,
                                         const ExperimentConfig& config) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, journal.LoadTrials());
  int planned = existing.identity["sampler"].value("trials", 0);
  if (Expected<ExperimentMeta> meta = ReadExperimentMeta(dir)) planned = meta->total_trials;
  if (!trials.empty()) planned = std::max(planned, trials.back().number + 1);
  if (config.sampler.trials >= planned) return std::string();
  return fmt::format("sampler.trials ({} -> {}) [a random sweep may only grow: trials must be "
                     "at least {}]",
                     planned, config.sampler.trials, planned);
}

// The value at a dotted key path such as "search_space.lr.high" or "command[2]";
// nullptr when the path does not lead to a value (e.g. "search_space.x (added)").
const Json* ValueAt(const Json& root, const std::string& key) {
  const Json* node = &root;
  std::size_t begin = 0;
  while (begin <= key.size()) {
    std::size_t end = key.find('.', begin);
    if (end == std::string::npos) end = key.size();
    std::string part = key.substr(begin, end - begin);
    std::optional<std::size_t> index;
    if (auto bracket = part.find('['); bracket != std::string::npos && part.back() == ']') {
      index = std::strtoul(part.c_str() + bracket + 1, nullptr, 10);
      part.resize(bracket);
    }
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (index) {
      if (!node->is_array() || *index >= node->size()) return nullptr;
      node = &(*node)[*index];
    }
    begin = end + 1;
  }
  return node;
}

// "search_space.lr.high (0.1 -> 0.2)" when both values are short enough to show.
std::string DescribeChange(const Json& before, const Json& after, const std::string& key) {
  constexpr std::size_t kMaxShown = 40;
  const Json* old_value = ValueAt(before, key);
  const Json* new_value = ValueAt(after, key);
  if (old_value == nullptr || new_value == nullptr) return key;
  const std::string old_text = old_value->dump();
  const std::string new_text = new_value->dump();
  if (old_text.size() > kMaxShown || new_text.size() > kMaxShown) return key;
  return fmt::format("{} ({} -> {})", key, old_text, new_text);
}

}  // namespace

Expected<OpenedExperiment> OpenExperimentForRun(const ExperimentConfig& config,
                                                const std::filesystem::path& dir,
                                                int total_trials, double now,
                                                double slow_disk_seconds) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: cannot create experiment directory: {}",
                                                  dir.string(), ec.message()));
  GS_ASSIGN_OR_RETURN(ExperimentLock lock, ExperimentLock::Acquire(dir));
  GS_ASSIGN_OR_RETURN(auto journal, OpenJournal(dir / "gpusweep.db", JournalAccess::kReadWrite));
  journal = WithSlowDisk(std::move(journal), slow_disk_seconds);
  GS_ASSIGN_OR_RETURN(auto existing, journal->LoadExperiment());
  const Json identity = ConfigIdentity(config);
  const ExperimentMeta meta{config.name, config.metric, total_trials, config.config_path.string(),
                            SummarizeScheduler(config.scheduler)};
  if (!existing) {
    ExperimentRecord record{config.name, config.config_path.string(), config.yaml_text, identity,
                            now};
    GS_TRY(journal->CreateExperiment(record));
    GS_TRY(WriteExperimentMeta(dir, meta));
    return OpenedExperiment{std::move(lock), std::move(journal), false};
  }
  std::vector<std::string> changed = DiffConfigIdentity(existing->identity, identity);
  if (MayGrow(existing->identity) && MayGrow(identity)) {
    // The trial count is judged against what the last run planned, not the identity
    // stored at creation: a random sweep may have grown since.
    std::erase(changed, "sampler.trials");
    GS_ASSIGN_OR_RETURN(std::string shrunk, RandomSweepShrinks(*journal, dir, *existing, config));
    if (!shrunk.empty()) changed.push_back(shrunk);
  }
  if (!changed.empty()) {
    for (std::string& key : changed)
      if (key.find(' ') == std::string::npos)
        key = DescribeChange(existing->identity, identity, key);
    return Fail(ErrorCode::kConfigChanged,
                fmt::format("{}: the experiment in {} was run with a different config "
                            "(changed: {}); undo those changes to resume it, or start a new "
                            "experiment with --dir DIR or a new name",
                            config.config_path.string(), dir.string(), fmt::join(changed, ", ")));
  }
  GS_TRY(WriteExperimentMeta(dir, meta));
  GS_TRY(journal->AppendEvent(now, "resumed", Json{{"config_path", config.config_path.string()}}));
  return OpenedExperiment{std::move(lock), std::move(journal), true};
}

Expected<int> RecoverAbandonedTrials(Journal& journal, std::vector<TrialRecord>& trials,
                                     double kill_grace_seconds, double now,
                                     const KillStaleGroupFn& kill_stale_group) {
  int recovered = 0;
  for (TrialRecord& trial : trials) {
    if (trial.state != TrialState::kRunning) continue;
    bool killed = trial.pid > 0 && kill_stale_group(trial.pid, trial.pid_start_ticks,
                                                    kill_grace_seconds);
    trial.state = TrialState::kInterrupted;
    trial.end_time = now;
    trial.failure_reason = killed ? "gpusweep stopped while it ran; its leftover processes were "
                                    "killed on resume"
                                  : "gpusweep stopped while it ran";
    GS_TRY(journal.FinishTrial(trial, {}));
    ++recovered;
  }
  return recovered;
}

}  // namespace gpusweep
