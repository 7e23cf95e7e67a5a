// gpu_pool.cc — GPU allocation: exclusive or shared slots, memory reservations checked
// against the last NVML reading. Non-blocking by design: the scheduler polls TryAcquire,
// so there is no semaphore to deadlock on when a trial needs several GPUs and others hold
// some of them. The release side (readings, checks, quarantine) is in gpu_release.cc.
#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "gpusweep/resources.h"
#include "gpusweep/trial.h"
#include "resources/gpu_memory.h"

namespace gpusweep {

GpuSharing GpuSharingFrom(const ResourcesConfig& resources) {
  GpuSharing sharing;
  sharing.memory_per_trial = resources.gpu_memory_per_trial;
  if (resources.trials_per_gpu) sharing.trials_per_gpu = *resources.trials_per_gpu;
  else if (resources.gpu_memory_per_trial) sharing.trials_per_gpu = INT_MAX;
  sharing.min_free_memory = resources.min_free_gpu_memory;
  sharing.release_timeout_seconds = resources.gpu_release_timeout_seconds;
  sharing.release_tolerance = resources.gpu_release_tolerance;
  return sharing;
}

int TrialsPerGpu(const GpuSharing& sharing, std::uint64_t total_bytes) {
  int count = std::max(sharing.trials_per_gpu, 1);
  if (sharing.memory_per_trial && *sharing.memory_per_trial > 0 && total_bytes > 0) {
    const std::uint64_t fit = total_bytes / *sharing.memory_per_trial;
    count = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(count), fit));
  }
  return std::max(count, 1);
}

GpuPool::GpuPool(std::vector<int> gpus, GpuSharing sharing)
    : gpus_(std::move(gpus)), sharing_(sharing) {
  std::sort(gpus_.begin(), gpus_.end());
  gpus_.erase(std::unique(gpus_.begin(), gpus_.end()), gpus_.end());
  state_.resize(gpus_.size());
  sharing_.trials_per_gpu = std::max(sharing_.trials_per_gpu, 1);
}

int GpuPool::total() const { return static_cast<int>(gpus_.size()); }

int GpuPool::free_count() const {
  return static_cast<int>(std::count_if(state_.begin(), state_.end(), [&](const Gpu& gpu) {
    return !gpu.quarantined && static_cast<int>(gpu.holds.size()) < sharing_.trials_per_gpu;
  }));
}

// A released trial's hold keeps its slot until its memory is verified free.
bool GpuPool::HasRoom(const Gpu& gpu, bool note) {
  if (gpu.quarantined || static_cast<int>(gpu.holds.size()) >= sharing_.trials_per_gpu)
    return false;
  return MemoryAllows(gpu, note);
}

bool GpuPool::MemoryAllows(const Gpu& gpu, bool note) {
  if (!gpu.reading) return true;  // nothing to check against (no NVML)
  const std::uint64_t declared = sharing_.memory_per_trial.value_or(0);
  const std::uint64_t needed = std::max(declared, sharing_.min_free_memory);
  if (needed == 0) return true;
  // Running trials' memory that is reserved but not allocated yet is not free.
  std::uint64_t reserved = 0;
  for (const Hold& hold : gpu.holds)
    if (!hold.released_at && hold.current_bytes < declared) reserved += declared - hold.current_bytes;
  const std::uint64_t free = gpu.reading->free_bytes;
  const std::uint64_t available = free > reserved ? free - reserved : 0;
  if (available >= needed) return true;
  memory_refused_ = true;
  if (note) {
    const int index = gpu.reading->index;
    std::string why =
        reserved > 0 ? fmt::format("{} free, {} of it reserved by its running trials",
                                   FormatByteSize(free), FormatByteSize(reserved))
                     : fmt::format("{} free", FormatByteSize(free));
    notices_.push_back(GpuNotice{
        GpuNotice::Kind::kLowMemory, index, -1, available, {},
        fmt::format("GPU {} not used for now: {}, a trial needs {} ({}); waiting for memory",
                    index, why, FormatByteSize(needed),
                    declared >= sharing_.min_free_memory ? "resources.gpu_memory_per_trial"
                                                         : "resources.min_free_gpu_memory")});
  }
  return false;
}

