#include "run/experiment_meta.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/json_limits.h"
#include "gpusweep/experiment_files.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"

namespace gpusweep {
namespace {
}  // namespace

std::optional<SchedulerSummary> SummarizeScheduler(const SchedulerConfig& scheduler) {
  if (scheduler.kind == SchedulerKind::kNone) return std::nullopt;
  return SchedulerSummary{std::string(ToString(scheduler.kind)), scheduler.resource,
                          scheduler.max_resource};
}

Status WriteExperimentMeta(const std::filesystem::path& experiment_dir, const ExperimentMeta& meta) {
  Json json{{"name", meta.name},
            {"metric", {{"name", meta.metric.name},
                        {"mode", ModeName(meta.metric.mode)}}},
            {"total_trials", meta.total_trials},
            {"config_path", meta.config_path}};
  if (meta.scheduler)
    json["scheduler"] = Json{{"type", meta.scheduler->type},
                             {"resource", meta.scheduler->resource},
                             {"max_resource", meta.scheduler->max_resource}};
  if (meta.cv.enabled())
    json["cv"] = Json{{"folds", meta.cv.folds}, {"allow_failed_folds", meta.cv.allow_failed_folds}};
  return WriteFileAtomically(ExperimentFiles{experiment_dir}.meta(), json.dump(2) + "\n");
}

Expected<ExperimentMeta> ReadExperimentMeta(const std::filesystem::path& experiment_dir) {
  const auto path = ExperimentFiles{experiment_dir}.meta();
  std::ifstream in(path);
  if (!in)
    return Fail(ErrorCode::kNotFound,
                fmt::format("{}: missing; is {} a gpusweep experiment directory?", path.string(),
                            experiment_dir.string()));
  std::stringstream text;
  text << in.rdbuf();
  const Json json = ParseJsonWithDepthLimit(text.str()).value_or(Json());
  try {
    ExperimentMeta meta;
    meta.name = json.at("name").get<std::string>();
    meta.metric.name = json.at("metric").at("name").get<std::string>();
    meta.metric.mode = json.at("metric").at("mode") == "min" ? Mode::kMin : Mode::kMax;
    meta.total_trials = json.at("total_trials").get<int>();
    meta.config_path = json.value("config_path", "");
    if (json.contains("scheduler"))
      meta.scheduler = SchedulerSummary{json["scheduler"].at("type").get<std::string>(),
                                        json["scheduler"].at("resource").get<std::string>(),
                                        json["scheduler"].at("max_resource").get<double>()};
    if (json.contains("cv")) {
      meta.cv.folds = json["cv"].at("folds").get<int>();
      meta.cv.allow_failed_folds = json["cv"].at("allow_failed_folds").get<int>();
      if (meta.cv.folds < 2 || meta.cv.folds > kMaxFolds || meta.cv.allow_failed_folds < 0)
        return Fail(ErrorCode::kIo, fmt::format("{}: unreadable (cv.folds {} is not in 2..{})",
                                                path.string(), meta.cv.folds, kMaxFolds));
    }
    return meta;
  } catch (const Json::exception& e) {
    return Fail(ErrorCode::kIo, fmt::format("{}: unreadable ({})", path.string(), e.what()));
  }
}

}  // namespace gpusweep
