// LoadConfig / ParseConfig (gpusweep/config.h): the top level of the experiment YAML.
// Sections with more structure live in search_space_parser, resources_parser and
// template_parser; node access and error formatting in yaml_reader.
#include "gpusweep/config.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <climits>
#include <optional>
#include <sstream>
#include <system_error>

#include "config/backend_parser.h"
#include "config/nas_parser.h"
#include "config/objective_parser.h"
#include "config/resources_parser.h"
#include "config/unit_values.h"
#include "config/sampler_parser.h"
#include "config/bohb_check.h"
#include "config/pbt_check.h"
#include "config/scheduler_parser.h"
#include "config/search_space_parser.h"
#include "config/cv_parser.h"
#include "config/seeding_parser.h"
#include "config/template_parser.h"
#include "config/yaml_reader.h"

namespace gpusweep {

namespace {

namespace fs = std::filesystem;
using config_detail::Mapping;
using config_detail::Value;
using config_detail::YamlSource;

constexpr std::array<std::string_view, 21> kTopKeys{
    "name",       "command",   "shell",   "metric",       "sampler",
    "search_space", "resources", "timeout", "kill_grace",  "templates",
    "output_dir", "scheduler", "enqueue", "warm_start",   "max_failures", "nas",
    "cv",         "backend",   "metrics", "constraints", "hypervolume_reference"};
// A NAS experiment generates its trials (docs/nas.md): these keys have no meaning there.
constexpr std::array<std::string_view, 6> kNotWithNas{"sampler", "search_space", "scheduler",
                                                      "enqueue", "warm_start", "cv"};

// Other tools' top-level keys (W&B sweeps, NNI experiments, Ray Tune, Optuna), with
// what they are called here; none has the same meaning and shape as a key of ours, so
// each is refused naming the key to write.
struct ForeignTopKey {
  std::string_view key, tool, ours;
};
constexpr std::array<ForeignTopKey, 29> kForeignTopKeys{{
    {"parameters", "W&B", "search_space: (the same parameter mappings)"},
    {"program", "W&B", "command: [python, train.py, --lr={{lr}}] (the program and its "
                       "arguments; parameters reach it as {{name}} templates)"},
    {"project", "W&B", "name: <experiment name> (gpusweep has no W&B project; log to W&B "
                       "from the trial if you want)"},
    {"entity", "W&B", "nothing: log to W&B from the trial if you want; name: names the "
                      "experiment"},
    {"description", "W&B", "a YAML comment (# ...); gpusweep keeps no description"},
    {"method", "W&B", "sampler: {type: grid, random, sobol, tpe or gp} (W&B's method; bayes "
                      "is tpe or gp)"},
    {"run_cap", "W&B", "sampler: {type: ..., trials: N}"},
    {"early_terminate", "W&B", "scheduler: {type: hyperband, min_resource: <min_iter>, "
                               "max_resource: <max_iter>, reduction_factor: <eta>}"},
    {"config", "Ray Tune", "search_space: (Ray Tune's param_space/config)"},
    {"param_space", "Ray Tune", "search_space: (Ray Tune's param_space/config)"},
    {"num_samples", "Ray Tune", "sampler: {type: ..., trials: N}"},
    {"mode", "Ray Tune", "metric: {name: <metric>, mode: min or max}"},
    {"n_trials", "Optuna", "sampler: {type: ..., trials: N}"},
    {"direction", "Optuna", "metric: {name: <metric>, mode: min or max}"},
    {"searchSpace", "NNI", "search_space: (NNI's _type/_value parameters are read as NNI "
                           "means them)"},
    {"searchSpaceFile", "NNI", "search_space: with the parameters written in this file"},
    {"search_space_file", "NNI", "search_space: with the parameters written in this file"},
    {"trialCommand", "NNI", "command: [python, train.py, --lr={{lr}}] (parameters reach "
                            "it as {{name}} templates, not nni.get_next_parameter())"},
    {"trialCodeDirectory", "NNI", "command: with paths under {{config_dir}} (trials run in "
                                  "their own directories)"},
    {"maxTrialNumber", "NNI", "sampler: {type: ..., trials: N}"},
    {"max_trial_number", "NNI", "sampler: {type: ..., trials: N}"},
    {"trialConcurrency", "NNI", "resources: {max_concurrent: N}"},
    {"trialGpuNumber", "NNI", "resources: {gpus_per_trial: N}"},
    {"maxExperimentDuration", "NNI", "timeout: (per trial); gpusweep has no limit on the "
                                     "whole experiment"},
    {"tuner", "NNI", "sampler: {type: tpe, random, grid, evolution, gp, ...} (NNI's "
                     "builtinTunerName; classArgs.optimize_mode goes to metric: {mode: ...})"},
    {"optimize_mode", "NNI", "metric: {name: <metric>, mode: min or max} (maximize is max)"},
    {"assessor", "NNI", "scheduler: {type: median, ...} (NNI's Medianstop; Curvefitting "
                        "has no counterpart)"},
    {"trainingService", "NNI", "backend: (local, the default, or slurm)"},
    {"experimentName", "NNI", "name:"},
}};

// Another tool's key at the top level: say what gpusweep calls it.
Status CheckForeignTopKeys(const Mapping& top) {
  for (const Mapping::Entry& entry : top.entries())
    for (const ForeignTopKey& foreign : kForeignTopKeys)
      if (entry.name == foreign.key)
        return entry.key.Invalid(
            fmt::format("'{}' is {}'s key, not gpusweep's", foreign.key, foreign.tool),
            fmt::format("gpusweep writes {}", foreign.ours));
  return {};
}

// W&B's command macros (${program}, ${args}, ...) are W&B's; here they would reach the
// program as literal text. Refused with how the same command is written here.
Status CheckWandbCommandMacros(const Value& command) {
  constexpr std::string_view kMacros[] = {"${program}", "${args", "${env}", "${interpreter}"};
  std::vector<Value> parts;
  if (command.IsList()) {
    GS_ASSIGN_OR_RETURN(parts, command.ToList());
  } else {
    parts.push_back(command);
  }
  for (const Value& part : parts) {
    if (!part.IsScalar()) continue;
    for (std::string_view macro : kMacros)
      if (part.node().Scalar().find(macro) != std::string::npos)
        return part.Invalid(
            fmt::format("'{}' is W&B's command macro, not gpusweep's", part.node().Scalar()),
            "write the program and its arguments with {{name}} templates, e.g. command: "
            "[python3, \"{{config_dir}}/train.py\", --lr={{lr}}, --batch={{batch}}]");
  }
  return {};
}

bool IsExperimentName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '_' || c == '-'))
      return false;
  return true;
}

