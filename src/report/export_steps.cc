// `export --steps` (learning curves) and `export --format optuna` (a study's worth of
// trials with their parameters' distributions).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "gpusweep/cv.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/export_rows.h"
#include "report/text.h"

namespace gpusweep {
namespace {

const std::vector<std::string> kStepColumns = {"trial", "attempt", "step", "time", "time_iso"};

Json StepRow(const IntermediateResult& r, const std::vector<std::string>& keys) {
  Json row = Json::object();
  row["trial"] = r.trial;
  row["attempt"] = r.attempt;
  row["step"] = r.step;
  row["time"] = r.time;
  row["time_iso"] = report::IsoUtcTime(r.time);
  for (const std::string& key : keys) {
    const bool has = r.values.is_object() && r.values.contains(key);
    row["metric." + key] = has ? r.values.at(key) : Json(nullptr);
  }
  return row;
}

ResultWalk WalkOf(const std::vector<IntermediateResult>& results) {
  return [&results](const std::function<Status(const IntermediateResult&)>& visit) -> Status {
    for (const IntermediateResult& r : results) GS_TRY(visit(r));
    return {};
  };
}

// Optuna has no normal, log-normal or rounded float; what it gets is the support the
// values lie in, so add_trial accepts every one: a q-rounded parameter's multiples of q
// (from round(low / q) * q to round(high / q) * q, or within [low, high] when clipped),
// a normal's bounds (null where unbounded: OptunaSpace fills them from the trials).
std::optional<Json> ShapedDistribution(const Json& spec, const std::string& type) {
  const bool normal = type == "normal" || type == "lognormal";
  const double q = spec.value("q", 0.0);
  if (!normal && !(q > 0)) return std::nullopt;
  Json low = spec.value("low", Json()), high = spec.value("high", Json());
  if (q > 0 && !spec.value("clip", false) && low.is_number() && high.is_number()) {
    low = std::nearbyint(low.get<double>() / q) * q;
    high = std::nearbyint(high.get<double>() / q) * q;
  }
  if (q > 0 && std::trunc(q) == q && low.is_number() && high.is_number() &&
      std::trunc(low.get<double>()) == low.get<double>() &&
      std::trunc(high.get<double>()) == high.get<double>())
    return Json{{"type", "int"}, {"low", static_cast<std::int64_t>(low.get<double>())},
                {"high", static_cast<std::int64_t>(high.get<double>())},
                {"step", spec.value("clip", false) ? 1 : static_cast<std::int64_t>(q)}};
  return Json{{"type", "float"}, {"low", low}, {"high", high}, {"log", false}};
}

Json Distribution(const Json& spec) {
  // One name in two sub-spaces of a choice (the identity lists both leaves): the first.
  if (spec.is_array()) return spec.empty() ? Json{{"type", ""}} : Distribution(spec.front());
  if (!spec.is_object()) return Json{{"type", ""}};
  const std::string type = spec.value("type", "");
  if (auto shaped = ShapedDistribution(spec, type)) return *shaped;
  if (type == "choice") return Json{{"type", "categorical"}, {"choices", spec.value("values", Json::array())}};
  if (type == "uniform" || type == "loguniform")
    return Json{{"type", "float"}, {"low", spec.at("low")}, {"high", spec.at("high")},
                {"log", type == "loguniform"}};
  if (type == "int") {
    Json distribution{{"type", "int"}, {"low", spec.at("low")}, {"high", spec.at("high")},
                      {"step", spec.value("step", 1)}};
    if (spec.value("log", false)) distribution["log"] = true;  // IntDistribution(log=True)
    return distribution;
  }
  if (type == "constant") return Json{{"type", "constant"}, {"value", spec.value("value", Json())}};
  return Json{{"type", type}};
}

bool Scalar(const Json& value) { return value.is_primitive(); }

// Optuna's CategoricalDistribution holds None, bool, int, float and str only.
bool NeedsTextChoices(const Json& distribution) {
  if (distribution.value("type", "") != "categorical") return false;
  for (const Json& choice : distribution.at("choices"))
    if (!Scalar(choice)) return true;
  return false;
}

const char* OptunaState(TrialState state) {
  switch (state) {
    case TrialState::kCompleted: return "COMPLETE";
    case TrialState::kPruned: return "PRUNED";
    case TrialState::kFailed: return "FAIL";
    default: return nullptr;  // not finished: Optuna's add_trial refuses it
  }
}

// The metric by step over the trial's last attempt ({"1": 0.8, "2": 0.85}).
Json IntermediateValues(const TrialRecord& t, const std::vector<IntermediateResult>& results,
                        const std::string& metric) {
  Json values = Json::object();
  for (const IntermediateResult& r : results) {
    if (r.trial != t.number || r.attempt != t.attempt || !r.values.is_object()) continue;
    const auto value = r.values.find(metric);
    if (value != r.values.end() && value->is_number()) values[std::to_string(r.step)] = *value;
  }
  return values;
}

}  // namespace

Status WriteStepsExport(ExportText format, const ResultWalk& results, const TextSink& out) {
  std::vector<std::string> keys;  // union of reported keys, order of first appearance
  GS_TRY(results([&](const IntermediateResult& r) -> Status {
    if (r.values.is_object())
      for (const auto& [key, value] : r.values.items()) report::AddUnique(keys, key);
    return {};
  }));
  std::vector<std::string> header = kStepColumns;
  for (const std::string& key : keys) header.push_back("metric." + key);
  report::RowWriter writer(format, std::move(header), out);
  GS_TRY(writer.Begin());
  GS_TRY(results([&](const IntermediateResult& r) { return writer.Write(StepRow(r, keys)); }));
  return writer.End();
}

std::string ExportStepsCsv(const std::vector<IntermediateResult>& results) {
  std::string text;
  (void)WriteStepsExport(ExportText::kCsv, WalkOf(results), report::AppendTo(text));
  return text;  // neither the walk nor the sink can fail
}

std::string ExportStepsJson(const std::vector<IntermediateResult>& results) {
  std::string text;
  (void)WriteStepsExport(ExportText::kJson, WalkOf(results), report::AppendTo(text));
  return text;
}

Json ParamDistributions(const Json& search_space) {
  Json out = Json::object();
  if (!search_space.is_object()) return out;
  for (const auto& [name, spec] : search_space.items()) out[name] = Distribution(spec);
  return out;
}

namespace {

// The Optuna study's parameter settings, the export's distributions, and which
// categoricals are written as JSON text.
struct OptunaSpace {
  Json distributions = Json::object(), constants = Json::object();
  std::map<std::string, bool> as_text;

