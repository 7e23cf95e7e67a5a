#include "config/backend_parser.h"

#include "config/unit_values.h"

#include <array>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 10> kSlurmKeys{
    "type", "partition", "account", "qos", "time", "extra_args", "cpus_per_trial",
    "poll_interval", "max_poll_interval", "max_jobs"};
constexpr std::array<std::string_view, 2> kBackendTypes{"local", "slurm"};

Status ParseText(const Mapping& section, std::string_view key, std::string& out) {
  const Value* value = section.Find(key);
  if (value == nullptr || value->IsNull()) return {};
  GS_ASSIGN_OR_RETURN(out, value->ToText());
  if (out.empty() || out.find_first_of(" \t\n,") != std::string::npos)
    return value->Invalid(fmt::format("'{}' is not a SLURM {} name", out, key),
                          fmt::format("give one name, e.g. {}: gpu, or leave the key out for "
                                      "the cluster's default",
                                      key));
  return {};
}

Status ParsePositiveSeconds(const Mapping& section, std::string_view key, double& out) {
  const Value* value = section.Find(key);
  if (value == nullptr) return {};
  GS_ASSIGN_OR_RETURN(out, ToSeconds(*value));
  if (out <= 0) return value->Invalid("the duration must be positive", "e.g. 2s or 500ms");
  return {};
}

Status ParseSlurm(const Mapping& section, SlurmConfig& slurm) {
  GS_TRY(ParseText(section, "partition", slurm.partition));
  GS_TRY(ParseText(section, "account", slurm.account));
  GS_TRY(ParseText(section, "qos", slurm.qos));
  if (const Value* time = section.Find("time"); time && !time->IsNull()) {
    GS_ASSIGN_OR_RETURN(slurm.time_seconds, ToSeconds(*time));
    if (*slurm.time_seconds < 60)
      return time->Invalid("SLURM's time limits are whole minutes",
                           "give at least 1m, e.g. time: 2h");
  }
  if (const Value* extra = section.Find("extra_args"); extra && !extra->IsNull()) {
    if (!extra->IsList())
      return extra->WrongType("a list of sbatch options", "e.g. extra_args: [--constraint=a100]");
    GS_ASSIGN_OR_RETURN(std::vector<Value> list, extra->ToList());
    for (const Value& element : list) {
      GS_ASSIGN_OR_RETURN(std::string arg, element.ToText());
      if (!arg.starts_with("-"))
        return element.Invalid(fmt::format("'{}' is not an sbatch option", arg),
                               "write each option as sbatch takes it, e.g. --constraint=a100");
      slurm.extra_args.push_back(std::move(arg));
    }
  }
  if (const Value* cpus = section.Find("cpus_per_trial")) {
    GS_ASSIGN_OR_RETURN(slurm.cpus_per_trial, cpus->ToIntAtLeast(1));
  }
  if (const Value* jobs = section.Find("max_jobs")) {
    GS_ASSIGN_OR_RETURN(slurm.max_jobs, jobs->ToIntAtLeast(1));
  }
  GS_TRY(ParsePositiveSeconds(section, "poll_interval", slurm.poll_interval_seconds));
  GS_TRY(ParsePositiveSeconds(section, "max_poll_interval", slurm.max_poll_interval_seconds));
  if (slurm.max_poll_interval_seconds < slurm.poll_interval_seconds)
    return section.Find("max_poll_interval")
        ->Invalid("max_poll_interval is shorter than poll_interval",
                  "make max_poll_interval at least poll_interval");
  return {};
}

}  // namespace

Expected<BackendConfig> ParseBackend(const Value* value) {
  BackendConfig backend;
  if (value == nullptr || value->IsNull()) return backend;
  backend.line = value->line();
  if (value->IsScalar()) {  // backend: slurm
    GS_ASSIGN_OR_RETURN(std::string_view type, value->ToEnum(kBackendTypes));
    if (type == "slurm") backend.kind = BackendKind::kSlurm;
    return backend;
  }
  GS_ASSIGN_OR_RETURN(Mapping section, value->ToMapping());
  GS_TRY(section.CheckKeys(kSlurmKeys));
  GS_ASSIGN_OR_RETURN(Value type, section.Require("type", "add type: slurm (or local)"));
  GS_ASSIGN_OR_RETURN(std::string_view kind, type.ToEnum(kBackendTypes));
  if (kind == "local") {
    if (section.entries().size() > 1)
      return type.Invalid("the local backend takes no options",
                          "remove the SLURM keys, or use type: slurm");
    return backend;
  }
  backend.kind = BackendKind::kSlurm;
  GS_TRY(ParseSlurm(section, backend.slurm));
  return backend;
}

}  // namespace gpusweep::config_detail