Status ParseName(const Mapping& top, ExperimentConfig& config) {
  GS_ASSIGN_OR_RETURN(Value value, top.Require("name", "add e.g. name: fmnist-cnn"));
  GS_ASSIGN_OR_RETURN(config.name, value.ToText());
  if (!IsExperimentName(config.name) || config.name == "." || config.name == "..")
    return value.Invalid(fmt::format("'{}' is not a valid experiment name", config.name),
                         "use letters, digits, '.', '_' and '-', e.g. fmnist-cnn");
  return {};
}

Status CheckTemplateText(const Value& at, const std::string& text) {
  if (auto error = config_detail::MustacheSyntaxError(text))
    return at.Invalid(fmt::format("invalid Mustache template: {}", *error),
                      "write parameters as {{name}}");
  return {};
}

Status ParseArgv(const Value& value, ExperimentConfig& config) {
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.empty()) return value.Invalid("the command is empty", "write [program, arg, ...]");
  for (const Value& element : list) {
    if (element.IsMapping())  // unquoted {{lr}} is a YAML flow mapping
      return element.WrongType("a string", "quote Mustache templates, e.g. \"{{lr}}\"");
    GS_ASSIGN_OR_RETURN(std::string arg, element.ToText());
    GS_TRY(CheckTemplateText(element, arg));
    config.command.push_back(std::move(arg));
    config.command_positions.push_back(element.position());
  }
  return {};
}

Status ParseCommand(const Mapping& top, ExperimentConfig& config) {
  if (const Value* shell = top.Find("shell")) {
    GS_ASSIGN_OR_RETURN(config.shell, shell->ToBool());
  }
  GS_ASSIGN_OR_RETURN(
      Value value,
      top.Require("command", "add e.g. command: [python3, \"{{config_dir}}/train.py\", --lr, \"{{lr}}\"]"));
  GS_TRY(CheckWandbCommandMacros(value));
  if (value.IsList()) {
    if (config.shell)
      return value.Invalid("shell: true needs command to be one string",
                           "write command: \"python3 train.py --lr {{lr}}\", or set shell: false");
    return ParseArgv(value, config);
  }
  if (!value.IsScalar()) return value.WrongType("a list of arguments", "write [program, arg, ...]");
  if (!config.shell)
    return value.Invalid(
        "a string command runs through a shell, which needs shell: true",
        "write command as a list [program, arg, ...] (no shell), or add shell: true");
  config.shell_command = value.node().Scalar();
  config.command_positions = {value.position()};
  if (config.shell_command.empty())
    return value.Invalid("the command is empty", "write a shell command");
  return CheckTemplateText(value, config.shell_command);
}

