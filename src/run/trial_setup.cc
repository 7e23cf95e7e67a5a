#include "run/trial_setup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "gpusweep/cv.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/render.h"
#include "gpusweep/trial.h"
#include "run/beneath.h"
#include "run/io_error.h"

namespace gpusweep {

std::string YamlPlace(const ExperimentConfig& config, const YamlPosition& at) {
  if (at.line == 0) return config.config_path.string() + ": ";
  return fmt::format("{}:{}:{}: ", config.config_path.string(), at.line, at.column);
}

Expected<RenderedTrial> RenderTrial(const ExperimentConfig& config, const Suggestion& suggestion,
                                    const std::filesystem::path& experiment_dir,
                                    std::optional<double> budget) {
  RenderedTrial trial;
  trial.dir = ExperimentFiles{experiment_dir}.trial_dir(suggestion.number);
  TrialContextInfo info{suggestion.number, suggestion.repeat, trial.dir.string(),
                        config.config_path.parent_path().string(), experiment_dir.string(),
                        budget};
  Json context = MakeTemplateContext(suggestion.params, info);
  const std::vector<std::string> optional = ConditionalNames(config.search_space);
  if (config.cv.enabled()) {  // cv_parser refuses parameters of these names
    context["fold"] = FoldOf(suggestion.number, config.cv.folds).fold;
    context["folds"] = config.cv.folds;
  }
  std::vector<std::string> labels;  // "sweep.yaml:2:31: command[2]": where each string is
  for (std::size_t i = 0; i < std::max<std::size_t>(config.command.size(), 1); ++i)
    labels.push_back(
        YamlPlace(config, i < config.command_positions.size() ? config.command_positions[i]
                                                              : YamlPosition{}) +
        (config.shell ? std::string("command") : fmt::format("command[{}]", i)));
  if (config.shell) {
    GS_ASSIGN_OR_RETURN(std::string command,
                        RenderShellCommand(config.shell_command, context, labels.front(), optional));
    trial.argv = {"/bin/sh", "-c", std::move(command)};
  } else {
    GS_ASSIGN_OR_RETURN(trial.argv, RenderArgv(config.command, context, labels, optional));
  }
  for (std::size_t i = 0; i < config.templates.size(); ++i) {
    const TemplateSpec& spec = config.templates[i];
    const std::string entry = fmt::format("templates[{}]", i);
    auto dst = ConfinedPath(trial.dir, spec.dst);
    if (!dst)
      return Fail(dst.error().code, fmt::format("{}{}.dst: {}", YamlPlace(config, spec.position),
                                                entry, dst.error().message));
    // The template file's own line:column first, then where the YAML names it.
    auto text = RenderTemplate(spec.text, context, spec.src.string(), optional);
    if (!text)
      return Fail(text.error().code,
                  fmt::format("{} (the template of {} at {}:{}:{})", text.error().message, entry,
                              config.config_path.string(), spec.position.line,
                              spec.position.column));
    trial.files.emplace_back(std::move(*dst), std::move(*text));
  }
  return trial;
}

Status CheckConditionalTemplates(const ExperimentConfig& config) {
  const SearchSpace& space = config.search_space;
  if (config.shell)
    return CheckConditionalUses(config.shell_command, space,
                                YamlPlace(config, config.command_positions.empty()
                                                      ? YamlPosition{}
                                                      : config.command_positions.front()) +
                                    "command");
  for (std::size_t i = 0; i < config.command.size(); ++i)
    GS_TRY(CheckConditionalUses(
        config.command[i], space,
        YamlPlace(config, i < config.command_positions.size() ? config.command_positions[i]
                                                              : YamlPosition{}) +
            fmt::format("command[{}]", i)));
  for (std::size_t i = 0; i < config.templates.size(); ++i) {
    const TemplateSpec& spec = config.templates[i];
    Status checked = CheckConditionalUses(spec.text, space, spec.src.string());
    if (!checked)
      return Fail(checked.error().code,
                  fmt::format("{} (the template of templates[{}] at {}:{}:{})",
                              checked.error().message, i, config.config_path.string(),
                              spec.position.line, spec.position.column));
  }
  return {};
}

namespace {

bool IsEmptyFileAt(int dir, const char* name) {
  struct stat info;
  return ::fstatat(dir, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode) &&
         info.st_size == 0;
}

// The rendered templates, beneath the trial directory `dir`.
Status WriteTemplates(const RenderedTrial& trial, const UniqueFd& dir) {
  for (const auto& [path, text] : trial.files) {
    const std::filesystem::path relative = path.lexically_relative(trial.dir);
    GS_ASSIGN_OR_RETURN(UniqueFd parent,
                        MakeDirectoriesBeneath(dir.get(), relative.parent_path(), trial.dir));
    GS_TRY(WriteFileAt(parent.get(), relative.filename().string(), text, path));
  }
  return {};
}

}  // namespace

Status WriteTrialFiles(const RenderedTrial& trial, const Params& params, int attempt,
                       std::optional<UniqueFd> staged) {
  // Dotted names nested, as the search space writes them (param_conditions.h).
  const std::string params_text = NestParams(params).dump(2) + "\n";
  const TrialFiles files{trial.dir};
  if (staged) {
    GS_TRY(WriteStagedFileAt(staged->get(), TrialFiles::kParams, params_text, files.params()));
    return WriteTemplates(trial, *staged);
  }
  std::error_code ec;
  std::filesystem::create_directories(trial.dir.parent_path(), ec);
  if (ec) return Fail(ErrorCode::kIo, fmt::format("{}: cannot create trial directory: {}",
                                                  trial.dir.string(), ec.message()));
  DirectoryOrigin origin = DirectoryOrigin::kExisted;
  GS_ASSIGN_OR_RETURN(UniqueFd dir, OpenOwnDirectory(trial.dir, &origin));
  if (origin == DirectoryOrigin::kCreated) {
    // Nothing to move aside and nobody to see a half-written file: the usual case, with
    // no rename and no lookups of files that cannot be there.
    GS_TRY(WriteNewFileAt(dir.get(), TrialFiles::kParams, params_text, files.params()));
  } else {
    // Each attempt starts with its own, empty metrics.jsonl: no line of an earlier copy
    // can become a result of this one. Files without a journaled attempt (written by a
    // gpusweep older than the launch intent) are kept as *.unrecorded.*.
    const std::string kept = attempt > 1 ? fmt::format("attempt{}", attempt - 1) : "unrecorded";
    if (attempt > 1 || !IsEmptyFileAt(dir.get(), TrialFiles::kOutputLog))
      GS_TRY(MoveAsideAt(dir.get(), TrialFiles::kOutputLog, TrialFiles::KeptOutputLog(kept), trial.dir));
    GS_TRY(MoveAsideAt(dir.get(), TrialFiles::kMetrics, TrialFiles::KeptMetrics(kept),
                       trial.dir));
    GS_TRY(WriteFileAt(dir.get(), TrialFiles::kParams, params_text, files.params()));
  }
  return WriteTemplates(trial, dir);
}

}  // namespace gpusweep
