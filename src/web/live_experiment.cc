#include "web/live_experiment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <functional>
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

std::uint64_t ChangeStamp(const TrialRecord& trial) {
  // FNV-1a over what changes in a trial's row once it has started (its params do not).
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](const auto& value) {
    unsigned char bytes[sizeof value];
    std::memcpy(bytes, &value, sizeof value);
    for (unsigned char b : bytes) hash = (hash ^ b) * 1099511628211ull;
  };
  mix(static_cast<int>(trial.state));
  mix(trial.attempt);
  mix(trial.objective.value_or(-0.0));
  mix(trial.objective.has_value());
  mix(trial.end_time);
  mix(trial.budget.value_or(-0.0));
  mix(trial.rung);
  mix(trial.bracket);
  mix(trial.exit_code.value_or(-1));
  mix(trial.term_signal.value_or(-1));
  mix(trial.failure_reason.size());
  mix(trial.last_metrics.size());
  return hash;
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
  // Only the rows written since the last read (every row the first time, or from a
  // journal without change marks): re-reading all of a 100,000-trial run's rows at each
  // of its commits took 0.7 s a refresh (bench/README, the eleventh session).
  GS_ASSIGN_OR_RETURN(ChangedTrials read, view_.TrialsChangedAfter(trials_mark_));
  trials_mark_ = read.mark;
  const std::int64_t revision = revision_ + 1;
  const std::int64_t generation = charted_.generation();
  std::vector<std::size_t> retext = MergeTrialsLocked(std::move(read));
  for (int number : UpdateChartedLocked()) retext.push_back(IndexOfLocked(number));
  if (charted_.generation() != generation)
    for (std::size_t i = 0; i < texts_.size(); ++i)
      if (!charted_.Holds(records_[i].number)) std::string().swap(texts_[i].json);
  std::sort(retext.begin(), retext.end());
  retext.erase(std::unique(retext.begin(), retext.end()), retext.end());
  // A held trial's text is kept and compared; one the page is not sent is compared by
  // its stamp alone (its text would be 100,000 dumps at 100,000 trials), and gets its
  // text when it joins the sample, which counts as a change: it is sent then.
  bool changed = false;
  for (std::size_t i : retext) {
    const TrialRecord& trial = records_[i];
    TrialText text{"", 0, ChangeStamp(trial)};
    if (charted_.Holds(trial.number))
      text.json = TrialJson(trial).dump(-1, ' ', false, Json::error_handler_t::replace);
    const bool same = texts_[i].revision > 0 && texts_[i].stamp == text.stamp &&
                      texts_[i].json == text.json;
    text.revision = same ? texts_[i].revision : revision;
    changed |= !same;
    texts_[i] = std::move(text);
  }
  // Only the held trials' points are kept; a sample chosen anew reads its points again.
  // Read after the trials: a point's trial row commits with or before it.
  if (charted_.generation() != generation) {
    points_ = PointColumns();
    points_cursor_ = 0;
  }
  // In pieces: 2,000,000 points of a 100,000-trial sweep read at once were 80 MB.
  constexpr std::int64_t kPointsPerRead = 65536;
  for (bool more = true; more;) {
    GS_ASSIGN_OR_RETURN(std::vector<MetricPoint> points,
                        view_.ObjectivePoints(points_cursor_, kPointsPerRead));
    more = static_cast<std::int64_t>(points.size()) == kPointsPerRead;
    for (const MetricPoint& point : points) {
      points_cursor_ = point.cursor;
      // A trial whose row committed after the trials were read is not decided yet: kept.
      if (point.value && std::isfinite(*point.value) &&
          (charted_.Holds(point.trial) || !charted_.Knows(point.trial)))
        points_.Append(point);
    }
  }
  const std::size_t rungs_before = rungs_.size();
  // A segment's parent arrives with its start event, in the commit that records the
  // trial; compared anyway, so the lineage drawn never lags the events read.
  const std::size_t parents_before = pbt_ ? pbt_->parents.size() : 0;
  // In pieces, as the points: a 100,000-trial ASHA sweep's 150,000 events read at once
  // were most of the server's 410 MB (bench/web).
  constexpr std::int64_t kEventsPerRead = 8192;
  for (bool more = true; more;) {
    GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events,
                        view_.SchedulerEventsAfter(events_seq_, kEventsPerRead));
    more = static_cast<std::int64_t>(events.size()) == kEventsPerRead;
    if (!events.empty()) events_seq_ = events.back().seq;
    AddRungResources(events, rungs_);
    if (pbt_) AddPbtLineage(events, *pbt_);
  }
  const bool lineage_grew = pbt_ && pbt_->parents.size() != parents_before;
  if (changed) revision_ = revision;
  if (changed || lineage_grew || rungs_.size() != rungs_before || summary_.is_null()) SummarizeLocked();
  data_version_ = version;
  return {};
}