Status ParseSearchSpaceSection(const Mapping& top, ExperimentConfig& config) {
  const Value* value = top.Find("search_space");
  const Value empty(top.self().source(), YAML::Node(), "search_space");
  GS_ASSIGN_OR_RETURN(config.search_space,
                      config_detail::ParseSearchSpace(value ? *value : empty, config.sampler.kind,
                                                      config.warnings));
  const Value& at = value ? *value : top.self();
  if (config.sampler.kind != SamplerKind::kGrid && config.search_space.params.empty())
    return at.Invalid(fmt::format("the {} sampler needs a search space",
                                  ToString(config.sampler.kind)),
                      "add parameters under search_space:, or use sampler type: grid");
  const std::uint64_t total = config_detail::TotalTrials(config.sampler, config.search_space);
  if (total > static_cast<std::uint64_t>(INT_MAX))
    return at.Invalid(fmt::format("the grid has {} trials, more than {}", total, INT_MAX),
                      "use fewer values, or the random sampler");
  return {};
}


Status ParseTimeouts(const Mapping& top, ExperimentConfig& config) {
  if (const Value* timeout = top.Find("timeout"); timeout && !timeout->IsNull()) {
    GS_ASSIGN_OR_RETURN(config.timeout_seconds, config_detail::ToSeconds(*timeout));
    if (*config.timeout_seconds <= 0)
      return timeout->Invalid("a zero timeout would stop every trial at once",
                              "use a positive duration, or null for no timeout");
  }
  if (const Value* grace = top.Find("kill_grace")) {
    GS_ASSIGN_OR_RETURN(config.kill_grace_seconds, config_detail::ToSeconds(*grace));
  }
  return {};
}

Status ParseOutputDir(const Mapping& top, const fs::path& config_dir, ExperimentConfig& config) {
  const Value* value = top.Find("output_dir");
  if (value == nullptr || value->IsNull()) return {};
  GS_ASSIGN_OR_RETURN(std::string text, value->ToText());
  if (text.empty()) return value->Invalid("output_dir is empty", "give a directory, e.g. runs/x");
  config.output_dir = (config_dir / text).lexically_normal();
  return {};
}

// Dry run (nas.dry_run): the user's command is checked but replaced by a shell one-liner
// that reports the score gpusweep drew for the evaluation (params' nas_dry_score), so the
// whole stage plan runs through real processes and the journal in seconds. It lives in
// its own experiment directory (name + "-dry-run"), never mixing with the real search.
// It reports no constraint metrics, so constraints are dropped: kept, every evaluation
// would be infeasible by +inf (a missing metric) and the run would only say so.
void ApplyNasDryRun(ExperimentConfig& config) {
  config.constraints.clear();
  config.command = {"/bin/sh", "-c",
                    "printf '{\"%s\": %s}\\n' \"$1\" \"$2\" > \"$GPUSWEEP_METRICS\"",
                    "gpusweep-nas-dry-run", config.metric.name, "{{nas_dry_score}}"};
  config.command_positions.assign(config.command.size(), config.command_positions.front());
  config.shell = false;
  config.shell_command.clear();
  config.name += "-dry-run";
  if (config.output_dir) *config.output_dir += "-dry-run";
}

// A round is synchronous: one evaluation that hangs (a deadlocked data loader, a stuck
// collective) holds every other survivor's next round back, and without a timeout it
// does so forever (the seed's failure mode). gpusweep cannot guess a training time, so
// it says so once instead of choosing one.
void WarnAboutNasWithoutTimeout(const Value& nas, std::vector<std::string>& warnings) {
  warnings.push_back(
      nas.Invalid("a NAS experiment without timeout: one hung evaluation stalls its round, "
                  "and so the whole search, for ever",
                  "add e.g. timeout: 30m (a bound on one evaluation); a timed-out evaluation "
                  "scores failed_score and the search goes on")
          .value()
          .message);
}

