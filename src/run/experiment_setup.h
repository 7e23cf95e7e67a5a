// experiment_setup.h — creating or reopening an experiment directory for a run.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/journal.h"
#include "run/warm_start.h"

namespace gpusweep {

struct OpenedExperiment {
  ExperimentLock lock;               // held for the whole run
  std::unique_ptr<Journal> journal;
  bool resumed = false;              // the journal existed before this run
  // warm_start's history, from the source when the experiment is created (then
  // journaled), from the journal when it is resumed; nullopt without warm_start.
  std::optional<WarmStartHistory> warm_start;
};

// Creates <dir> and its journal, or reopens an existing one. Refuses (Error
// kAlreadyRunning) when another gpusweep holds the lock, and (kConfigChanged) when
// the config's identity differs from the journal's, naming each changed key; the one
// change allowed is growing the sweep to `total_trials` (raising `trials`, or a grid's
// `repeats`: it only adds trials), except under successive halving. Writes
// experiment.json (see experiment_meta.h) for the read-only commands. With warm_start,
// a new experiment reads its source (before writing anything when the directory has no
// journal yet) and journals the history before the experiment row (warm_start.h).
Expected<OpenedExperiment> OpenExperimentForRun(const ExperimentConfig& config,
                                                const std::filesystem::path& dir,
                                                int total_trials, double now,
                                                double slow_disk_seconds = 0);

// The check OpenExperimentForRun makes of an existing experiment (its row `existing`,
// read from `journal`) before resuming it with `config`: Error kConfigChanged naming each
// changed key, unless the one change is growing the sweep to `total_trials`. Reads only;
// `gpusweep check` makes it too.
Status CheckResumableWith(Journal& journal, const ExperimentRecord& existing,
                          const ExperimentConfig& config, const std::filesystem::path& dir,
                          int total_trials);

using KillStaleGroupFn = std::function<bool(int pid, std::uint64_t start_ticks, double grace)>;

// Trials a dead gpusweep left "running": stops any process group of theirs that still
// runs (same pid and start time, so never a stranger's), records them as interrupted,
// and returns how many there were. `trials` is updated in place.
Expected<int> RecoverAbandonedTrials(Journal& journal, std::vector<TrialRecord>& trials,
                                     double kill_grace_seconds, double now,
                                     const KillStaleGroupFn& kill_stale_group);

}  // namespace gpusweep