std::vector<std::size_t> LiveExperiment::MergeTrialsLocked(ChangedTrials read) {
  std::vector<std::size_t> merged;
  auto add_names = [this](const TrialRecord& trial) {
    for (auto& [name, value] : FlattenParams(trial.params))
      if (named_params_.insert(name).second) param_names_.push_back(name);
  };
  if (read.whole) {
    // Each trial's text as it was (by number; none for a trial new here), to compare.
    std::vector<TrialText> before(read.trials.size());
    std::size_t old = 0;
    for (std::size_t i = 0; i < read.trials.size(); ++i) {
      while (old < records_.size() && records_[old].number < read.trials[i].number) ++old;
      if (old < records_.size() && records_[old].number == read.trials[i].number)
        before[i] = std::move(texts_[old]);
      add_names(read.trials[i]);
      merged.push_back(i);
    }
    records_ = std::move(read.trials);
    texts_ = std::move(before);
    return merged;
  }
  // By number, ascending: an insertion moves only the entries after it, none merged yet.
  for (TrialRecord& trial : read.trials) {
    add_names(trial);
    auto at = std::lower_bound(records_.begin(), records_.end(), trial.number,
                               [](const TrialRecord& r, int n) { return r.number < n; });
    const auto i = static_cast<std::size_t>(at - records_.begin());
    if (at != records_.end() && at->number == trial.number) {
      *at = std::move(trial);
    } else {
      records_.insert(at, std::move(trial));
      texts_.insert(texts_.begin() + static_cast<std::ptrdiff_t>(i), TrialText{});
    }
    merged.push_back(i);
  }
  return merged;
}

std::size_t LiveExperiment::IndexOfLocked(int number) const {
  // Trials are numbered from 0 without gaps in every sweep but a resumed, grown one.
  if (number >= 0 && static_cast<std::size_t>(number) < records_.size() &&
      records_[static_cast<std::size_t>(number)].number == number)
    return static_cast<std::size_t>(number);
  auto at = std::lower_bound(records_.begin(), records_.end(), number,
                             [](const TrialRecord& r, int n) { return r.number < n; });
  assert(at != records_.end() && at->number == number);
  return static_cast<std::size_t>(at - records_.begin());
}

std::vector<int> LiveExperiment::UpdateChartedLocked() {
  // The ranking matters only once the page holds a sample: up to the cap it holds all.
  std::vector<int> best_first;
  if (ChartedTrials::StrideFor(records_.size()) > 1) {
    if (pareto_ || constrained_) {
      for (const ParetoTrial& t : RankParetoTrials(records_, pareto_ ? *pareto_ : *constrained_))
        best_first.push_back(t.number);
    } else {
      for (const TrialRecord* t : RankTrials(records_, meta().metric, ChartedTrials::kBestHeld))
        best_first.push_back(t->number);
    }
  }
  return charted_.Update(records_, best_first);
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
    return Json{{"trial", ranked.front().number}, {"value", ranked.front().values.at(0)}};
  }
  std::vector<const TrialRecord*> ranked = RankTrials(records_, meta().metric, 1);
  if (ranked.empty()) return Json();
  return Json{{"trial", ranked.front()->number}, {"value", *ranked.front()->objective}};
}