// gp leaves pruned trials out of its model (a pruned trial's value belongs to a smaller
// budget, which one GP would mix with full-budget results), so under a scheduler that
// stops trials it learns only from those that ran to the end: allowed, and said.
void WarnAboutGpUnderAScheduler(const Mapping& top, const ExperimentConfig& config,
                                std::vector<std::string>& warnings) {
  const SchedulerKind kind = config.scheduler.kind;
  if (config.sampler.kind != SamplerKind::kGp ||
      (kind != SchedulerKind::kMedian && kind != SchedulerKind::kSuccessiveHalving &&
       kind != SchedulerKind::kAsha && kind != SchedulerKind::kHyperband))
    return;
  warnings.push_back(
      top.Find("scheduler")
          ->Invalid("the gp sampler learns only from trials that ran to the full budget (it "
                    "leaves pruned ones out), so most of what the scheduler stops teaches it "
                    "nothing",
                    "use sampler: {type: tpe, ...}, which ranks pruned trials by their budget, "
                    "or keep gp if most trials run to the end")
          .value()
          .message);
}

// The trial source of a `nas:` experiment: no sampler, search space or scheduler (the
// NAS engine plans every evaluation), one GPU count for every evaluation. The keys it
// replaces are refused here, before the shared sections, so those sections' parsers see
// them absent and give their defaults.
Status ParseNasSection(const Mapping& top, const Value& nas, ExperimentConfig& config) {
  for (std::string_view key : kNotWithNas)
    if (const Value* found = top.Find(key))
      return found->Invalid(fmt::format("'{}' has no meaning in a NAS experiment (nas:): the "
                                        "NAS engine plans every evaluation",
                                        key),
                            fmt::format("remove {}; see docs/nas.md", key));
  GS_ASSIGN_OR_RETURN(config.nas, config_detail::ParseNas(nas));
  if (const Value* resources = top.Find("resources"); resources && resources->IsMapping())
    if (const YAML::Node counts = resources->node()["gpus_per_trial"]; counts && counts.IsSequence())
      return resources->Child(counts, "gpus_per_trial")
          .Invalid("a NAS experiment takes one GPU count for every evaluation",
                   "write e.g. gpus_per_trial: 1");
  return {};
}

// The trial source of a sweep: a sampler over a search space, enqueued settings first.
Status ParseSamplerSection(const Mapping& top, ExperimentConfig& config) {
  GS_ASSIGN_OR_RETURN(
      Value sampler, top.Require("sampler", "add e.g. sampler: {type: random, trials: 16}"));
  GS_ASSIGN_OR_RETURN(config.sampler, config_detail::ParseSampler(sampler));
  GS_TRY(ParseSearchSpaceSection(top, config));
  GS_ASSIGN_OR_RETURN(config.sampler.enqueue,
                      config_detail::ParseEnqueue(top.Find("enqueue"), config.search_space,
                                                  config.sampler));
  return {};
}

// How many trials a gpus_per_trial list must cover. A NAS experiment's count comes from
// its stage plan (src/nas), which config does not see; it needs none, since a list is
// refused for NAS (ParseNasSection).
std::uint64_t ListedTrials(const ExperimentConfig& config) {
  if (config.nas) return 1;
  return config_detail::TotalTrials(config.sampler, config.search_space);
}

// Every key outside the trial source, parsed by the same calls for every kind of
// experiment, so e.g. backend: or max_failures: cannot mean something else under nas:
// (they once did: a NAS config's backend was never read, and it ran locally).
Status ParseSharedSections(const Mapping& top, const fs::path& config_dir,
                           ExperimentConfig& config) {
  GS_ASSIGN_OR_RETURN(config.resources,
                      config_detail::ParseResources(top.Find("resources"), ListedTrials(config)));
  GS_TRY(ParseTimeouts(top, config));
  GS_ASSIGN_OR_RETURN(config.templates,
                      config_detail::ParseTemplates(top.Find("templates"), config_dir));
  GS_ASSIGN_OR_RETURN(config.scheduler, config_detail::ParseScheduler(top.Find("scheduler")));
  GS_ASSIGN_OR_RETURN(config.warm_start,
                      config_detail::ParseWarmStart(top.Find("warm_start"), config_dir,
                                                    config.sampler.kind, config.search_space));
  GS_ASSIGN_OR_RETURN(config.max_failures,
                      config_detail::ParseMaxFailures(top.Find("max_failures")));
  GS_ASSIGN_OR_RETURN(config.cv, config_detail::ParseCv(top.Find("cv"), config.search_space));
  GS_ASSIGN_OR_RETURN(config.backend, config_detail::ParseBackend(top.Find("backend")));
  return ParseOutputDir(top, config_dir, config);
}

