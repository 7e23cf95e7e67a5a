#include "view/experiment_view.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <utility>

#include "gpusweep/cv.h"
#include "gpusweep/objective.h"
#include "run/recorded_config.h"

namespace gpusweep {

bool HoldsExperiment(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(ExperimentFiles{dir}.journal(), ec);
}

ExperimentView::ExperimentView(ExperimentFiles files, ExperimentMeta meta,
                               std::unique_ptr<Journal> journal,
                               std::optional<ExperimentRecord> recorded)
    : files_(std::move(files)),
      meta_(std::move(meta)),
      journal_(std::move(journal)),
      recorded_(std::move(recorded)) {}

Expected<ExperimentView> ExperimentView::Open(const std::filesystem::path& dir) {
  ExperimentFiles files{dir};
  GS_ASSIGN_OR_RETURN(ExperimentMeta meta, ReadExperimentMeta(files.dir));
  GS_ASSIGN_OR_RETURN(std::unique_ptr<Journal> journal,
                      OpenJournal(files.journal(), JournalAccess::kReadOnly));
  GS_ASSIGN_OR_RETURN(std::optional<ExperimentRecord> recorded, journal->LoadExperiment());
  return ExperimentView(std::move(files), std::move(meta), std::move(journal), std::move(recorded));
}

bool ExperimentView::is_nas() const { return recorded_ && recorded_->identity.contains("nas"); }

Expected<PbtLineage> ExperimentView::pbt_lineage() {
  if (!meta().scheduler || meta().scheduler->type != "pbt") return PbtLineage{};
  GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events, SchedulerEventsAfter(-1));
  return ReadPbtLineage(events, recorded_ ? RecordedPbtPopulation(*recorded_) : 0);
}

SearchSpace ExperimentView::search_space() const {
  return recorded_ ? RecordedSearchSpace(*recorded_) : SearchSpace{};
}

Json ExperimentView::search_space_json() const {
  return recorded_ ? recorded_->identity.value("search_space", Json::object()) : Json::object();
}

Expected<std::optional<NasConfig>> ExperimentView::nas_config() const {
  if (!is_nas()) return std::nullopt;
  GS_ASSIGN_OR_RETURN(NasConfig config, NasConfigFromJson(recorded_->identity["nas"]));
  return config;
}

std::string ExperimentView::resource() const {
  return meta_.scheduler ? meta_.scheduler->resource : "budget";
}

Objective ExperimentView::objective() const {
  std::vector<MetricSpec> metrics;
  std::vector<ConstraintSpec> constraints;
  const Json identity = recorded_ ? recorded_->identity : Json::object();
  const auto mode_of = [](const Json& m) { return m.value("mode", "max") == "min" ? Mode::kMin : Mode::kMax; };
  if (const auto it = identity.find("metrics"); it != identity.end() && it->is_array())
    for (const Json& m : *it)
      if (m.is_object() && m.contains("name") && m["name"].is_string())
        metrics.push_back({m["name"].get<std::string>(), mode_of(m)});
  if (const auto it = identity.find("constraints"); it != identity.end() && it->is_array())
    for (const Json& c : *it) {
      if (!c.is_object() || !c.contains("metric") || !c["metric"].is_string()) continue;
      ConstraintSpec spec{c["metric"].get<std::string>(), std::nullopt, std::nullopt};
      if (c.contains("min") && c["min"].is_number()) spec.min = c["min"].get<double>();
      if (c.contains("max") && c["max"].is_number()) spec.max = c["max"].get<double>();
      if (spec.min || spec.max) constraints.push_back(std::move(spec));
    }
  if (metrics.empty()) return Objective(meta_.metric, std::move(constraints));
  return Objective(std::move(metrics), std::move(constraints));
}

ReportContext ExperimentView::report_context() const {
  ReportContext context;
  context.experiment_name = meta_.name;
  context.experiment_dir = files_.dir;
  context.metric = meta_.metric;
  context.total_trials = meta_.total_trials;
  context.scheduler = meta_.scheduler;
  context.cv = meta_.cv;
  context.nas = is_nas();
  if (Objective kept = objective(); kept.multi() || kept.constrained()) {
    if (kept.multi() && recorded_)
      if (std::vector<double> reference = RecordedHypervolumeReference(*recorded_);
          reference.size() == kept.size())
        context.hypervolume_reference = std::move(reference);
    context.pareto = std::move(kept);
  }
  return context;
}

bool ExperimentView::run_alive() const { return ExperimentLock::IsHeld(files_.dir); }

Expected<std::vector<TrialRecord>> ExperimentView::Trials() { return journal_->LoadTrials(); }
Expected<ChangedTrials> ExperimentView::TrialsChangedAfter(std::int64_t after) {
  return journal_->LoadTrialsChangedAfter(after);
}

