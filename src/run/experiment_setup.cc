#include "run/experiment_setup.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "run/experiment_meta.h"

namespace gpusweep {

Expected<OpenedExperiment> OpenExperimentForRun(const ExperimentConfig& config,
                                                const std::filesystem::path& dir,
                                                int total_trials, double now) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: cannot create experiment directory: {}",
                                                  dir.string(), ec.message()));
  GS_ASSIGN_OR_RETURN(ExperimentLock lock, ExperimentLock::Acquire(dir));
  GS_ASSIGN_OR_RETURN(auto journal, OpenJournal(dir / "gpusweep.db", JournalAccess::kReadWrite));
  GS_ASSIGN_OR_RETURN(auto existing, journal->LoadExperiment());
  const Json identity = ConfigIdentity(config);
  const ExperimentMeta meta{config.name, config.metric, total_trials, config.config_path.string()};
  if (!existing) {
    ExperimentRecord record{config.name, config.config_path.string(), config.yaml_text, identity,
                            now};
    GS_TRY(journal->CreateExperiment(record));
    GS_TRY(WriteExperimentMeta(dir, meta));
    return OpenedExperiment{std::move(lock), std::move(journal), false};
  }
  std::vector<std::string> changed = DiffConfigIdentity(existing->identity, identity);
  if (!changed.empty())
    return Fail(ErrorCode::kConfigChanged,
                fmt::format("{}: the experiment in {} was created from a different config "
                            "(changed: {}); restore the original config ({}), or run it as a new "
                            "experiment with --dir or a new name",
                            config.config_path.string(), dir.string(), fmt::join(changed, ", "),
                            existing->config_path));
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