  explicit OptunaSpace(const Json& search_space) {
    Json all = ParamDistributions(search_space);
    for (auto& [name, distribution] : all.items()) {
      if (distribution.value("type", "") == "constant") {
        constants[name] = distribution.at("value");
        continue;
      }
      if (NeedsTextChoices(distribution)) {
        as_text[name] = true;
        for (Json& choice : distribution["choices"]) choice = report::DumpCompact(choice);
      }
      distributions[name] = distribution;
    }
    // One name in two sub-spaces of a choice: the identity lists each leaf with its
    // `when`; a trial gets the distribution of the leaf active in it.
    for (const auto& [name, spec] : search_space.items())
      if (spec.is_array() && distributions.contains(name)) alternatives[name] = spec;
  }

  // An unbounded normal's float gets the range its trials drew (Optuna needs bounds).
  void FillUnboundedRanges(const std::vector<TrialRecord>& trials) {
    for (auto& [name, distribution] : distributions.items()) {
      if (distribution.value("type", "") != "float") continue;
      const auto open = [](const Json& bound) {
        return !bound.is_number() || !std::isfinite(bound.get<double>());
      };
      const bool open_low = open(distribution["low"]), open_high = open(distribution["high"]);
      if (!open_low && !open_high) continue;
      double low = HUGE_VAL, high = -HUGE_VAL;
      for (const TrialRecord& t : trials)
        if (t.params.is_object() && t.params.contains(name) && t.params.at(name).is_number()) {
          low = std::min(low, t.params.at(name).get<double>());
          high = std::max(high, t.params.at(name).get<double>());
        }
      if (low > high) low = high = 0;
      if (open_low) distribution["low"] = low;
      if (open_high) distribution["high"] = std::max(high, low);
    }
  }

