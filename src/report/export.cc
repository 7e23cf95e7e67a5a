// CSV and JSON exports with flattened params.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <string>

#include <fmt/format.h>

#include "gpusweep/cv.h"
#include "gpusweep/report.h"
#include "report/export_rows.h"
#include "report/pareto_views.h"
#include "report/text.h"

namespace gpusweep {
namespace {

const std::vector<std::string> kFixedColumns = {
    "trial",          "state",        "attempt",    "repeat",    "objective", "start_time",
    "end_time",       "start_time_iso", "end_time_iso", "duration_s", "gpus",
    "gpu_count",      "job_id",       "exit_code",      "term_signal",  "failure_reason", "budget", "rung",
    "bracket"};

void FlattenInto(const std::string& prefix, const Json& object,
                 std::vector<std::pair<std::string, Json>>& out) {
  for (const auto& [key, value] : object.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (value.is_object() && !value.empty()) {
      FlattenInto(name, value, out);
    } else {
      out.emplace_back(name, value);
    }
  }
}

template <class T>
Json OrNull(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

// A completed trial's place among several objectives or constraints.
struct ParetoCells {
  int rank = 0;  // 0-based front, as RankParetoTrials gives it
  double violation = 0;
};
using ParetoCellsByTrial = std::map<int, ParetoCells>;

ParetoCellsByTrial RankForExport(const std::vector<TrialRecord>& trials,
                                 const std::optional<Objective>& pareto) {
  ParetoCellsByTrial cells;
  if (pareto)
    for (const ParetoTrial& t : RankParetoTrials(trials, *pareto))
      cells[t.number] = {t.rank, t.violation};
  return cells;
}

// How a row shows a parameter the trial does not have (a conditional one, inactive in
// it): CSV an empty cell (null), JSON no key; never a value it did not run with.
enum class AbsentParam { kNull, kLeftOut };

// One trial as an ordered object of typed values, missing values null (params: `absent`).
// `configuration`: under cv, the fold's configuration (nullptr without cv).
// `pareto`: with several objectives or constraints, every trial's ranking (possibly
// without this one: not completed), under cv every configuration's (the fold rows carry
// their configuration's); nullptr otherwise.
// `pbt`: a PBT experiment's segments (population 0: none).
Json TrialRow(const TrialRecord& t, const std::vector<std::string>& param_columns, AbsentParam absent,
              const std::vector<std::string>& metric_columns, const CvConfig& cv,
              const CvConfiguration* configuration, const ParetoCellsByTrial* pareto,
              const PbtExportColumns& pbt) {
  Json row = Json::object();
  row["trial"] = t.number;
  if (configuration != nullptr) {
    row["configuration"] = configuration->configuration;
    row["fold"] = FoldOf(t.number, cv.folds).fold;
  }
  row["state"] = std::string(ToString(t.state));
  row["attempt"] = t.attempt;
  row["repeat"] = t.repeat;  // grid repeat index: trials differing only by it ran the same params
  if (pbt.population > 0) {
    // Warm-start history has negative numbers; a PBT run has none, but stay total.
    const bool segment = t.number >= 0;
    row["member"] = segment ? Json(t.number % pbt.population) : Json(nullptr);
    row["segment"] = segment ? Json(t.number / pbt.population) : Json(nullptr);
    const auto parent = pbt.parents.find(t.number);
    row["parent_trial"] = parent != pbt.parents.end() ? Json(parent->second) : Json(nullptr);
  }
  row["objective"] = OrNull(t.objective);
  if (configuration != nullptr) {
    row["cv_state"] = configuration->queued ? "queued" : std::string(ToString(configuration->state));
    row["cv_mean"] = OrNull(configuration->mean);
    row["cv_std"] = OrNull(configuration->stddev);
  }
  if (pareto != nullptr) {  // 1 = the Pareto front; infeasible trials rank after feasible ones
    const auto it = pareto->find(configuration != nullptr ? configuration->configuration : t.number);
    const bool ranked = it != pareto->end();
    row["pareto_rank"] = ranked ? Json(it->second.rank + 1) : Json(nullptr);
    row["feasible"] = ranked ? Json(it->second.violation == 0) : Json(nullptr);
    row["violation"] = ranked ? Json(it->second.violation) : Json(nullptr);
  }
  row["start_time"] = t.start_time > 0 ? Json(t.start_time) : Json(nullptr);
  const bool ended = t.state != TrialState::kRunning && t.end_time > 0;
  row["end_time"] = ended ? Json(t.end_time) : Json(nullptr);
  row["start_time_iso"] = t.start_time > 0 ? Json(report::IsoUtcTime(t.start_time)) : Json(nullptr);
  row["end_time_iso"] = ended ? Json(report::IsoUtcTime(t.end_time)) : Json(nullptr);
  row["duration_s"] =
      ended && t.start_time > 0 ? Json(t.end_time - t.start_time) : Json(nullptr);
  // A cluster job's devices are the cluster's choice, unknown here: its record's GPU
  // indices are gpusweep's slot bookkeeping, not devices, so only their count is given.
  const bool cluster_job = !t.job_id.empty();
  row["gpus"] = cluster_job ? Json(nullptr) : Json(t.gpus);
  row["gpu_count"] = t.gpus.size();
  row["job_id"] = cluster_job ? Json(t.job_id) : Json(nullptr);
  row["exit_code"] = OrNull(t.exit_code);
  row["term_signal"] = OrNull(t.term_signal);
  row["failure_reason"] = t.failure_reason.empty() ? Json(nullptr) : Json(t.failure_reason);
  // With a scheduler: the last job's budget (an integer when whole: epochs) and rung.
  row["budget"] = t.budget ? report::WholeAsInteger(*t.budget) : Json(nullptr);
  row["rung"] = t.budget ? Json(t.rung) : Json(nullptr);
  row["bracket"] = t.budget ? Json(t.bracket) : Json(nullptr);

  const auto params = FlattenParams(t.params);
  for (const std::string& name : param_columns) {
    auto it = std::find_if(params.begin(), params.end(),
                           [&](const auto& p) { return p.first == name; });
    if (it != params.end()) row["param." + name] = it->second;
    else if (absent == AbsentParam::kNull) row["param." + name] = nullptr;
  }
  for (const std::string& key : metric_columns) {
    const bool has = t.last_metrics.is_object() && t.last_metrics.contains(key);
    row["metric." + key] = has ? t.last_metrics.at(key) : Json(nullptr);
  }
  return row;
}

// What an export's first pass learns: the columns, and with cv or several objectives
// what each row needs of every trial (its configuration, its Pareto rank).
struct ExportPlan {
  std::vector<std::string> param_columns, metric_columns;
  std::vector<TrialRecord> ranked;  // RankingRecord copies, with cv or pareto only
  std::vector<CvConfiguration> configurations;  // folds point into `ranked`
  std::map<int, const CvConfiguration*> by_number;
  ParetoCellsByTrial ranking;
  // Which row shapes appeared, in order: with a configuration (cv, a trial of this
  // experiment) or without (no cv, or warm-start history). The CSV header is their keys'
  // union in that order, as if every row had been seen first.
  std::vector<bool> shapes;
};

const CvConfiguration* ConfigurationOf(const TrialRecord& t, const CvConfig& cv,
                                       const ExportPlan& plan) {
  if (!cv.enabled() || t.number < 0) return nullptr;
  const auto it = plan.by_number.find(FoldOf(t.number, cv.folds).configuration);
  return it == plan.by_number.end() ? nullptr : it->second;
}

// The place of flattened param `name` in the declared parameters: its own, else that of
// the longest declared name it lies under ("classifier.type" under a choice
// "classifier"); declared.size() when it is not under any.
std::size_t DeclaredPlace(const std::string& name, const std::vector<std::string>& declared) {
  std::size_t place = declared.size(), matched = 0;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const std::string& d = declared[i];
    if (name == d) return i;
    if (d.size() > matched && name.size() > d.size() && name.compare(0, d.size(), d) == 0 &&
        name[d.size()] == '.') {
      place = i;
      matched = d.size();
    }
  }
  return place;
}

Expected<ExportPlan> PlanExport(const TrialWalk& trials, const CvConfig& cv,
                                const std::optional<Objective>& pareto,
                                const std::vector<std::string>& declared) {
  ExportPlan plan;
  const bool keep = cv.enabled() || pareto.has_value();
  const std::vector<std::string> ranked_metrics = pareto ? pareto->MetricNames() : std::vector<std::string>{};
  GS_TRY(trials([&](const TrialRecord& t) -> Status {
    for (const auto& [name, value] : FlattenParams(t.params)) report::AddUnique(plan.param_columns, name);
    if (t.last_metrics.is_object())
      for (const auto& [key, value] : t.last_metrics.items()) report::AddUnique(plan.metric_columns, key);
    const bool shape = cv.enabled() && t.number >= 0;
    if (std::find(plan.shapes.begin(), plan.shapes.end(), shape) == plan.shapes.end())
      plan.shapes.push_back(shape);
    if (keep) plan.ranked.push_back(RankingRecord(t, ranked_metrics));
    return {};
  }));
  std::map<std::string, std::size_t> place;
  for (const std::string& column : plan.param_columns) place[column] = DeclaredPlace(column, declared);
  std::stable_sort(plan.param_columns.begin(), plan.param_columns.end(),
                   [&](const std::string& a, const std::string& b) { return place[a] < place[b]; });
  // Under cv, configurations are ranked (by their folds' means), never fold trials.
  plan.ranking = RankForExport(
      cv.enabled() && pareto ? ConfigurationRecords(plan.ranked, cv) : plan.ranked, pareto);
  if (cv.enabled()) plan.configurations = GroupFolds(plan.ranked, cv);
  for (const CvConfiguration& c : plan.configurations) plan.by_number[c.configuration] = &c;
  return plan;
}

// The CSV header: the keys of each row shape the plan saw, in order, as TrialRow writes
// them (kFixedColumns when there are no rows).
std::vector<std::string> ExportHeader(const ExportPlan& plan, const TrialExportOptions& options) {
  if (plan.shapes.empty()) return kFixedColumns;
  std::vector<std::string> header;
  const TrialRecord any;
  const CvConfiguration configuration;
  for (const bool with_configuration : plan.shapes) {
    const Json row = TrialRow(any, plan.param_columns, AbsentParam::kNull, plan.metric_columns,
                              options.cv, with_configuration ? &configuration : nullptr,
                              options.pareto ? &plan.ranking : nullptr, options.pbt);
    for (const auto& [key, value] : row.items()) report::AddUnique(header, key);
  }
  return header;
}

// A typed value as CSV text (before quoting).
std::string CsvText(const std::string& column, const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (column == "gpus" && value.is_array()) {
    std::string text;
    for (const Json& gpu : value) text += (text.empty() ? "" : ",") + report::DumpCompact(gpu);
    return text;
  }
  if (value.is_number_float()) return report::FormatFloatFull(value.get<double>());
  return report::DumpCompact(value);
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::vector<std::pair<std::string, Json>> FlattenParams(const Json& params) {
  std::vector<std::pair<std::string, Json>> out;
  if (params.is_object()) FlattenInto("", params, out);
  return out;
}

Status WriteTrialExport(ExportText format, const TrialWalk& trials, const TextSink& out,
                        const TrialExportOptions& options) {
  const CvConfig& cv = options.cv;
  GS_ASSIGN_OR_RETURN(const ExportPlan plan,
                      PlanExport(trials, cv, options.pareto, options.declared));
  const AbsentParam absent = format == ExportText::kCsv ? AbsentParam::kNull : AbsentParam::kLeftOut;
  report::RowWriter writer(format, ExportHeader(plan, options), out);
  GS_TRY(writer.Begin());
  GS_TRY(trials([&](const TrialRecord& t) -> Status {
    return writer.Write(TrialRow(t, plan.param_columns, absent, plan.metric_columns, cv,
                                 ConfigurationOf(t, cv, plan),
                                 options.pareto ? &plan.ranking : nullptr, options.pbt));
  }));
  return writer.End();
}

namespace {

TrialWalk WalkOf(const std::vector<TrialRecord>& trials) {
  return [&trials](const std::function<Status(const TrialRecord&)>& visit) -> Status {
    for (const TrialRecord& t : trials) GS_TRY(visit(t));
    return {};
  };
}

}  // namespace

std::string ExportCsv(const std::vector<TrialRecord>& trials, const CvConfig& cv,
                      const std::optional<Objective>& pareto) {
  std::string text;
  (void)WriteTrialExport(ExportText::kCsv, WalkOf(trials), report::AppendTo(text), {cv, pareto, {}, {}});
  return text;  // neither the walk nor the sink can fail
}

std::string ExportJson(const std::vector<TrialRecord>& trials, const CvConfig& cv,
                       const std::optional<Objective>& pareto) {
  std::string text;
  (void)WriteTrialExport(ExportText::kJson, WalkOf(trials), report::AppendTo(text), {cv, pareto, {}, {}});
  return text;
}

namespace report {

void AddUnique(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

TextSink AppendTo(std::string& text) {
  return [&text](std::string_view piece) -> Status {
    text += piece;
    return {};
  };
}

Status RowWriter::Begin() {
  if (format_ == ExportText::kJson) return {};  // "[" waits: no rows is "[]"
  std::string text;
  for (size_t i = 0; i < header_.size(); ++i) text += (i > 0 ? "," : "") + CsvField(header_[i]);
  return out_(text + "\r\n");
}

Status RowWriter::Write(const Json& row) {
  std::string text;
  if (format_ == ExportText::kJson) {
    // An element of the array at indent 2: its dump at indent 0, every line moved in.
    const std::string dumped = row.dump(2, ' ', false, Json::error_handler_t::replace);
    text = any_ ? ",\n  " : "[\n  ";
    text.reserve(text.size() + dumped.size() + dumped.size() / 8);
    for (const char c : dumped) {
      text += c;
      if (c == '\n') text += "  ";  // JSON strings hold no raw newline: only layout's
    }
    any_ = true;
    return out_(text);
  }
  for (size_t i = 0; i < header_.size(); ++i) {
    if (i > 0) text += ',';
    const auto it = row.find(header_[i]);
    text += CsvField(CsvText(header_[i], it != row.end() ? *it : Json(nullptr)));
  }
  text += "\r\n";
  return out_(text);
}

Status RowWriter::End() {
  if (format_ == ExportText::kCsv) return {};
  return out_(any_ ? "\n]\n" : "[]\n");
}

Json WholeAsInteger(double value) {
  if (std::nearbyint(value) == value && std::fabs(value) < 9.0e15)
    return static_cast<std::int64_t>(value);
  return value;
}

std::string IsoUtcTime(double unix_seconds) {
  if (!(unix_seconds > 0) || !std::isfinite(unix_seconds)) return "";
  const double floor = std::floor(unix_seconds);
  const std::time_t t = static_cast<std::time_t>(floor);
  std::tm utc{};
  if (gmtime_r(&t, &utc) == nullptr) return "";
  char buf[32];
  if (std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &utc) == 0) return "";
  const int millis = std::min(999, static_cast<int>(std::lround((unix_seconds - floor) * 1000)));
  return fmt::format("{}.{:03d}Z", buf, millis);
}

}  // namespace report

}  // namespace gpusweep
