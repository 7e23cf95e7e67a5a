#include "config/resources_parser.h"

#include "config/unit_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 9> kResourcesKeys{
    "gpus",           "gpus_per_trial",      "cpu_slots",
    "max_concurrent", "trials_per_gpu",      "gpu_memory_per_trial",
    "min_free_gpu_memory", "gpu_release_timeout", "gpu_release_tolerance"};
constexpr std::array<std::string_view, 2> kGpuModes{"auto", "none"};

Status ParseGpus(const Value& value, ResourcesConfig& resources) {
  if (!value.IsList()) {
    if (!value.IsScalar())
      return value.WrongType("auto, none or a list of GPU indices", "e.g. gpus: [0, 1]");
    // A number is ambiguous here: a count (Ray's num_gpus), or an index without its
    // brackets. Say both readings instead of guessing one.
    if (const Expected<std::int64_t> n = value.ToInt(); n && *n >= 0)
      return value.Invalid(
          "gpus takes which GPUs, not how many",
          *n == 0 ? std::string("write gpus: none for CPU-only trials")
                  : fmt::format("write gpus: [{}] for GPU {} alone, gpus: auto for every GPU, and "
                                "gpus_per_trial: {} for {} GPU{} per trial",
                                *n, *n, *n, *n, *n == 1 ? "" : "s"));
    GS_ASSIGN_OR_RETURN(std::string_view mode, value.ToEnum(kGpuModes));
    resources.gpus = mode == "auto" ? GpuMode::kAuto : GpuMode::kNone;
    return {};
  }
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.empty())
    return value.Invalid("the GPU list is empty", "use gpus: none for CPU-only trials");
  resources.gpus = GpuMode::kList;
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(int index, element.ToIntAtLeast(0));
    if (std::ranges::find(resources.gpu_list, index) != resources.gpu_list.end())
      return element.Invalid(fmt::format("GPU {} is listed twice", index),
                             "list each GPU index once");
    resources.gpu_list.push_back(index);
  }
  return {};
}

Status ParseGpusPerTrial(const Value& value, std::uint64_t total_trials,
                         ResourcesConfig& resources) {
  resources.gpus_per_trial.clear();
  if (!value.IsList()) {
    GS_ASSIGN_OR_RETURN(int count, value.ToIntAtLeast(0));
    resources.gpus_per_trial.push_back(count);
    return {};
  }
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value.ToList());
  if (list.size() != total_trials)
    return value.Invalid(
        fmt::format("the list has {} entries but the sampler runs {} trials", list.size(),
                    total_trials),
        "give exactly one GPU count per trial in trial order, or one integer for all trials");
  for (const Value& element : list) {
    GS_ASSIGN_OR_RETURN(int count, element.ToIntAtLeast(0));
    resources.gpus_per_trial.push_back(count);
  }
  return {};
}

// Per-trial counts must be satisfiable by what `gpus` allows (auto is checked at run time).
Status CheckCountsFitGpus(const Value& counts, const ResourcesConfig& resources) {
  const int most = *std::ranges::max_element(resources.gpus_per_trial);
  if (resources.gpus == GpuMode::kNone && most > 0)
    return counts.Invalid(fmt::format("a trial asks for {} GPU{} but gpus is none", most, most == 1 ? "" : "s"),
                          "use gpus_per_trial: 0, or gpus: auto or a list");
  if (resources.gpus == GpuMode::kList && most > static_cast<int>(resources.gpu_list.size()))
    return counts.Invalid(fmt::format("a trial asks for {} GPUs but gpus lists only {}", most,
                                      resources.gpu_list.size()),
                          "list more GPUs or lower gpus_per_trial");
  return {};
}

Status ParseCpuSlots(const Value& value, ResourcesConfig& resources) {
  if (value.IsScalar() && value.node().Scalar() == "auto") return {};  // nullopt = auto
  if (!value.ToInt()) return value.WrongType("auto or an integer >= 1", "e.g. cpu_slots: 8");
  GS_ASSIGN_OR_RETURN(resources.cpu_slots, value.ToIntAtLeast(1));
  return {};
}

Status ParseMaxConcurrent(const Value& value, ResourcesConfig& resources) {
  if (value.IsNull()) return {};  // nullopt = no cap
  if (!value.ToInt()) return value.WrongType("null or an integer >= 1", "e.g. max_concurrent: 4");
  GS_ASSIGN_OR_RETURN(resources.max_concurrent, value.ToIntAtLeast(1));
  return {};
}

// trials_per_gpu, gpu_memory_per_trial, min_free_gpu_memory and the release check.
Status ParseGpuSharing(const Mapping& mapping, ResourcesConfig& resources) {
  if (const Value* count = mapping.Find("trials_per_gpu")) {
    GS_ASSIGN_OR_RETURN(resources.trials_per_gpu, count->ToIntAtLeast(1));
  }
  if (const Value* memory = mapping.Find("gpu_memory_per_trial"); memory && !memory->IsNull()) {
    GS_ASSIGN_OR_RETURN(resources.gpu_memory_per_trial, ToByteSize(*memory));
    if (*resources.gpu_memory_per_trial == 0)
      return memory->Invalid("a trial cannot run in 0 bytes of GPU memory",
                             "give what one trial needs, e.g. 10GiB, or leave the key out");
  }
  if (const Value* floor = mapping.Find("min_free_gpu_memory")) {
    GS_ASSIGN_OR_RETURN(resources.min_free_gpu_memory, ToByteSize(*floor));
  }
  if (const Value* timeout = mapping.Find("gpu_release_timeout")) {
    GS_ASSIGN_OR_RETURN(resources.gpu_release_timeout_seconds, ToSeconds(*timeout));
  }
  if (const Value* tolerance = mapping.Find("gpu_release_tolerance")) {
    GS_ASSIGN_OR_RETURN(resources.gpu_release_tolerance, ToByteSize(*tolerance));
  }
  return {};
}

}  // namespace

Expected<ResourcesConfig> ParseResources(const Value* value, std::uint64_t total_trials) {
  ResourcesConfig resources;
  if (value == nullptr || value->IsNull()) return resources;
  GS_ASSIGN_OR_RETURN(Mapping mapping, value->ToMapping());
  GS_TRY(mapping.CheckKeys(kResourcesKeys));
  if (const Value* gpus = mapping.Find("gpus")) GS_TRY(ParseGpus(*gpus, resources));
  if (const Value* counts = mapping.Find("gpus_per_trial")) {
    GS_TRY(ParseGpusPerTrial(*counts, total_trials, resources));
    resources.gpus_per_trial_line = counts->mark().line + 1;
    resources.gpus_per_trial_column = counts->mark().column + 1;
    GS_TRY(CheckCountsFitGpus(*counts, resources));
  } else if (resources.gpus == GpuMode::kNone) {
    resources.gpus_per_trial = {0};  // CPU-only experiments default to no GPUs per trial
  }
  if (const Value* slots = mapping.Find("cpu_slots")) GS_TRY(ParseCpuSlots(*slots, resources));
  if (const Value* cap = mapping.Find("max_concurrent"))
    GS_TRY(ParseMaxConcurrent(*cap, resources));
  GS_TRY(ParseGpuSharing(mapping, resources));
  return resources;
}

}  // namespace gpusweep::config_detail
