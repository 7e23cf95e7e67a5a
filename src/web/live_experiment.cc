#include "web/live_experiment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/unique_fd.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/pareto_views.h"
#include "web/experiment_catalog.h"
#include "web/pareto_json.h"
#include "web/pbt_json.h"

namespace gpusweep::web {
namespace {

Json OptionalNumber(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json();
}

// Adds the resource values at which the scheduler judged trials (ASHA/Hyperband/SH
// rungs) in `events` to `rungs`.
void AddRungResources(const std::vector<SchedulerEventRecord>& events, std::set<double>& rungs) {
  for (const SchedulerEventRecord& event : events) {
    const Json decision = event.detail.value("decision", Json());
    if (!decision.is_object() || decision.value("rung", -1) < 0) continue;
    const Json resource = decision.value("resource", Json());
    if (resource.is_number()) rungs.insert(resource.get<double>());
  }
}

// Whether a trial's state is final: a run that ends normally leaves only these.
bool IsSettled(TrialState state) {
  return state == TrialState::kCompleted || state == TrialState::kFailed ||
         state == TrialState::kPruned;
}

}  // namespace

std::string_view ExperimentStateName(bool run_alive, long unfinished) {
  if (run_alive) return "running";
  return unfinished > 0 ? "interrupted" : "finished";
}

Json TrialJson(const TrialRecord& trial) {
  Json params = Json::object();
  for (auto& [name, value] : FlattenParams(trial.params)) params[name] = value;
  return Json{{"number", trial.number},
              {"state", ToString(trial.state)},
              {"attempt", trial.attempt},
              {"params", std::move(params)},
              {"objective", OptionalNumber(trial.objective)},
              {"start", trial.start_time},
              {"end", trial.end_time > 0 ? Json(trial.end_time) : Json()},
              {"gpus", trial.gpus},
              {"reason", trial.failure_reason},
              {"exit_code", trial.exit_code ? Json(*trial.exit_code) : Json()},
              {"signal", trial.term_signal ? Json(SignalName(*trial.term_signal)) : Json()},
              {"budget", OptionalNumber(trial.budget)},
              {"rung", trial.rung},
              {"bracket", trial.bracket},
              {"metrics", trial.last_metrics}};
}

std::string ConfinedTail(const std::filesystem::path& file, const std::filesystem::path& root,
                         std::size_t max_bytes) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(file, ec);
  if (ec || !IsWithin(real, root)) return "";
  return ReadLogTail(real, max_bytes);  // O_NOFOLLOW: a symlink swapped in is refused
}

LiveExperiment::LiveExperiment(std::filesystem::path dir, ExperimentView view,
                               DecisionFormatter decisions)
    : dir_(std::move(dir)),
      files_{dir_},
      view_(std::move(view)),
      decisions_(std::move(decisions)) {}

Expected<std::unique_ptr<LiveExperiment>> LiveExperiment::Open(const std::filesystem::path& dir,
                                                               DecisionFormatter decisions) {
  GS_ASSIGN_OR_RETURN(ExperimentView view, ExperimentView::Open(dir));
  // The declared search space sharpens importance bounds; a config that no longer parses
  // (templates moved) just leaves them to the values seen.
  SearchSpace space = view.search_space();
  // A NAS experiment's tournament is replayed from its trials with the config it ran
  // with (as `status` does); one whose stored config no longer reads has no such view.
  std::optional<NasConfig> nas;
  if (auto config = view.nas_config()) nas = std::move(*config);
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::canonical(dir, ec);  // the log tail's root
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: {}", dir.string(), ec.message()));
  auto live = std::unique_ptr<LiveExperiment>(
      new LiveExperiment(std::move(canonical), std::move(view), std::move(decisions)));
  for (const ParamSpec& param : space.params)
    if (param.kind == ParamKind::kChoice) live->choice_params_.push_back(param.name);
  live->importance_ = std::make_unique<LiveImportance>(std::move(space));
  live->nas_ = std::move(nas);
  // Read whole once here (the population comes from the recorded config); refreshes
  // then add the events past events_seq_, which starts before them all, so the events
  // read here are added again: harmless, AddPbtLineage only records each start's parent.
  if (live->meta().scheduler && live->meta().scheduler->type == "pbt") {
    GS_ASSIGN_OR_RETURN(PbtLineage lineage, live->view_.pbt_lineage());
    live->pbt_ = std::move(lineage);
  }
  if (Objective objective = live->view_.objective(); objective.multi()) {
    live->hypervolume_reference_ = live->view_.report_context().hypervolume_reference;
    for (const MetricSpec& metric : objective.metrics())
      live->objective_importance_.push_back(metric.name == live->meta().metric.name
                                                ? nullptr
                                                : std::make_unique<LiveImportance>(live->view_.search_space()));
    live->pareto_ = std::move(objective);
  } else if (objective.constrained()) {
    live->constrained_ = std::move(objective);
  }
  return live;
}