// One path for every kind of experiment: only the trial source differs (a sampler over
// a search space, or the NAS engine's `nas:` section).
Status ParseTop(const Value& root, const fs::path& config_dir, ExperimentConfig& config) {
  if (root.IsNull())
    return root.Invalid("the config is empty", "start with name:, command:, metric: and sampler:");
  GS_ASSIGN_OR_RETURN(Mapping top, root.ToMapping());
  GS_TRY(CheckForeignTopKeys(top));
  GS_TRY(top.CheckKeys(kTopKeys));
  GS_TRY(ParseName(top, config));
  GS_TRY(ParseCommand(top, config));
  GS_TRY(config_detail::ParseObjective(top, config));
  const Value* nas = top.Find("nas");
  GS_TRY(nas ? ParseNasSection(top, *nas, config) : ParseSamplerSection(top, config));
  GS_TRY(ParseSharedSections(top, config_dir, config));
  GS_TRY(config_detail::CheckObjectiveSupport(top, config));
  GS_TRY(config_detail::CheckPbtFits(top, config));
  GS_TRY(config_detail::ApplyBohbSampler(top, config));
  if (nas == nullptr) {
    WarnAboutGpUnderAScheduler(top, config, config.warnings);
    return {};
  }
  if (config.nas->dry_run) {
    ApplyNasDryRun(config);
  } else if (!config.timeout_seconds) {
    WarnAboutNasWithoutTimeout(*nas, config.warnings);
  }
  return {};
}

tl::unexpected<Error> YamlSyntaxError(const YamlSource& source, const YAML::Exception& e) {
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("{}:{}:{}: YAML syntax error: {}; check indentation, quoting and "
                          "brackets at or before this position",
                          source.display_path, e.mark.is_null() ? 1 : e.mark.line + 1,
                          e.mark.is_null() ? 1 : e.mark.column + 1, e.msg));
}

// Where each document's first node is; the events themselves are not needed.
class FirstNodeMark : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> mark;
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& at, YAML::anchor_t) override { Note(at); }
  void OnAlias(const YAML::Mark& at, YAML::anchor_t) override { Note(at); }
  void OnScalar(const YAML::Mark& at, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Note(at);
  }
  void OnSequenceStart(const YAML::Mark& at, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Note(at);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& at, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Note(at);
  }
  void OnMapEnd() override {}

 private:
  void Note(const YAML::Mark& at) {
    if (!mark) mark = at;
  }
};

// The first document's root. yaml-cpp 0.7's LoadAll loops forever, growing memory, on a
// document that starts with a stray ',' (jbeder/yaml-cpp#1040, fixed upstream in #1319):
// its parser reports the same empty document again and again. So documents are walked
// by hand, at most two, and a second one that starts where the first did is that stall.
// Throws YAML::Exception for syntax errors, as LoadAll would.
Expected<YAML::Node> LoadOnlyDocument(const YamlSource& source, const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  FirstNodeMark first, second;
  if (parser.HandleNextDocument(first) && parser.HandleNextDocument(second)) {
    const YAML::Mark at = second.mark.value_or(YAML::Mark::null_mark());
    if (first.mark && first.mark->pos == at.pos)
      return LocatedError(source, at, "",
                          "YAML syntax error: the parser cannot continue here",
                          "look for a stray ',' outside brackets");
    return LocatedError(source, at, "", "the file holds more than one YAML document",
                        "remove the second '---' section");
  }
  return YAML::Load(text);
}

}  // namespace

Expected<ExperimentConfig> ParseConfig(std::string_view yaml_text, const fs::path& path) {
  const YamlSource source{path.string()};
  ExperimentConfig config;
  std::error_code ec;
  config.config_path = fs::absolute(path, ec).lexically_normal();
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: {}", path.string(), ec.message()));
  config.yaml_text = std::string(yaml_text);
  try {
    GS_ASSIGN_OR_RETURN(const YAML::Node document, LoadOnlyDocument(source, config.yaml_text));
    const Value root(source, document, "");
    GS_TRY(ParseTop(root, config.config_path.parent_path(), config));
  } catch (const YAML::Exception& e) {
    return YamlSyntaxError(source, e);
  }
  return config;
}

Expected<ExperimentConfig> LoadConfig(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: no such config file; give the path of an experiment YAML "
                            "(e.g. examples/fashion-mnist/sweep.yaml)",
                            path.string()));
  if (!fs::is_regular_file(path, ec))
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("{}: not a config file (it is a directory or device); give the path "
                            "of an experiment YAML",
                            path.string()));
  GS_ASSIGN_OR_RETURN(std::string text, config_detail::ReadTextFile(path));
  return ParseConfig(text, path);
}

}  // namespace gpusweep
