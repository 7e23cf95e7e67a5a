// allowed_gpus.cc — which GPUs trials may use: detected ∩ CUDA_VISIBLE_DEVICES ∩ config
// ∩ --gpus (see resources.h for the rules).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

std::string_view Trim(std::string_view text) {
  const auto not_space = [](char c) { return !std::isspace(static_cast<unsigned char>(c)); };
  const auto first = std::find_if(text.begin(), text.end(), not_space);
  const auto last = std::find_if(text.rbegin(), text.rend(), not_space).base();
  return first < last ? std::string_view(first, last) : std::string_view();
}

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(Trim(text.substr(start, comma - start)));
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

// A non-negative decimal integer that is the whole of `text`.
std::optional<int> ParseIndex(std::string_view text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text.front()))) return {};
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

std::string ListText(const std::vector<int>& indices) {
  return indices.empty() ? "none" : fmt::format("{}", fmt::join(indices, ","));
}

bool Contains(const std::vector<int>& indices, int index) {
  return std::find(indices.begin(), indices.end(), index) != indices.end();
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

// The GPU one CUDA_VISIBLE_DEVICES entry names, or nullopt (with `why`) if CUDA would
// reject it.
std::optional<int> ResolveVisibleEntry(std::string_view entry,
                                       const std::vector<GpuInfo>& detected,
                                       const std::vector<int>& already, std::string* why) {
  std::optional<int> index;
  if (std::optional<int> number = ParseIndex(entry)) {
    const bool known = std::any_of(detected.begin(), detected.end(),
                                   [&](const GpuInfo& gpu) { return gpu.index == *number; });
    if (known) index = number;
    else *why = "is not a detected GPU index";
  } else if (StartsWithNoCase(entry, "GPU-")) {
    int matches = 0;
    for (const GpuInfo& gpu : detected) {
      if (StartsWithNoCase(gpu.uuid, entry)) ++matches, index = gpu.index;
    }
    if (matches != 1) {
      index.reset();
      *why = matches == 0 ? "matches no detected GPU UUID" : "matches several GPU UUIDs";
    }
  } else if (StartsWithNoCase(entry, "MIG-")) {
    *why = "is a MIG device, which gpusweep does not schedule";
  } else {
    *why = "is neither a GPU index nor a GPU UUID";
  }
  if (index && Contains(already, *index)) {
    index.reset();
    *why = "repeats a GPU listed before it";
  }
  return index;
}

// The detected GPUs CUDA_VISIBLE_DEVICES lets through, ascending.
std::vector<int> VisibleGpus(const std::vector<GpuInfo>& detected,
                             const std::optional<std::string>& cuda_visible_devices,
                             std::vector<std::string>* warnings) {
  std::vector<int> visible;
  if (!cuda_visible_devices) {
    for (const GpuInfo& gpu : detected) visible.push_back(gpu.index);
  } else if (!Trim(*cuda_visible_devices).empty()) {
    for (std::string_view entry : SplitCommas(*cuda_visible_devices)) {
      std::string why;
      std::optional<int> index = ResolveVisibleEntry(entry, detected, visible, &why);
      if (!index) {
        // "-1" is the usual way to hide every GPU, so it is meant, not a mistake; and
        // without any GPU the caller already says so.
        const bool deliberate = entry.starts_with('-') && ParseIndex(entry.substr(1));
        if (!deliberate && !detected.empty()) {
          warnings->push_back(fmt::format(
              "CUDA_VISIBLE_DEVICES=\"{}\": entry \"{}\" {}; like CUDA, gpusweep ignores it "
              "and every entry after it",
              *cuda_visible_devices, entry, why));
        }
        break;
      }
      visible.push_back(*index);
    }
  }
  std::sort(visible.begin(), visible.end());
  return visible;
}

// Why `index` is not in `allowed`, for error messages.
std::string Unavailability(int index, const std::vector<GpuInfo>& detected,
                           const std::vector<int>& visible,
                           const std::optional<std::string>& cuda_visible_devices,
                           const ResourcesConfig& config) {
  const bool is_detected = std::any_of(detected.begin(), detected.end(),
                                       [&](const GpuInfo& gpu) { return gpu.index == index; });
  // First: a caller may skip probing when the config says none.
  if (config.gpus == GpuMode::kNone) return "the config says resources.gpus: none";
  if (detected.empty()) return "no GPU was detected (NVML found none)";
  if (!is_detected) return "it is not a detected GPU";
  if (!Contains(visible, index)) {
    return fmt::format("CUDA_VISIBLE_DEVICES=\"{}\" hides it", cuda_visible_devices.value_or(""));
  }
  return "the list in resources.gpus does not include it";
}

}  // namespace

Expected<AllowedGpus> ResolveAllowedGpus(const std::vector<GpuInfo>& detected,
                                         const std::optional<std::string>& cuda_visible_devices,
                                         const ResourcesConfig& config,
                                         const std::optional<std::vector<int>>& cli_gpus) {
  AllowedGpus result;
  const std::vector<int> visible = VisibleGpus(detected, cuda_visible_devices, &result.warnings);

  std::vector<int> configured;
  switch (config.gpus) {
    case GpuMode::kAuto:
      configured = visible;
      break;
    case GpuMode::kNone:
      break;
    case GpuMode::kList:
      for (int index : std::set<int>(config.gpu_list.begin(), config.gpu_list.end())) {
        if (!Contains(visible, index)) {
          return Fail(ErrorCode::kInvalidConfig,
                      fmt::format("resources.gpus: lists GPU {}, but {}; available GPUs: {}",
                                  index,
                                  Unavailability(index, detected, visible,
                                                 cuda_visible_devices, config),
                                  ListText(visible)));
        }
        configured.push_back(index);
      }
      break;
  }

  if (!cli_gpus) {
    result.indices = std::move(configured);
    return result;
  }
  for (int index : std::set<int>(cli_gpus->begin(), cli_gpus->end())) {
    if (!Contains(configured, index)) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--gpus names GPU {}, but {}; available GPUs: {}", index,
                              Unavailability(index, detected, visible, cuda_visible_devices,
                                             config),
                              ListText(configured)));
    }
    result.indices.push_back(index);
  }
  return result;
}

Expected<std::vector<int>> ParseGpuList(std::string_view text) {
  if (Trim(text) == "none") return std::vector<int>{};
  if (Trim(text).empty()) {
    return Fail(ErrorCode::kInvalidArgument,
                "--gpus is empty; give GPU indices like 0,2 or \"none\" for CPU only");
  }
  std::vector<int> gpus;
  for (std::string_view entry : SplitCommas(text)) {
    std::optional<int> index = ParseIndex(entry);
    if (!index) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--gpus \"{}\": \"{}\" is not a GPU index (a number >= 0); "
                              "expected a list like 0,2",
                              text, entry));
    }
    if (Contains(gpus, *index)) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--gpus \"{}\": GPU {} is listed twice", text, *index));
    }
    gpus.push_back(*index);
  }
  return gpus;
}

}  // namespace gpusweep