Status LiveExperiment::RefreshLocked() {
  // Read before the data: a commit landing meanwhile changes it again for next time.
  GS_ASSIGN_OR_RETURN(const std::int64_t version, view_.DataVersion());
  if (data_version_ && *data_version_ == version) return {};
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, view_.Trials());
  GS_ASSIGN_OR_RETURN(std::vector<MetricPoint> points,
                      view_.ObjectivePoints(points_cursor_));
  const std::int64_t revision = revision_ + 1;
  bool changed = false;
  std::vector<TrialText> texts;
  texts.reserve(trials.size());
  std::size_t old = 0;
  for (const TrialRecord& trial : trials) {
    while (old < records_.size() && records_[old].number < trial.number) ++old;
    std::string text = TrialJson(trial).dump(-1, ' ', false, Json::error_handler_t::replace);
    const bool same = old < records_.size() && records_[old].number == trial.number &&
                      texts_[old].json == text;
    changed |= !same;
    texts.push_back({std::move(text), same ? texts_[old].revision : revision});
  }
  changed |= trials.size() != records_.size();
  records_ = std::move(trials);
  texts_ = std::move(texts);
  for (const MetricPoint& point : points) {
    points_cursor_ = point.cursor;
    if (point.value && std::isfinite(*point.value)) points_.Append(point);
  }
  const std::size_t rungs_before = rungs_.size();
  GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events,
                      view_.SchedulerEventsAfter(events_seq_));
  if (!events.empty()) events_seq_ = events.back().seq;
  AddRungResources(events, rungs_);
  // A segment's parent arrives with its start event, in the commit that records the
  // trial; compared anyway, so the lineage drawn never lags the events read.
  const std::size_t parents_before = pbt_ ? pbt_->parents.size() : 0;
  if (pbt_) AddPbtLineage(events, *pbt_);
  const bool lineage_grew = pbt_ && pbt_->parents.size() != parents_before;
  if (changed) revision_ = revision;
  if (changed || lineage_grew || rungs_.size() != rungs_before || summary_.is_null()) SummarizeLocked();
  data_version_ = version;
  return {};
}

// The summary's `best`: the best completed trial by the metric; with constraints the
// best feasible one (Pareto order puts feasible trials first); with several objectives
// none (the front is the answer: the pareto section).
Json LiveExperiment::BestJson() const {
  if (pareto_) return Json();
  if (constrained_) {
    const std::vector<ParetoTrial> ranked = RankParetoTrials(records_, *constrained_);
    if (ranked.empty() || ranked.front().violation != 0 || std::isnan(ranked.front().values.at(0)))
      return Json();
    return Json{{"trial", ranked.front().trial->number}, {"value", ranked.front().values.at(0)}};
  }
  std::vector<const TrialRecord*> ranked = RankTrials(records_, meta().metric);
  if (ranked.empty()) return Json();
  return Json{{"trial", ranked.front()->number}, {"value", *ranked.front()->objective}};
}

void LiveExperiment::SummarizeLocked() {
  Json counts = Json::object();
  std::vector<std::string> params;
  std::set<std::string> named;
  // Planned trials not yet recorded and recorded ones not settled: what a run still owes.
  long unfinished = std::max(0L, static_cast<long>(meta().total_trials) - static_cast<long>(records_.size()));
  for (const TrialRecord& trial : records_) {
    const std::string state(ToString(trial.state));
    counts[state] = counts.value(state, 0) + 1;
    unfinished += !IsSettled(trial.state);
    for (auto& [name, value] : FlattenParams(trial.params))
      if (named.insert(name).second) params.push_back(name);
  }
  Json best = BestJson();
  if (nas_) {  // the search's result (retrain, else latest confirm), not its top evaluation
    const std::optional<NasResult> result = FindNasResult(records_);
    best = result ? Json{{"trial", result->trial->number},
                         {"value", *result->trial->objective},
                         {"stage", result->retrain ? "retrain" : "confirm"},
                         {"block", result->block},
                         {"label", NasResultStage(*result)}}
                  : Json();
  }
  Json scheduler;
  if (meta().scheduler)
    scheduler = Json{{"type", meta().scheduler->type},
                     {"resource", meta().scheduler->resource},
                     {"max_resource", meta().scheduler->max_resource}};
  summary_ = Json{{"name", meta().name},
                  {"dir", dir_.string()},
                  {"metric", meta().metric.name},
                  {"mode", ModeName(meta().metric.mode)},
                  {"total", meta().total_trials},
                  {"recorded", records_.size()},
                  {"unfinished", unfinished},
                  {"revision", revision_},
                  {"counts", std::move(counts)},
                  {"best", std::move(best)},
                  {"scheduler", std::move(scheduler)},
                  {"params", params},
                  {"choice_params", choice_params_},
                  {"rungs", std::vector<double>(rungs_.begin(), rungs_.end())}};
  if (nas_) summary_["nas"] = NasProgressJson(ReplayNas(*nas_, view_.objective(), records_));
  if (pbt_) summary_["pbt"] = PbtJson(records_, *pbt_, view_.resource());
  if (pareto_) summary_["pareto"] = ParetoJson(records_, *pareto_, hypervolume_reference_);
}