std::optional<std::vector<int>> GpuPool::TryAcquire(int count, int trial) {
  if (count < 0) return std::nullopt;
  if (count == 0) return std::vector<int>{};
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < state_.size(); ++i)
    if (HasRoom(state_[i], /*note=*/false)) candidates.push_back(i);
  if (static_cast<int>(candidates.size()) < count) {
    // Say once per GPU and episode why a GPU with a free slot is passed over.
    for (std::size_t i = 0; i < state_.size(); ++i) {
      Gpu& gpu = state_[i];
      const bool slot = !gpu.quarantined &&
                        static_cast<int>(gpu.holds.size()) < sharing_.trials_per_gpu;
      if (slot && !low_memory_noted_.contains(gpus_[i]) && !MemoryAllows(gpu, true))
        low_memory_noted_.insert(gpus_[i]);
    }
    return std::nullopt;
  }
  // Spread before stacking: the least loaded GPUs first, lowest index among equals.
  std::stable_sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    return state_[a].holds.size() < state_[b].holds.size();
  });
  std::vector<int> acquired;
  for (int k = 0; k < count; ++k) {
    Gpu& gpu = state_[candidates[k]];
    Hold hold;
    hold.trial = trial;
    if (gpu.reading) {
      hold.baseline = gpu_memory::UnlistedBytes(*gpu.reading);
      hold.listed_before = gpu_memory::ListedPids(*gpu.reading);
    }
    gpu.holds.push_back(std::move(hold));
    low_memory_noted_.erase(gpus_[candidates[k]]);
    acquired.push_back(gpus_[candidates[k]]);
  }
  std::sort(acquired.begin(), acquired.end());
  return acquired;
}

namespace {

std::vector<GpuInfo> Allowed(const std::vector<GpuInfo>& detected, const std::vector<int>& allowed) {
  std::vector<GpuInfo> kept;
  for (const GpuInfo& gpu : detected)
    if (std::find(allowed.begin(), allowed.end(), gpu.index) != allowed.end()) kept.push_back(gpu);
  return kept;
}

}  // namespace

Status CheckGpuMemoryDemand(const GpuSharing& sharing, const std::vector<GpuInfo>& detected,
                            const std::vector<int>& allowed) {
  const std::uint64_t declared = sharing.memory_per_trial.value_or(0);
  const std::uint64_t needed = std::max(declared, sharing.min_free_memory);
  const std::vector<GpuInfo> gpus = Allowed(detected, allowed);
  if (needed == 0 || gpus.empty()) return {};
  const auto largest = std::max_element(
      gpus.begin(), gpus.end(),
      [](const GpuInfo& a, const GpuInfo& b) { return a.memory_total_bytes < b.memory_total_bytes; });
  if (largest->memory_total_bytes == 0 || needed <= largest->memory_total_bytes) return {};
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("resources.{} is {} but the largest allowed GPU (GPU {}, {}) has only "
                          "{}: no trial could ever start; lower it",
                          declared >= sharing.min_free_memory ? "gpu_memory_per_trial"
                                                              : "min_free_gpu_memory",
                          FormatByteSize(needed), largest->index, largest->name,
                          FormatByteSize(largest->memory_total_bytes)));
}

int SharedGpuSlots(const GpuSharing& sharing, const std::vector<GpuInfo>& detected,
                   const std::vector<int>& allowed) {
  int slots = 0;
  for (int index : allowed) {
    const auto info = std::find_if(detected.begin(), detected.end(),
                                   [&](const GpuInfo& gpu) { return gpu.index == index; });
    const int here = TrialsPerGpu(sharing, info != detected.end() ? info->memory_total_bytes : 0);
    slots = here > INT_MAX - slots ? INT_MAX : slots + here;
  }
  return slots;
}

Status CheckGpuDemand(const std::vector<int>& gpus_per_trial_by_trial, int available) {
  for (std::size_t trial = 0; trial < gpus_per_trial_by_trial.size(); ++trial) {
    const int needed = gpus_per_trial_by_trial[trial];
    const std::string who = gpus_per_trial_by_trial.size() == 1
                                ? std::string("each trial")
                                : fmt::format("trial {}", trial);
    if (needed < 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("{} asks for {} GPUs; a GPU count must be >= 0", who, needed));
    }
    if (needed > available) {
      return Fail(ErrorCode::kResource,
                  fmt::format("{} needs {} GPU{} but only {} {} available; lower "
                              "gpus_per_trial or add GPUs",
                              who, needed, needed == 1 ? "" : "s", available,
                              available == 1 ? "is" : "are"));
    }
  }
  return {};
}

}  // namespace gpusweep
