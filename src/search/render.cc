// Public rendering API: scan, check names statically, then render with kainjow.
#include "gpusweep/render.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "gpusweep/trial.h"
#include "search/kainjow_render.h"
#include "search/mustache_tags.h"
#include "search/template_names.h"

namespace gpusweep {
namespace {

Expected<std::string> Render(std::string_view text, const Json& context,
                             std::string_view what, search::ValueQuoting quoting,
                             std::span<const std::string> optional) {
  GS_ASSIGN_OR_RETURN(const auto tags, search::ScanMustacheTags(text, what));
  GS_TRY(search::CheckTemplateNames(text, tags, context, what, optional));
  return search::RenderWithKainjow(text, tags, context, quoting, what);
}

}  // namespace

Json BudgetJson(double budget) {
  const double whole = std::round(budget);
  if (whole == budget && std::abs(whole) < 9e15) return Json(static_cast<std::int64_t>(whole));
  return Json(budget);
}

Json MakeTemplateContext(const Params& params, const TrialContextInfo& info) {
  Json context = params.is_object() ? NestParams(params) : Json::object();
  context["trial"] = Json{{"number", info.number},
                          {"id", TrialDirName(info.number)},
                          {"repeat", info.repeat},
                          {"dir", info.trial_dir}};
  context["config_dir"] = info.config_dir;
  context["experiment_dir"] = info.experiment_dir;
  if (info.budget) context["budget"] = BudgetJson(*info.budget);
  return context;
}

Expected<std::string> RenderTemplate(std::string_view text, const Json& context,
                                     std::string_view what, std::span<const std::string> optional) {
  return Render(text, context, what, search::ValueQuoting::kRaw, optional);
}

Expected<std::vector<std::string>> RenderArgv(const std::vector<std::string>& argv,
                                              const Json& context,
                                              std::span<const std::string> labels,
                                              std::span<const std::string> optional) {
  std::vector<std::string> rendered;
  rendered.reserve(argv.size());
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string what = i < labels.size() ? labels[i] : fmt::format("command[{}]", i);
    GS_ASSIGN_OR_RETURN(std::string arg, Render(argv[i], context, what, search::ValueQuoting::kRaw, optional));
    rendered.push_back(std::move(arg));
  }
  return rendered;
}

Expected<std::string> RenderShellCommand(std::string_view command, const Json& context,
                                         std::string_view what,
                                         std::span<const std::string> optional) {
  return Render(command, context, what, search::ValueQuoting::kShell, optional);
}

std::string ShellQuote(std::string_view word) {
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'') quoted += "'\"'\"'";  // close, a double-quoted ', reopen
    else quoted += c;
  }
  quoted += '\'';
  return quoted;
}

Expected<std::filesystem::path> ConfinedPath(const std::filesystem::path& trial_dir,
                                             std::string_view dst) {
  const auto reject = [&](std::string_view why) {
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("template destination '{}' {}; give a relative path inside the "
                            "trial directory, like 'config/model.yaml'",
                            dst, why));
  };
  if (dst.empty()) return reject("is empty");
  const std::filesystem::path relative(dst);
  if (relative.is_absolute() || relative.has_root_path()) return reject("is absolute");
  const std::filesystem::path normal = relative.lexically_normal();
  if (normal.empty() || normal == ".")
    return reject("names the trial directory itself");
  if (*normal.begin() == "..") return reject("leaves the trial directory");
  return trial_dir / normal;
}

}  // namespace gpusweep