Expected<std::optional<TrialRecord>> ExperimentView::Trial(int number) {
  return journal_->LoadTrial(number);
}

Expected<std::vector<TrialRecord>> ExperimentView::QueryTrials(const TrialQuery& query) {
  return journal_->QueryTrials(query);
}

Expected<std::vector<IntermediateResult>> ExperimentView::Results(int trial) {
  return journal_->LoadResults(trial);
}

Expected<std::vector<IntermediateResult>> ExperimentView::Results(
    const std::vector<TrialRecord>& trials) {
  std::vector<IntermediateResult> all;
  for (const TrialRecord& t : trials) {
    GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> lines, journal_->LoadResults(t.number));
    all.insert(all.end(), std::make_move_iterator(lines.begin()), std::make_move_iterator(lines.end()));
  }
  return all;
}

Expected<std::vector<SchedulerEventRecord>> ExperimentView::SchedulerEvents(int trial) {
  return journal_->LoadSchedulerEvents(trial);
}

Expected<std::vector<SchedulerEventRecord>> ExperimentView::SchedulerEventsAfter(std::int64_t seq,
                                                                              std::int64_t limit) {
  return journal_->LoadSchedulerEventsAfter(seq, limit);
}

Expected<std::vector<MetricPoint>> ExperimentView::ObjectivePoints(std::int64_t cursor,
                                                                   std::int64_t limit) {
  return journal_->LoadMetricPoints(meta_.metric.name, cursor, limit);
}

Expected<std::vector<Json>> ExperimentView::Events(std::string_view kind) {
  return journal_->LoadEvents(kind);
}

Expected<std::int64_t> ExperimentView::DataVersion() { return journal_->DataVersion(); }

Expected<std::map<int, std::int64_t>> ExperimentView::FillRunningObjectives(
    std::vector<TrialRecord>& trials) {
  std::map<int, std::int64_t> steps;
  for (TrialRecord& trial : trials) {
    if (trial.state != TrialState::kRunning) continue;
    GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> results, journal_->LoadResults(trial.number));
    // The latest line of this attempt that reported the objective: its step and the
    // rest of its values go with the value, so a row never mixes two reports.
    for (auto it = results.rbegin(); it != results.rend(); ++it) {
      auto value = it->values.find(meta_.metric.name);
      if (it->attempt == trial.attempt && value != it->values.end() && value->is_number()) {
        trial.objective = value->get<double>();
        trial.last_metrics = it->values;
        steps[trial.number] = it->step;
        break;
      }
    }
  }
  return steps;
}

Expected<std::vector<TrialRecord>> ExperimentView::FoldSiblings(int number) {
  std::vector<TrialRecord> siblings;
  const int folds = meta_.cv.folds;
  if (folds <= 0) return siblings;
  const int first = FoldTrialNumber(FoldOf(number, folds).configuration, 0, folds);
  for (int n = first; n < first + folds; ++n) {
    GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> fold, journal_->LoadTrial(n));
    if (fold) siblings.push_back(std::move(*fold));
  }
  return siblings;
}

namespace {

// A param of a trial: its flattened name (FlattenParams: dotted), the names that lead to
// it, its value.
struct ViewParamLeaf {
  std::string name;
  std::vector<std::string> path;
  Json value;
};

// FlattenParams, keeping each leaf's path (the names of the nested objects).
void ViewFlattenWithPaths(const Json& params, std::vector<std::string>& path,
                          std::vector<ViewParamLeaf>& leaves) {
  for (const auto& [key, value] : params.items()) {
    path.push_back(key);
    if (value.is_object() && !value.empty()) {
      ViewFlattenWithPaths(value, path, leaves);
    } else {
      std::string name;
      for (const std::string& part : path) name += (name.empty() ? "" : ".") + part;
      leaves.push_back({std::move(name), path, value});
    }
    path.pop_back();
  }
}

// The params every one of `trials` holds with one value, in the first trial's order.
std::vector<ViewParamLeaf> ViewSharedParams(const std::vector<TrialRecord>& trials) {
  std::vector<ViewParamLeaf> leaves;
  if (trials.empty() || !trials.front().params.is_object()) return leaves;
  std::vector<std::string> path;
  ViewFlattenWithPaths(trials.front().params, path, leaves);
  std::erase_if(leaves, [&](const ViewParamLeaf& leaf) {
    return std::any_of(trials.begin() + 1, trials.end(), [&](const TrialRecord& t) {
      const Json* at = &t.params;
      for (const std::string& name : leaf.path) {
        if (!at->is_object() || !at->contains(name)) return true;
        at = &(*at)[name];
      }
      return *at != leaf.value;
    });
  });
  return leaves;
}

}  // namespace

