// experiment_view.h — the one read model of an experiment, shared by the front ends:
// cli (status, best, export, show) and web (serve, report) read an experiment only
// through it, so both see the same recorded config, trials and derived views.
//
// Contract:
// - Open reads experiment.json, opens the journal read-only (JournalAccess::kReadOnly:
//   it works while a run writes the journal, and where the reader cannot write) and
//   reads the journal's experiment row, each once; it never writes the experiment.
// - The reads below go to the journal each time they are called (a live run may have
//   committed since); the recorded config and experiment.json are as of Open.
// - Paths come from ExperimentFiles (gpusweep/experiment_files.h), never from strings.
// - Not thread-safe (one journal connection): a caller sharing one view between threads
//   serializes its calls (web's LiveExperiment holds a mutex).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/journal.h"
#include "gpusweep/json.h"
#include "gpusweep/nas.h"
#include "gpusweep/report.h"
#include "gpusweep/status.h"
#include "report/pareto_views.h"
#include "run/experiment_meta.h"
#include "view/pbt_lineage.h"

namespace gpusweep {

// Whether `dir` holds an experiment: its journal is a regular file. What the read
// commands and `serve` look for when they search directories.
bool HoldsExperiment(const std::filesystem::path& dir);

// The last `max_bytes` of `file` (a trial's output.log), from the first line start in
// them when the file is longer; a longer line without a newline is kept as its last
// `max_bytes`. Reads at most `max_bytes`, whatever the file's size (a 50 MB line is not
// read whole). O_NOFOLLOW; "" when missing, unreadable, a link or not a regular file.
// What `show` and the dashboard's trial view print of a trial's output.
std::string ReadLogTail(const std::filesystem::path& file, std::size_t max_bytes);
// The bytes both read: 16 KiB.
inline constexpr std::size_t kLogTailBytes = 16 * 1024;

class ExperimentView {
 public:
  // Errors, in this order: as ReadExperimentMeta (kNotFound without experiment.json),
  // OpenJournal (read-only) and Journal::LoadExperiment.
  static Expected<ExperimentView> Open(const std::filesystem::path& dir);

  const ExperimentFiles& files() const { return files_; }
  const std::filesystem::path& dir() const { return files_.dir; }
  const ExperimentMeta& meta() const { return meta_; }
  // The recorded config: the journal's experiment row (the YAML text as run, its path,
  // its identity); nullopt for a journal whose run has not recorded it yet.
  const std::optional<ExperimentRecord>& recorded() const { return recorded_; }
  // Whether the recorded config is a NAS search (docs/nas.md).
  bool is_nas() const;
  // The recorded config's declared search space (run/recorded_config.h): empty when its
  // YAML no longer parses where it ran (templates moved), meaning "no declared bounds".
  SearchSpace search_space() const;
  // A population-based training experiment's lineage so far (view/pbt_lineage.h), its
  // population from the recorded config; an empty lineage for any other experiment.
  Expected<PbtLineage> pbt_lineage();
  // The identity's search space as recorded ({} when none): what the Optuna export
  // declares as each param's distribution.
  Json search_space_json() const;
  // A NAS experiment's config as recorded; nullopt for any other experiment. Error when
  // the recorded NAS section no longer reads (NasConfigFromJson).
  Expected<std::optional<NasConfig>> nas_config() const;
  // The scheduler's step key, "budget" without a scheduler: what decisions call a budget.
  std::string resource() const;
  // The objective as recorded (the identity's metrics and constraints,
  // docs/config.md "Several objectives and constraints"); experiment.json's one metric
  // when the identity has no metrics (one objective, or a journal not recorded yet).
  Objective objective() const;
  // What the report module needs of this experiment (name, dir, metric, planned trials,
  // scheduler, cv, nas); the caller adds the terminal's colour, width and the time.
  ReportContext report_context() const;
  // Whether a gpusweep runs the experiment now (its lock is held; ExperimentLock::IsHeld).
  bool run_alive() const;

  // The journal's rows, read now.
  Expected<std::vector<TrialRecord>> Trials();  // ordered by number
  // The trials written after mark `after` (< 0: all), Journal::LoadTrialsChangedAfter's.
  Expected<ChangedTrials> TrialsChangedAfter(std::int64_t after);
  Expected<std::optional<TrialRecord>> Trial(int number);
  Expected<std::vector<TrialRecord>> QueryTrials(const TrialQuery& query);  // Journal's
  Expected<std::vector<IntermediateResult>> Results(int trial);
  // Every intermediate result of `trials`, trial by trial (the learning-curve exports).
  Expected<std::vector<IntermediateResult>> Results(const std::vector<TrialRecord>& trials);
  Expected<std::vector<SchedulerEventRecord>> SchedulerEvents(int trial);
  // Past `seq`, at most `limit` (< 0: all; Journal::LoadSchedulerEventsAfter).
  Expected<std::vector<SchedulerEventRecord>> SchedulerEventsAfter(std::int64_t seq,
                                                                   std::int64_t limit = -1);
  // The objective metric's reported values past `cursor`, at most `limit` of them
  // (Journal::LoadMetricPoints).
  Expected<std::vector<MetricPoint>> ObjectivePoints(std::int64_t cursor, std::int64_t limit);
  Expected<std::vector<Json>> Events(std::string_view kind);
  // Changes whenever a writer commits (Journal::DataVersion): when to read again.
  Expected<std::int64_t> DataVersion();
  // The journal itself, read-only, for readers of rows this view does not model (GPU
  // memory events, warm-start history); they take a Journal&.
  Journal& journal() { return *journal_; }