Expected<Json> LiveExperiment::Summary() {
  std::lock_guard lock(mutex_);
  GS_TRY(RefreshLocked());
  Json summary = summary_;
  // As `gpusweep status` tells a dead run: the experiment's lock is held only while a
  // gpusweep runs it (flock, released by the kernel however the holder dies).
  const bool running = view_.run_alive();
  summary["running"] = running;
  summary["state"] = std::string(ExperimentStateName(running, summary_["unfinished"].get<long>()));
  return summary;
}

Expected<std::string> LiveExperiment::TrialsSince(std::int64_t since) {
  std::lock_guard lock(mutex_);
  GS_TRY(RefreshLocked());
  std::string out = fmt::format("{{\"revision\":{},\"trials\":[", revision_);
  bool first = true;
  for (const TrialText& text : texts_) {
    if (text.revision <= since) continue;
    if (!first) out += ',';
    first = false;
    out += text.json;
  }
  out += "]}";
  return out;
}

Expected<std::string> LiveExperiment::PointsAfter(std::int64_t after) {
  std::lock_guard lock(mutex_);
  GS_TRY(RefreshLocked());
  return points_.JsonAfter(after, points_cursor_);
}

TrialsSnapshot LiveExperiment::ImportanceSnapshot(std::optional<std::size_t> index) {
  std::lock_guard lock(mutex_);
  // Only what importance reads (completed trials: number, state, objective, params):
  // this copy lives while the forest trains, the server's peak memory.
  TrialsSnapshot snapshot{revision_, {}};
  for (const TrialRecord& trial : records_) {
    if (trial.state != TrialState::kCompleted) continue;
    std::optional<double> value = trial.objective;
    if (index) {
      const double reported = pareto_->Values(trial.last_metrics)[*index];
      value = std::isfinite(reported) ? std::optional<double>(reported) : std::nullopt;
    }
    if (!value) continue;
    TrialRecord& slim = snapshot.trials.emplace_back();
    slim.number = trial.number;
    slim.state = trial.state;
    slim.objective = value;
    slim.params = trial.params;
  }
  return snapshot;
}

Expected<Json> LiveExperiment::Importance() {
  std::int64_t revision = 0;
  {
    std::lock_guard lock(mutex_);
    GS_TRY(RefreshLocked());
    revision = revision_;
  }
  // Outside the lock: a large sweep's forest takes a while, and other requests go on.
  GS_ASSIGN_OR_RETURN(Json primary, importance_->Get(revision, [this] { return ImportanceSnapshot(std::nullopt); }));
  if (!pareto_) return primary;
  Json objectives = Json::array();
  bool current = primary["current"].get<bool>();
  std::int64_t oldest = primary["revision"].get<std::int64_t>();
  for (std::size_t i = 0; i < objective_importance_.size(); ++i) {
    Json result = primary;
    if (objective_importance_[i]) {
      GS_ASSIGN_OR_RETURN(result, objective_importance_[i]->Get(revision, [this, i] { return ImportanceSnapshot(i); }));
    }
    current = current && result["current"].get<bool>();
    oldest = std::min(oldest, result["revision"].get<std::int64_t>());
    result["objective"] = pareto_->metrics()[i].name;
    result["mode"] = ModeName(pareto_->metrics()[i].mode);
    objectives.push_back(std::move(result));
  }
  primary["objectives"] = std::move(objectives);
  primary["current"] = current;
  primary["revision"] = oldest;
  return primary;
}

Expected<Json> LiveExperiment::TrialDetail(int number) {
  std::lock_guard lock(mutex_);
  GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> trial, view_.Trial(number));
  if (!trial)
    return Fail(ErrorCode::kNotFound,
                fmt::format("trial {} of {} has not started", number, meta().name));
  GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> results, view_.Results(number));
  GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events, view_.SchedulerEvents(number));
  // The scheduler's last judgement of the trial at a rung, numbered as its decisions
  // are: the trial's own rung is its job's (0 for a job run to the full budget, even
  // when a later rung stopped it).
  Json judged;
  for (const SchedulerEventRecord& event : events) {
    const Json decision = event.detail.value("decision", Json());
    if (decision.is_object() && decision.value("rung", -1) >= 0)
      judged = Json{{"rung", decision["rung"]},
                    {"resource", decision.value("resource", Json())},
                    {"verdict", decision.value("verdict", "")}};
  }
  Json rows = Json::array();
  for (const IntermediateResult& r : results)
    rows.push_back(
        Json{{"attempt", r.attempt}, {"step", r.step}, {"time", r.time}, {"values", r.values}});
  return Json{{"trial", TrialJson(*trial)},
              {"dir", files_.trial_dir(number).string()},
              {"results", std::move(rows)},
              {"judged", std::move(judged)},
              {"decisions", decisions_ ? decisions_(events, view_.resource(), *trial) : std::vector<std::string>{}},
              {"log_tail", ConfinedTail(files_.trial(number).output_log(),
                                        dir_, kLogTailBytes)}};
}

}  // namespace gpusweep::web