// A population-based training experiment's status and best follow each member's
// lineage over every segment (PbtPopulationLines): read whole. Other schedulers' reports
// differ from a plain sweep's by the Stopped line (Journal::SumPrunedProgress) and the
// rows' resource column (in the rows read).
bool ExperimentView::ReadWhole() const {
  return meta_.cv.enabled() || is_nas() || (meta_.scheduler && meta_.scheduler->type == "pbt");
}

bool ExperimentView::Sliceable() const {
  if (ReadWhole()) return false;
  // The queries rank by one metric; a Pareto front (several objectives, or constraints
  // that make trials infeasible) is computed over every completed trial.
  const Objective ranked = objective();
  return !ranked.multi() && !ranked.constrained();
}

bool ExperimentView::SliceableByPareto() const {
  if (ReadWhole()) return false;
  const Objective ranked = objective();
  return ranked.multi() || ranked.constrained();
}

Expected<ExperimentView::SliceRead> ExperimentView::Slice(const std::optional<TrialQuery>& rows,
                                                          const std::vector<std::string>& ignored) {
  return Slice(rows, ignored, 0);
}

Expected<ExperimentView::SliceRead> ExperimentView::Slice(const std::optional<TrialQuery>& rows,
                                                          const std::vector<std::string>& ignored,
                                                          int groups_listed) {
  SliceRead read;
  TrialSlice& slice = read.slice;
  const Mode mode = meta_.metric.mode;
  GS_ASSIGN_OR_RETURN(slice.counts, journal_->CountTrials());
  if (rows) {
    GS_ASSIGN_OR_RETURN(slice.rows, journal_->QueryTrials(*rows));
    const bool by_objective = rows->order == TrialQuery::Order::kObjective;
    if (by_objective && slice.counts.running > 0 &&
        (!rows->state || *rows->state == TrialState::kRunning) && !rows->ranked_only) {
      // A running trial ranks by the value it reported so far, which the journal's
      // objective column does not hold: rank them in with the rows, as status does.
      TrialQuery running_query{TrialQuery::Order::kNumber, mode, TrialState::kRunning, false, 0};
      GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> running, journal_->QueryTrials(running_query));
      std::erase_if(slice.rows, [](const TrialRecord& t) { return t.state == TrialState::kRunning; });
      slice.rows.insert(slice.rows.end(), std::make_move_iterator(running.begin()),
                        std::make_move_iterator(running.end()));
    }
    GS_ASSIGN_OR_RETURN(read.running_steps, FillRunningObjectives(slice.rows));
    if (by_objective) {
      std::stable_sort(slice.rows.begin(), slice.rows.end(),
                       [](const TrialRecord& a, const TrialRecord& b) { return a.number < b.number; });
      std::stable_sort(slice.rows.begin(), slice.rows.end(),
                       [mode](const TrialRecord& a, const TrialRecord& b) {
                         return RanksBefore(mode, a.objective, b.objective);
                       });
      if (rows->limit > 0 && slice.rows.size() > static_cast<size_t>(rows->limit))
        slice.rows.resize(static_cast<size_t>(rows->limit));
    }
    if (rows->order == TrialQuery::Order::kNumberDescending)
      std::reverse(slice.rows.begin(), slice.rows.end());  // listed oldest first
  }
  GS_TRY(SliceBest(slice, ignored, groups_listed));
  GS_TRY(SliceConstants(slice));
  if (meta_.scheduler) {
    GS_ASSIGN_OR_RETURN(slice.early_stopping,
                        journal_->SumPrunedProgress(meta_.scheduler->resource,
                                                    meta_.scheduler->max_resource));
  }
  return read;
}

Expected<ExperimentView::SliceRead> ExperimentView::SummarySlice(int limit) {
  assert(Sliceable() && limit > 0);
  return Slice(TrialQuery{TrialQuery::Order::kObjective, meta_.metric.mode, std::nullopt,
                          /*ranked_only=*/true, limit},
               GroupingOptions{}.ignored, limit);
}

Expected<ExperimentView::ParetoSliceRead> ExperimentView::ParetoSlice(
    const TrialQuery& rows, const std::vector<std::string>& ignored) {
  assert(SliceableByPareto());
  ParetoSliceRead pareto;
  const Objective ranking = objective();
  {
    GS_ASSIGN_OR_RETURN(const RankingRows rows, journal_->LoadRankingRows(ranking.MetricNames()));
    pareto.ranked = RankParetoRows(rows, ranking);
  }  // the rows freed before the listed trials are read
  const bool by_rank = rows.order == TrialQuery::Order::kObjective;
  GS_ASSIGN_OR_RETURN(pareto.read, Slice(by_rank ? std::nullopt : std::optional<TrialQuery>(rows), ignored));
  if (by_rank) {
    GS_ASSIGN_OR_RETURN(pareto.read.slice.rows, ParetoOrderRows(pareto.ranked, rows.state, rows.limit));
    GS_ASSIGN_OR_RETURN(pareto.read.running_steps, FillRunningObjectives(pareto.read.slice.rows));
  }
  return pareto;
}