  // A trial's own distributions where they differ from the study's (a leaf of a repeated
  // name other than the first); an empty object otherwise.
  Json TrialDistributions(const gpusweep::Params& params) const {
    Json out = Json::object();
    for (const auto& [name, leaves] : alternatives.items()) {
      if (!params.contains(name)) continue;
      for (std::size_t i = 0; i < leaves.size(); ++i) {
        if (!WhenHolds(leaves[i], params)) continue;
        if (i > 0) {
          Json distribution = Distribution(leaves[i]);
          if (as_text.count(name) != 0)
            for (Json& choice : distribution["choices"]) choice = report::DumpCompact(choice);
          out[name] = std::move(distribution);
        }
        break;
      }
    }
    return out;
  }

  static bool WhenHolds(const Json& leaf, const gpusweep::Params& params) {
    for (const Json& condition : leaf.value("when", Json::array())) {
      const std::string param = condition.value("param", "");
      if (!params.contains(param)) return false;
      bool listed = false;
      for (const Json& value : condition.value("values", Json::array()))
        listed = listed || params.at(param) == value;
      if (!listed) return false;
    }
    return true;
  }

  Json alternatives = Json::object();

  Json Params(const gpusweep::Params& params) const {
    Json out = Json::object();
    for (const auto& [name, unused] : distributions.items()) {
      if (!params.contains(name)) continue;
      const Json& value = params.at(name);
      out[name] = as_text.count(name) != 0 ? Json(report::DumpCompact(value)) : value;
    }
    return out;
  }
};

// One Optuna trial: `t` a trial, or under cv a configuration's ConfigurationRecord.
// nullopt for a state Optuna's add_trial refuses.
std::optional<Json> OptunaTrial(const TrialRecord& t, const OptunaSpace& space,
                                Json intermediate_values, Json attrs) {
  const char* state = OptunaState(t.state);
  if (state == nullptr) return std::nullopt;
  attrs["gpusweep_state"] = ToString(t.state);
  attrs["start_time_iso"] = report::IsoUtcTime(t.start_time);
  attrs["end_time_iso"] = report::IsoUtcTime(t.end_time);
  if (!t.failure_reason.empty()) attrs["failure_reason"] = t.failure_reason;
  if (t.repeat > 0) attrs["repeat"] = t.repeat;
  const bool complete = t.state == TrialState::kCompleted && t.objective;
  Json trial{{"number", t.number},
             {"state", complete || t.state != TrialState::kCompleted ? state : "FAIL"},
             {"value", complete ? Json(*t.objective) : Json(nullptr)},
             {"params", space.Params(t.params)},
             {"intermediate_values", std::move(intermediate_values)},
             {"user_attrs", std::move(attrs)}};
  // Only where a trial's leaf is not its name's first (the study's distribution).
  if (Json own = space.TrialDistributions(t.params); !own.empty()) trial["distributions"] = own;
  return trial;
}

// A configuration's intermediate values: at each step every fold that has not failed
// reported, the mean of theirs.
Json MeanIntermediateValues(const CvConfiguration& c, const std::vector<IntermediateResult>& results,
                            const std::string& metric) {
  std::map<std::int64_t, std::vector<double>> by_step;
  int reporting = 0;
  for (const TrialRecord* fold : c.folds) {
    if (fold == nullptr || fold->state == TrialState::kFailed) continue;
    ++reporting;
    const Json values = IntermediateValues(*fold, results, metric);
    for (const auto& [step, value] : values.items())
      by_step[std::stoll(step)].push_back(value.get<double>());
  }
  Json means = Json::object();
  for (const auto& [step, at] : by_step) {
    if (static_cast<int>(at.size()) < reporting) continue;
    double sum = 0;
    for (double v : at) sum += v;
    means[std::to_string(step)] = sum / static_cast<double>(at.size());
  }
  return means;
}

// Under cv: the configuration's folds as user attributes.
Json FoldAttributes(const CvConfiguration& c, const CvConfig& cv) {
  Json fold_values = Json::array(), fold_states = Json::array();
  for (const TrialRecord* fold : c.folds) {
    const bool valued = fold != nullptr && fold->state == TrialState::kCompleted && fold->objective;
    fold_values.push_back(valued ? Json(*fold->objective) : Json(nullptr));
    fold_states.push_back(fold != nullptr ? std::string(ToString(fold->state)) : "queued");
  }
  const int first = FoldTrialNumber(c.configuration, 0, cv.folds);
  Json attrs{{"cv_folds", cv.folds},
             {"fold_values", std::move(fold_values)},
             {"fold_states", std::move(fold_states)},
             {"fold_trials", Json::array({first, first + cv.folds - 1})}};
  if (c.stddev) attrs["cv_std"] = *c.stddev;
  return attrs;
}

// Optuna's constraint values (a trial is feasible when every one is <= 0): per bound,
// how far the metric lies past it; a metric not reported gives null.
Json OptunaConstraints(const TrialRecord& t, const Objective& objective) {
  Json values = Json::array();
  for (const ConstraintSpec& c : objective.constraints()) {
    const auto it = t.last_metrics.is_object() ? t.last_metrics.find(c.metric) : t.last_metrics.end();
    const bool number = it != t.last_metrics.end() && it->is_number() && std::isfinite(it->get<double>());
    const double value = number ? it->get<double>() : 0;
    if (c.min) values.push_back(number ? Json(*c.min - value) : Json(nullptr));
    if (c.max) values.push_back(number ? Json(value - *c.max) : Json(nullptr));
  }
  return values;
}

// Several objectives: the trial's "value" becomes "values" (one per objective, in the
// study's order; a completed trial missing one is FAIL, as with one objective).
// Constraints (any number of objectives): system_attrs "constraints", Optuna's key.
void AddParetoFields(Json& row, const TrialRecord& t, const Objective& objective) {
  if (objective.multi()) {
    const std::vector<double> values = objective.Values(t.last_metrics);
    const bool complete = row["state"] == "COMPLETE" &&
                          std::none_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
    if (row["state"] == "COMPLETE" && !complete) row["state"] = "FAIL";
    row.erase("value");
    row["values"] = complete ? Json(values) : Json(nullptr);
  }
  if (objective.constrained()) row["system_attrs"] = Json{{"constraints", OptunaConstraints(t, objective)}};
}

}  // namespace

std::string ExportOptuna(const std::vector<TrialRecord>& trials,
                         const std::vector<IntermediateResult>& results,
                         const Json& search_space, const ReportContext& ctx) {
  OptunaSpace space(search_space);
  space.FillUnboundedRanges(trials);
  Json rows = Json::array();
  if (ctx.cv.enabled()) {  // one Optuna trial per configuration, valued by its means
    for (const CvConfiguration& c : GroupFolds(trials, ctx.cv)) {
      const TrialRecord configuration = ConfigurationRecord(c);
      if (auto row = OptunaTrial(configuration, space, MeanIntermediateValues(c, results, ctx.metric.name),
                                 FoldAttributes(c, ctx.cv))) {
        if (ctx.pareto) AddParetoFields(*row, configuration, *ctx.pareto);
        rows.push_back(std::move(*row));
      }
    }
  } else {
    for (const TrialRecord& t : trials)
      if (auto row = OptunaTrial(t, space, IntermediateValues(t, results, ctx.metric.name),
                                 Json::object())) {
        if (ctx.pareto) AddParetoFields(*row, t, *ctx.pareto);
        rows.push_back(std::move(*row));
      }
  }
  Json study{{"study_name", ctx.experiment_name}};
  if (ctx.pareto && ctx.pareto->multi()) {  // Optuna's multi-objective study
    Json directions = Json::array(), metrics = Json::array();
    for (const MetricSpec& m : ctx.pareto->metrics()) {
      directions.push_back(DirectionName(m.mode));
      metrics.push_back(m.name);
    }
    study["directions"] = std::move(directions);
    study["metrics"] = std::move(metrics);
  } else {
    study["direction"] = DirectionName(ctx.metric.mode);
    study["metric"] = ctx.metric.name;
  }
  study["distributions"] = space.distributions;
  study["constants"] = space.constants;
  study["trials"] = std::move(rows);
  return study.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace gpusweep
