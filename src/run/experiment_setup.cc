#include "run/experiment_setup.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/experiment_meta.h"

#include "gpusweep/experiment_files.h"

namespace gpusweep {
namespace {

// The sampler key through which a sweep may grow, or nullopt. Trial k's params never
// depend on the total: random and sobol draw from (seed, k), tpe from (seed, k, the
// trials before k), a grid from k's repeat and grid index. So raising `trials` (or a
// grid's `repeats`) only appends trials and every recorded one stays valid. Successive
// halving's rounds are cohorts of all the configurations: more trials would change
// every round already run (and replaying its journal would diverge).
std::optional<std::string> GrowthKey(const Json& identity) {
  if (identity.contains("scheduler") &&
      identity["scheduler"].value("type", "") == "successive_halving")
    return std::nullopt;
  const Json& sampler = identity.at("sampler");
  if (sampler.value("type", "") == "grid") return "repeats";
  if (sampler.contains("trials")) return "trials";
  return std::nullopt;
}

// Growing may not drop planned or recorded trials. Returns "" when `total_trials` (this
// config's plan) keeps or raises the count, else the change to report, e.g.
// "sampler.trials (9 -> 7) [a sweep may only grow: trials must be at least 9]".
Expected<std::string> SweepShrinks(Journal& journal, const std::filesystem::path& dir,
                                   const std::string& key, const ExperimentConfig& config,
                                   int total_trials) {
  // Only the last recorded trial: loading all of them to read one number was the peak of
  // resuming a 100,000-trial sweep (issue 25).
  TrialQuery last;
  last.order = TrialQuery::Order::kNumberDescending;
  last.limit = 1;
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> latest, journal.QueryTrials(last));
  int planned = 0;
  if (Expected<ExperimentMeta> meta = ReadExperimentMeta(dir)) planned = meta->total_trials;
  if (!latest.empty()) planned = std::max(planned, latest.front().number + 1);
  if (total_trials >= planned) return std::string();
  if (key == "trials")
    return fmt::format("sampler.trials ({} -> {}) [a sweep may only grow: trials must be at "
                       "least {}]",
                       planned, config.sampler.trials, planned);
  return fmt::format("sampler.repeats (-> {}) [a sweep may only grow: it has {} trials planned "
                     "or recorded, this config plans {}]",
                     config.sampler.repeats, planned, total_trials);
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

Status CheckResumableWith(Journal& journal, const ExperimentRecord& existing,
                          const ExperimentConfig& config, const std::filesystem::path& dir,
                          int total_trials) {
  const Json identity = ConfigIdentity(config);
  std::vector<std::string> changed = DiffConfigIdentity(existing.identity, identity);
  const std::optional<std::string> growth = GrowthKey(existing.identity);
  if (growth && growth == GrowthKey(identity)) {
    // The count is judged against what the last run planned, not the identity stored
    // at creation: the sweep may have grown since.
    std::erase(changed, "sampler." + *growth);
    GS_ASSIGN_OR_RETURN(std::string shrunk,
                        SweepShrinks(journal, dir, *growth, config, total_trials));
    if (!shrunk.empty()) changed.push_back(shrunk);
  }
  if (!changed.empty()) {
    for (std::string& key : changed)
      if (key.find(' ') == std::string::npos)
        key = DescribeChange(existing.identity, identity, key);
    return Fail(ErrorCode::kConfigChanged,
                fmt::format("{}: the experiment in {} was run with a different config "
                            "(changed: {}); undo those changes to resume it, or start a new "
                            "experiment with --dir DIR or a new name",
                            config.config_path.string(), dir.string(), fmt::join(changed, ", ")));
  }
  return {};
}

Expected<OpenedExperiment> OpenExperimentForRun(const ExperimentConfig& config,
                                                const std::filesystem::path& dir,
                                                int total_trials, double now,
                                                double slow_disk_seconds) {
  std::error_code ec;
  // A bad warm_start source is a config error: found before anything is written.
  std::optional<WarmStartHistory> warm_start;
  if (config.warm_start && !std::filesystem::exists(ExperimentFiles{dir}.journal(), ec)) {
    GS_ASSIGN_OR_RETURN(warm_start, ReadWarmStartSource(config));
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: cannot create experiment directory: {}",
                                                  dir.string(), ec.message()));
  GS_ASSIGN_OR_RETURN(ExperimentLock lock, ExperimentLock::Acquire(dir));
  GS_ASSIGN_OR_RETURN(auto journal, OpenJournal(ExperimentFiles{dir}.journal(), JournalAccess::kReadWrite));
  journal = WithSlowDisk(std::move(journal), slow_disk_seconds);
  GS_ASSIGN_OR_RETURN(auto existing, journal->LoadExperiment());
  const Json identity = ConfigIdentity(config);
  const ExperimentMeta meta{config.name, config.metric, total_trials, config.config_path.string(),
                            SummarizeScheduler(config.scheduler), config.cv};
  if (!existing) {
    if (config.warm_start) {
      if (!warm_start) {  // a journal without an experiment: an earlier creation failed
        GS_ASSIGN_OR_RETURN(warm_start, ReadWarmStartSource(config));
      }
      GS_TRY(JournalWarmStart(*journal, *warm_start, now));
    }
    ExperimentRecord record{config.name, config.config_path.string(), config.yaml_text, identity,
                            now};
    GS_TRY(journal->CreateExperiment(record));
    GS_TRY(WriteExperimentMeta(dir, meta));
    return OpenedExperiment{std::move(lock), std::move(journal), false, std::move(warm_start)};
  }
  GS_TRY(CheckResumableWith(*journal, *existing, config, dir, total_trials));
  if (config.warm_start) {  // the journaled history, whatever the source holds now
    GS_ASSIGN_OR_RETURN(warm_start, LoadWarmStart(*journal));
    if (!warm_start)
      return Fail(ErrorCode::kJournal,
                  fmt::format("{}: the journal has no warm-start history although the experiment "
                              "was created with warm_start; start a new experiment",
                              dir.string()));
  }
  GS_TRY(WriteExperimentMeta(dir, meta));
  GS_TRY(journal->AppendEvent(now, "resumed", Json{{"config_path", config.config_path.string()}}));
  return OpenedExperiment{std::move(lock), std::move(journal), true, std::move(warm_start)};
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