Expected<std::vector<TrialRecord>> ExperimentView::ParetoOrderRows(
    const std::vector<ParetoTrial>& ranked, std::optional<TrialState> state, int limit) {
  const std::size_t wanted =
      limit > 0 ? static_cast<std::size_t>(limit) : std::numeric_limits<std::size_t>::max();
  std::vector<TrialRecord> rows;
  if (!state || *state == TrialState::kCompleted)
    for (const ParetoTrial& t : ranked) {
      if (rows.size() >= wanted) break;
      GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> whole, journal_->LoadTrial(t.number));
      if (whole) rows.push_back(std::move(*whole));
    }
  if (rows.size() >= wanted || state == TrialState::kCompleted) return rows;
  // The trials no ranking places (not completed), by number, as many as are still wanted.
  const int left = limit > 0 ? static_cast<int>(wanted - rows.size()) : 0;
  std::vector<TrialRecord> others;
  for (const TrialState other : {TrialState::kRunning, TrialState::kFailed, TrialState::kInterrupted,
                                 TrialState::kPruned, TrialState::kPaused}) {
    if (state && *state != other) continue;
    GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> some,
                        journal_->QueryTrials({TrialQuery::Order::kNumber, meta_.metric.mode, other,
                                               /*ranked_only=*/false, left}));
    others.insert(others.end(), std::make_move_iterator(some.begin()),
                  std::make_move_iterator(some.end()));
  }
  std::sort(others.begin(), others.end(),
            [](const TrialRecord& a, const TrialRecord& b) { return a.number < b.number; });
  for (TrialRecord& t : others) {
    if (rows.size() >= wanted) break;
    rows.push_back(std::move(t));
  }
  return rows;
}

// The best trial and group rank by the one metric: with a Pareto objective they are left
// empty (its status ranks the ranking records instead), saving a scan of every params.
Status ExperimentView::SliceBest(TrialSlice& slice, const std::vector<std::string>& ignored,
                                 int groups_listed) {
  if (SliceableByPareto()) return {};
  const Mode mode = meta_.metric.mode;
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> best,
                      journal_->QueryTrials({TrialQuery::Order::kObjective, mode, std::nullopt,
                                             /*ranked_only=*/true, /*limit=*/1}));
  if (!best.empty()) slice.best = std::move(best.front());
  GS_ASSIGN_OR_RETURN(TrialGroupRanking groups,
                      journal_->RankTrialGroups(ignored, mode, std::max(1, groups_listed)));
  slice.groups = groups.groups;
  slice.group_repeats = groups.repeats;
  if (!groups.repeats) return {};
  for (const TrialGroupRow& group : groups.top) {
    std::vector<TrialRecord> members;
    for (const int number : group.numbers) {
      GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> trial, journal_->LoadTrial(number));
      if (trial) members.push_back(std::move(*trial));
    }
    if (&group == &groups.top.front() && group.mean) slice.best_group = members;
    if (groups_listed > 0 && !members.empty()) slice.top_groups.push_back(std::move(members));
  }
  return {};
}

Status ExperimentView::SliceConstants(TrialSlice& slice) {
  const Mode mode = meta_.metric.mode;
  if (slice.counts.recorded >= 2) {
    std::vector<TrialRecord> first;
    if (slice.rows.empty()) {
      GS_ASSIGN_OR_RETURN(first, journal_->QueryTrials({TrialQuery::Order::kNumber, mode,
                                                        std::nullopt, false, 1}));
    }
    for (ViewParamLeaf& leaf : ViewSharedParams(slice.rows.empty() ? first : slice.rows)) {
      GS_ASSIGN_OR_RETURN(const bool constant, journal_->EveryTrialHas(leaf.path, leaf.value));
      if (constant) slice.constants.emplace_back(std::move(leaf.name), std::move(leaf.value));
    }
  }
  return {};
}

Expected<std::optional<NasProgress>> ExperimentView::Nas(const std::vector<TrialRecord>& trials) const {
  GS_ASSIGN_OR_RETURN(std::optional<NasConfig> config, nas_config());
  if (!config) return std::nullopt;
  return ReplayNas(*config, objective(), trials);
}

}  // namespace gpusweep