void LiveExperiment::SummarizeLocked() {
  Json counts = Json::object();
  // Planned trials not yet recorded and recorded ones not settled: what a run still owes.
  long unfinished = std::max(0L, static_cast<long>(meta().total_trials) - static_cast<long>(records_.size()));
  for (const TrialRecord& trial : records_) {
    const std::string state(ToString(trial.state));
    counts[state] = counts.value(state, 0) + 1;
    unfinished += !IsSettled(trial.state);
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
                  {"params", param_names_},
                  {"choice_params", choice_params_},
                  {"rungs", std::vector<double>(rungs_.begin(), rungs_.end())},
                  {"held", charted_.Describe()}};
  if (nas_) summary_["nas"] = NasProgressJson(ReplayNas(*nas_, view_.objective(), records_));
  if (pbt_) summary_["pbt"] = PbtJson(records_, *pbt_, view_.resource());
  if (pareto_) {
    std::function<bool(int)> keep;
    if (charted_.stride() > 1) keep = [this](int trial) { return charted_.Holds(trial); };
    summary_["pareto"] = ParetoJson(records_, *pareto_, hypervolume_reference_, keep);
  }
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

Expected<std::string> LiveExperiment::TrialsSince(std::int64_t since,
                                                  std::optional<std::int64_t> generation) {
  std::lock_guard lock(mutex_);
  GS_TRY(RefreshLocked());
  const bool reset = generation && *generation != charted_.generation();
  if (reset) since = 0;
  std::string out = fmt::format("{{\"revision\":{},\"generation\":{},\"reset\":{},\"trials\":[",
                                revision_, charted_.generation(), reset);
  bool first = true;
  for (std::size_t i = 0; i < texts_.size(); ++i) {
    const TrialText& text = texts_[i];
    if (text.revision <= since || !charted_.Holds(records_[i].number)) continue;
    if (!first) out += ',';
    first = false;
    out += text.json;
  }
  out += "]}";
  return out;
}

Expected<std::string> LiveExperiment::PointsAfter(std::int64_t after,
                                                  std::optional<std::int64_t> generation) {
  std::lock_guard lock(mutex_);
  GS_TRY(RefreshLocked());
  const bool reset = generation && *generation != charted_.generation();
  std::function<bool(int)> keep;
  // As kept: a trial not decided yet is sent (a page draws a point without its row).
  if (charted_.stride() > 1)
    keep = [this](int trial) { return charted_.Holds(trial) || !charted_.Knows(trial); };
  std::string out = points_.JsonAfter(reset ? 0 : after, points_cursor_, keep);
  out.insert(1, fmt::format("\"generation\":{},\"reset\":{},", charted_.generation(), reset));
  return out;
}

TrialsSnapshot LiveExperiment::ImportanceSnapshot(std::optional<std::size_t> index) {
  std::lock_guard lock(mutex_);
  // Only what importance reads (completed trials: number, state, objective, params):
  // this copy lives while the forest trains, the server's peak memory. More than
  // kImportanceTrials: those of them with the smallest SampleHash, a sample that no
  // order of the sweep's params aliases with (every k-th by number did).
  TrialsSnapshot snapshot{revision_, {}, 0};
  auto value_of = [&](const TrialRecord& trial) -> std::optional<double> {
    if (trial.state != TrialState::kCompleted) return std::nullopt;
    if (!index) return trial.objective;
    const double reported = pareto_->Values(trial.last_metrics)[*index];
    return std::isfinite(reported) ? std::optional<double>(reported) : std::nullopt;
  };
  std::vector<std::uint64_t> hashes;
  for (const TrialRecord& trial : records_)
    if (value_of(trial)) hashes.push_back(ChartedTrials::SampleHash(trial.number));
  snapshot.sampled_from = hashes.size();
  std::uint64_t largest_kept = ~0ull;
  if (hashes.size() > kImportanceTrials) {
    std::nth_element(hashes.begin(), hashes.begin() + (kImportanceTrials - 1), hashes.end());
    largest_kept = hashes[kImportanceTrials - 1];
  }
  for (const TrialRecord& trial : records_) {
    const std::optional<double> value = value_of(trial);
    if (!value || ChartedTrials::SampleHash(trial.number) > largest_kept) continue;
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