  // Derived views.
  // A running trial's objective is recorded only when it ends: gives each running trial
  // of `trials` the objective (and the rest of that report line: last_metrics) it last
  // reported in its current attempt, and returns the step of that report by trial.
  Expected<std::map<int, std::int64_t>> FillRunningObjectives(std::vector<TrialRecord>& trials);
  // The recorded folds of trial `number`'s configuration (cv), itself included; empty
  // without cv.
  Expected<std::vector<TrialRecord>> FoldSiblings(int number);
  // What `status` and `best` print, read by queries rather than every trial (issue 25;
  // TrialSlice in gpusweep/report.h): the counts, `rows` (unless nullopt) with running
  // trials' objectives filled (FillRunningObjectives; sorted by objective, the running
  // trials rank by those), the best trial, the best group (grouped ignoring `ignored`;
  // neither for a Pareto objective, SliceableByPareto), and the constants (names the rows, or the first trial, share, checked against every
  // trial). Only for experiments whose reports can use a slice (Sliceable()).
  struct SliceRead {
    TrialSlice slice;
    std::map<int, std::int64_t> running_steps;  // StatusOptions::running_steps
  };
  Expected<SliceRead> Slice(const std::optional<TrialQuery>& rows,
                            const std::vector<std::string>& ignored);
  // The run's summary (FormatSummary of a slice): Slice with the best `limit` (> 0)
  // ranked trials as rows and, with repeats, the trials of the best `limit` groups
  // (grouped ignoring GroupingOptions' default). Only when Sliceable().
  Expected<SliceRead> SummarySlice(int limit);
  // Whether the reports of this experiment can be formatted from a TrialSlice: not
  // ReadWhole(), and one objective without constraints (the queries rank by it). With a
  // scheduler the slice also holds what early stopping saved.
  bool Sliceable() const;
  // cv, NAS, population-based training: their reports need every trial.
  bool ReadWhole() const;
  // The same but for an objective ranked as a Pareto front (several objectives or
  // constraints): `status` formats a ParetoSlice.
  bool SliceableByPareto() const;
  // A Pareto objective's slice (SliceableByPareto): Slice's counts and constants (no best
  // trial or group: those rank by one metric), every completed trial's ranking row
  // (Journal::LoadRankingRows: its objectives' and constraints' metrics, nothing else)
  // ranked once (RankParetoRows: `ranked` has numbers, no records), and `rows` read as
  // Slice reads them, except that in objective order they are the ranking's (its trials
  // first, then the others by number, as status orders every trial), each read whole:
  // `limit` lookups. ~0.4 s and under 64 MB for two objectives at 100,000 trials, where
  // reading every trial took 2.1 s and 306 MB (issue 25).
  struct ParetoSliceRead {
    SliceRead read;
    std::vector<ParetoTrial> ranked;
  };
  Expected<ParetoSliceRead> ParetoSlice(const TrialQuery& rows, const std::vector<std::string>& ignored);

  // A NAS experiment's tournament replayed from `trials` with the recorded config;
  // nullopt for other experiments. Errors as nas_config().
  Expected<std::optional<NasProgress>> Nas(const std::vector<TrialRecord>& trials) const;

 private:
  // Slice's parts: the best trial and group, the constants.
  // Slice, and with repeats the trials of the best `groups_listed` groups (top_groups;
  // 0: none, the best group alone).
  Expected<SliceRead> Slice(const std::optional<TrialQuery>& rows,
                            const std::vector<std::string>& ignored, int groups_listed);
  Status SliceBest(TrialSlice& slice, const std::vector<std::string>& ignored, int groups_listed);
  Status SliceConstants(TrialSlice& slice);
  // ParetoSlice's rows in objective order: the first `limit` (0: all) of `state`'s.
  Expected<std::vector<TrialRecord>> ParetoOrderRows(const std::vector<ParetoTrial>& ranked,
                                                     std::optional<TrialState> state, int limit);

  ExperimentView(ExperimentFiles files, ExperimentMeta meta, std::unique_ptr<Journal> journal,
                 std::optional<ExperimentRecord> recorded);

  ExperimentFiles files_;
  ExperimentMeta meta_;
  std::unique_ptr<Journal> journal_;
  std::optional<ExperimentRecord> recorded_;
};

}  // namespace gpusweep
