#include "run/warm_start.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "gpusweep/cv.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/objective.h"
#include "gpusweep/pareto.h"
#include "report/param_text.h"
#include "report/table.h"

namespace gpusweep {
namespace {

constexpr std::string_view kEventKind = "warm_start";

Error AtConfig(const ExperimentConfig& config, std::string problem, std::string_view hint) {
  return Error{ErrorCode::kInvalidConfig,
               fmt::format("{}:{}: warm_start.from: {}; {}", config.config_path.string(),
                           config.warm_start->line, problem, hint)};
}

// "'score' (max)": one metric in the messages' words.
std::string MetricText(std::string_view name, std::string_view mode) {
  return fmt::format("'{}' ({})", name, mode);
}

// The same of a metric as identity.h records it ({name, mode}).
std::string MetricText(const Json& metric) {
  return MetricText(metric.value("name", ""), metric.value("mode", ""));
}

// "'acc' (max), 'params_m' (min)": the source's objectives, "metrics" with several, else
// "metric" (identity.h).
std::string ObjectiveText(const Json& identity) {
  if (!identity.contains("metrics")) return MetricText(identity.value("metric", Json::object()));
  std::string text;
  for (const Json& m : identity["metrics"]) text += (text.empty() ? "" : ", ") + MetricText(m);
  return text;
}

// This experiment's objectives in the same words.
std::string ObjectiveText(const Objective& objective) {
  std::string text;
  for (const MetricSpec& m : objective.metrics())
    text += (text.empty() ? "" : ", ") + MetricText(m.name, ModeName(m.mode));
  return text;
}

// A source ranks with this experiment when it optimised the same metrics in the same
// modes: several as the same list; one as one, or as the first of a several-objective
// source (its `objective` is that metric's value). Constraints may differ: each seeded
// trial's violation is computed from its reported metrics under this experiment's.
Status CheckSameObjective(const ExperimentConfig& config, const ExperimentRecord& source) {
  const Json first = source.identity.value("metric", Json::object());
  const std::string theirs =
      config.metrics.empty() ? MetricText(first) : ObjectiveText(source.identity);
  const std::string ours = ObjectiveText(ObjectiveOf(config));
  if (theirs == ours) return {};
  if (config.metrics.empty() && source.identity.contains("metrics"))
    return tl::unexpected(AtConfig(
        config,
        fmt::format("{} optimised {}, and one objective may start from it only as its first "
                    "metric, {}; this experiment optimises {}",
                    config.warm_start->from.string(), ObjectiveText(source.identity), theirs, ours),
        fmt::format("give metric: {{name: {}, mode: {}}}, or the same metrics: list, or remove "
                    "warm_start",
                    first.value("name", ""), first.value("mode", ""))));
  return tl::unexpected(AtConfig(
      config,
      fmt::format("{} optimised {}, this experiment {}", config.warm_start->from.string(),
                  theirs, ours),
      "a warm start needs the same metric name and mode (the same metrics: list with "
      "several objectives), so its values rank with this experiment's; start from an "
      "experiment with the same objective, or remove warm_start"));
}

// Of a seeded trial's reported metrics, those this experiment's several objectives and
// constraints read (none with one objective and no constraints: `objective` holds it).
Json KeptMetrics(const Json& metrics, const Objective& objective) {
  Json kept = Json::object();
  if ((!objective.multi() && !objective.constrained()) || !metrics.is_object()) return kept;
  for (const std::string& name : objective.MetricNames())
    if (metrics.contains(name)) kept[name] = metrics[name];
  return kept;
}

bool HasResult(const TrialRecord& trial) {
  switch (trial.state) {
    case TrialState::kCompleted: return trial.objective.has_value();
    case TrialState::kPruned:
    case TrialState::kPaused: return true;  // ranked after completed ones, like TPE does
    default: return false;
  }
}

// The params as this search space gives them, a parameter the trial lacks taken from
// `defaults` (its name added to `assumed`); an error message (no location) when a
// parameter is missing without a default, extra, or outside its range. In a conditional
// space only the parameters active under the trial's own values are needed; one it has
// that is inactive there is left out (it seeds nothing).
Expected<Params> FitToSpace(const Params& params, const SearchSpace& space,
                            const Params& defaults, std::vector<std::string>& assumed) {
  Params fitted = Json::object();
  for (const ParamSpec& param : space.params) {
    if (!IsActive(param, fitted)) continue;
    if (!params.contains(param.name) && defaults.contains(param.name)) {
      fitted[param.name] = defaults[param.name];  // checked against the space when parsed
      assumed.push_back(param.name);
      continue;
    }
    const auto value = params.find(param.name);
    if (value == params.end())
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("it has no '{}' (warm_start: {{defaults: {{{}: <value>}}}} "
                              "assumes one)",
                              param.name, param.name));
    Expected<Json> fit = FitToParam(param, *value);
    if (!fit) return Fail(ErrorCode::kInvalidConfig, param.name + ": " + fit.error().message);
    fitted[param.name] = std::move(*fit);
  }
  const auto in_space = [&](const std::string& name) {
    for (const ParamSpec& param : space.params)
      if (param.name == name) return true;
    return false;
  };
  for (const auto& item : params.items())
    if (!fitted.contains(item.key()) && !in_space(item.key()))
      return Fail(ErrorCode::kInvalidConfig,
                  fmt::format("it has '{}', which this search space does not", item.key()));
  return fitted;
}

Json TrialToJson(const TrialRecord& trial, int source_number,
                 const std::vector<std::string>& assumed) {
  Json json{{"trial", source_number}, {"state", ToString(trial.state)}, {"params", trial.params}};
  if (!assumed.empty()) json["assumed"] = assumed;
  if (trial.objective && std::isfinite(*trial.objective)) json["objective"] = *trial.objective;
  if (trial.budget && std::isfinite(*trial.budget)) json["budget"] = *trial.budget;
  if (trial.last_metrics.is_object() && !trial.last_metrics.empty())
    json["metrics"] = trial.last_metrics;  // several objectives or constraints
  json["rung"] = trial.rung;
  return json;
}

Expected<TrialRecord> TrialFromJson(const Json& json, int number) {
  TrialRecord trial;
  trial.number = number;
  const auto state = TrialStateFromString(json.value("state", ""));
  if (!state || !json.contains("params") || !json["params"].is_object())
    return Fail(ErrorCode::kJournal,
                fmt::format("the journal's warm-start trial {} is malformed: {}", number,
                            json.dump()));
  trial.state = *state;
  trial.params = json["params"];
  if (json.contains("objective") && json["objective"].is_number())
    trial.objective = json["objective"].get<double>();
  if (json.contains("budget") && json["budget"].is_number())
    trial.budget = json["budget"].get<double>();
  if (json.contains("metrics") && json["metrics"].is_object()) trial.last_metrics = json["metrics"];
  trial.rung = json.value("rung", 0);
  return trial;
}

// The source's cross-validation, from its identity ("cv" is there only with cv).
CvConfig SourceCv(const ExperimentRecord& source) {
  CvConfig cv;
  const Json identity_cv = source.identity.value("cv", Json::object());
  if (!identity_cv.is_object()) return cv;
  cv.folds = identity_cv.value("folds", 0);
  cv.allow_failed_folds = identity_cv.value("allow_failed_folds", 0);
  return cv;
}

// What one entry of the history is in the source: a trial, or a configuration.
std::string_view Unit(const WarmStartHistory& history) {
  return history.source_folds > 0 ? "configuration" : "trial";
}

std::string ValueText(const Json& value) {
  return value.is_string() ? value.get<std::string>() : DumpForPeople(value);
}

// "momentum=0.9 for 12 trials": each default assumed, with how many trials it was for.
std::string AssumedText(const WarmStartHistory& history) {
  std::vector<std::pair<std::string, int>> counts;  // in order of first use
  for (const std::vector<std::string>& names : history.assumed)
    for (const std::string& name : names) {
      auto it = std::find_if(counts.begin(), counts.end(),
                             [&](const auto& count) { return count.first == name; });
      if (it == counts.end()) counts.emplace_back(name, 1);
      else ++it->second;
    }
  std::string text;
  for (const auto& [name, count] : counts) {
    std::string value;
    for (std::size_t i = 0; i < history.trials.size() && value.empty(); ++i)
      if (std::find(history.assumed[i].begin(), history.assumed[i].end(), name) !=
          history.assumed[i].end())
        value = ValueText(history.trials[i].params[name]);
    text += fmt::format("{}{}={} for {} {}{}", text.empty() ? "" : ", ", name, value, count,
                        Unit(history), count == 1 ? "" : "s");
  }
  return text;
}

bool IsAssumed(const WarmStartHistory& history, std::size_t i, const std::string& name) {
  const std::vector<std::string>& names = history.assumed[i];
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A trial's value of objective metric `m` as the listing shows it: `objective` with one
// objective (what the source ranked it by), else its reported value; "-" when missing.
std::string ObjectiveCell(const TrialRecord& t, const Objective& objective, std::size_t m) {
  if (!objective.multi())
    return t.objective ? fmt::format("{:g}", *t.objective) : std::string("-");
  const double value = objective.Values(t.last_metrics)[m];
  return std::isnan(value) ? std::string("-") : fmt::format("{:g}", value);
}

// The trials in `order` as a table: its trial (or configuration), state, each objective
// (and, with constraints, whether it is feasible), one column per parameter; a value
// assumed from warm_start.defaults is marked '*'.
std::string ListingTable(const WarmStartHistory& history, const Objective& objective,
                         const std::vector<std::size_t>& order) {
  std::vector<std::string> names;
  std::vector<TrialRecord> shown;
  for (std::size_t i : order) {
    shown.push_back(history.trials[i]);
    for (const auto& item : history.trials[i].params.items())
      if (std::find(names.begin(), names.end(), item.key()) == names.end())
        names.push_back(item.key());
  }
  const report::ParamText values(shown);
  std::vector<report::Column> columns{{fmt::format("its {}", Unit(history)), report::Align::kRight},
                                      {"state"}};
  for (const MetricSpec& m : objective.metrics()) columns.push_back({m.name, report::Align::kRight});
  if (objective.constrained()) columns.push_back({"feasible"});
  for (const std::string& name : names) columns.push_back({name});
  report::Table table(std::move(columns));
  bool any_assumed = false;
  for (std::size_t i : order) {
    const TrialRecord& t = history.trials[i];
    std::vector<report::Segment> cells{{std::to_string(history.source_numbers[i])},
                                       {std::string(ToString(t.state))}};
    for (std::size_t m = 0; m < objective.size(); ++m) cells.push_back({ObjectiveCell(t, objective, m)});
    if (objective.constrained())
      cells.push_back({objective.Feasible(t.last_metrics) ? "yes" : "no"});
    for (const std::string& name : names) {
      const bool assumed = IsAssumed(history, i, name);
      any_assumed = any_assumed || assumed;
      cells.push_back({t.params.contains(name)
                           ? values.Value(name, t.params[name]) + (assumed ? "*" : "")
                           : "-"});
    }
    table.AddRow(std::move(cells));
  }
  std::string text;
  for (const report::StyledLine& line : table.Lines(0))
    text += "  " + line.Render(ColorMode::kNever) + "\n";
  if (any_assumed) text += "  * assumed from warm_start.defaults\n";
  return text;
}

// Best first: completed trials before the others (pruned, paused: ranked after them, as
// TPE ranks them), then by value with one objective, or by constrained Pareto front
// with several or with constraints; ties in source order.
std::vector<std::size_t> BestFirst(const WarmStartHistory& history, const Objective& objective) {
  const std::vector<TrialRecord>& trials = history.trials;
  const bool single = !objective.multi() && !objective.constrained();
  std::vector<int> fronts(trials.size(), 0);
  if (!single) {
    std::vector<LossPoint> points;
    std::vector<double> violations;
    for (const TrialRecord& t : trials) {
      points.push_back(objective.multi() ? objective.Losses(objective.Values(t.last_metrics))
                                         : LossPoint{AsLoss(objective.primary().mode, t.objective)});
      violations.push_back(objective.constrained() ? objective.Violation(t.last_metrics) : 0.0);
    }
    fronts = ConstrainedRanks(points, violations);
  }
  const auto rank = [&](std::size_t i) {
    const TrialRecord& t = trials[i];
    return std::tuple{t.state == TrialState::kCompleted ? 0 : 1, fronts[i],
                      single ? AsLoss(objective.primary().mode, t.objective) : 0.0};
  };
  std::vector<std::size_t> order(trials.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  return order;
}

}  // namespace

Expected<WarmStartHistory> ReadWarmStartSource(const ExperimentConfig& config) {
  const std::filesystem::path& from = config.warm_start->from;
  Expected<std::unique_ptr<Journal>> journal =
      OpenJournal(ExperimentFiles{from}.journal(), JournalAccess::kReadOnly);
  if (!journal)
    return tl::unexpected(AtConfig(config, journal.error().message,
                                   "give the directory of an earlier experiment (the one "
                                   "holding gpusweep.db), e.g. from: runs/first-sweep"));
  GS_ASSIGN_OR_RETURN(std::optional<ExperimentRecord> source, (*journal)->LoadExperiment());
  if (!source)
    return tl::unexpected(AtConfig(config, fmt::format("{} holds no experiment yet", from.string()),
                                   "run it first, or give another directory"));
  GS_TRY(CheckSameObjective(config, *source));
  const Objective objective = ObjectiveOf(config);
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, (*journal)->LoadTrials());
  WarmStartHistory history;
  history.from = from.string();
  const CvConfig source_cv = SourceCv(*source);
  if (source_cv.enabled()) {  // its configurations, each valued by its folds' mean
    history.source_folds = source_cv.folds;
    std::vector<TrialRecord> configurations;
    for (const CvConfiguration& c : GroupFolds(trials, source_cv))
      configurations.push_back(ConfigurationRecord(c));
    trials = std::move(configurations);
  }
  for (const TrialRecord& trial : trials) {
    if (!HasResult(trial)) continue;
    std::vector<std::string> assumed;
    Expected<Params> fitted =
        FitToSpace(trial.params, config.search_space, config.warm_start->defaults, assumed);
    if (!fitted) {
      if (history.left_out++ == 0)
        history.first_left_out = fmt::format("{} {}: {}", Unit(history), trial.number,
                                             fitted.error().message);
      continue;
    }
    TrialRecord kept = trial;
    kept.params = std::move(*fitted);
    kept.last_metrics = KeptMetrics(trial.last_metrics, objective);
    history.trials.push_back(std::move(kept));
    history.source_numbers.push_back(trial.number);
    history.assumed.push_back(std::move(assumed));
  }
  const int n = static_cast<int>(history.trials.size());
  for (int i = 0; i < n; ++i) history.trials[i].number = i - n;
  return history;
}

Status JournalWarmStart(Journal& journal, const WarmStartHistory& history, double now) {
  Json trials = Json::array();
  for (std::size_t i = 0; i < history.trials.size(); ++i)
    trials.push_back(TrialToJson(history.trials[i], history.source_numbers[i],
                                 history.assumed[i]));
  Json event{{"from", history.from},
             {"trials", std::move(trials)},
             {"left_out", history.left_out},
             {"first_left_out", history.first_left_out}};
  if (history.source_folds > 0) event["source_folds"] = history.source_folds;
  return journal.AppendEvent(now, kEventKind, std::move(event));
}

Expected<std::optional<WarmStartHistory>> LoadWarmStart(Journal& journal) {
  GS_ASSIGN_OR_RETURN(std::vector<Json> events, journal.LoadEvents(kEventKind));
  if (events.empty()) return std::nullopt;
  const Json& event = events.back();  // an earlier one may be from a creation that failed
  WarmStartHistory history;
  history.from = event.value("from", "");
  history.left_out = event.value("left_out", 0);
  history.first_left_out = event.value("first_left_out", "");
  history.source_folds = event.value("source_folds", 0);
  const Json trials = event.value("trials", Json::array());
  const int n = static_cast<int>(trials.size());
  for (int i = 0; i < n; ++i) {
    GS_ASSIGN_OR_RETURN(TrialRecord trial, TrialFromJson(trials[i], i - n));
    history.trials.push_back(std::move(trial));
    history.source_numbers.push_back(trials[i].value("trial", 0));
    history.assumed.push_back(
        trials[i].value("assumed", std::vector<std::string>{}));  // absent: none
  }
  return history;
}

std::string WarmStartLine(const WarmStartHistory& history) {
  std::string line = fmt::format(
      "warm start: {} {}{} of {}{} seed the sampler (not rerun)", history.trials.size(),
      Unit(history), history.trials.size() == 1 ? "" : "s", history.from,
      history.source_folds > 0
          ? fmt::format(" ({}-fold cross-validated, each valued by its folds' mean)",
                        history.source_folds)
          : "");
  if (std::string assumed = AssumedText(history); !assumed.empty())
    line += fmt::format("; assumed from warm_start.defaults: {}", assumed);
  if (history.left_out > 0)
    line += fmt::format("; {} left out, outside this search space ({})", history.left_out,
                        history.first_left_out);
  return line;
}

std::string WarmStartListing(const WarmStartHistory& history, const Objective& objective,
                             std::size_t limit) {
  std::vector<std::size_t> order = BestFirst(history, objective);
  std::string text = WarmStartLine(history) + "\n";
  if (order.size() > limit) order.resize(limit);
  if (!order.empty()) text += ListingTable(history, objective, order);
  if (history.trials.size() > limit)
    text += fmt::format("  ... and {} more\n", history.trials.size() - limit);
  return text;
}

}  // namespace gpusweep
