// resources.h — what a trial may run on: GPU inventory, the allowed GPUs, exclusive
// whole-GPU allocation, CPU slots and the per-trial resource environment.
//
// Contract:
//  - GPU indices everywhere are NVML indices, i.e. PCI bus order. A trial's
//    CUDA_VISIBLE_DEVICES lists them together with CUDA_DEVICE_ORDER=PCI_BUS_ID, so CUDA
//    inside the trial numbers devices the same way.
//  - No GPU is a normal situation, not an error: without libnvidia-ml.so.1 (or without a
//    loaded NVIDIA driver) the inventory is empty and trials run on CPU slots. Only a
//    driver that is present but fails is an Error{kResource}.
//  - Nothing here warns the user directly; callers print the warnings returned.
//  - GpuPool is not synchronized: one thread (the scheduler loop) owns it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/status.h"

namespace gpusweep {

// One GPU as the driver reports it.
struct GpuInfo {
  int index = 0;                        // NVML index (PCI bus order)
  std::string name;                     // e.g. "NVIDIA H100 80GB HBM3"
  std::string uuid;                     // e.g. "GPU-8f3c2a1e-...", as CUDA_VISIBLE_DEVICES accepts
  std::uint64_t memory_total_bytes = 0; // framebuffer size in bytes
};

// The GPU inventory; an interface so tests inject a fake.
class GpuProbe {
 public:
  virtual ~GpuProbe() = default;
  // Every GPU the driver reports, in index order. Empty vector when NVML is absent
  // (libnvidia-ml.so.1 not loadable, or NVML says the driver is not loaded) or reports
  // no device. Error{kResource} only for a present-but-failing driver; the message names
  // the NVML call and includes nvmlErrorString().
  virtual Expected<std::vector<GpuInfo>> ListGpus() = 0;
};

// The real inventory: dlopen("libnvidia-ml.so.1") at run time, so gpusweep neither
// links nor needs NVML at build time. Each ListGpus() call loads, initializes, queries,
// shuts NVML down and unloads it.
std::unique_ptr<GpuProbe> MakeNvmlProbe();

struct AllowedGpus {
  std::vector<int> indices;           // NVML indices trials may use, ascending, unique
  std::vector<std::string> warnings;  // e.g. an ignored CUDA_VISIBLE_DEVICES entry
};

// Which GPU indices trials may use, the intersection of:
//  1. `detected` (from the probe);
//  2. gpusweep's own CUDA_VISIBLE_DEVICES (`cuda_visible_devices`; nullopt = unset):
//     comma-separated NVML indices ("0,2"), UUIDs or unique UUID prefixes ("GPU-8f3c"),
//     or "" meaning none. As in CUDA, the first invalid entry (unknown index, unknown or
//     ambiguous UUID, duplicate, MIG device, garbage) ends the list: it and all later
//     entries are ignored, with a warning. Indices are read in PCI bus order; users who
//     rely on CUDA's default FASTEST_FIRST order should give UUIDs;
//  3. the config: kAuto all, kNone none, kList exactly `gpu_list` (Error if one of them
//     is not detected or is hidden by CUDA_VISIBLE_DEVICES);
//  4. `cli_gpus` (--gpus; nullopt = not given): exactly those (Error if one is not
//     allowed by 1-3).
// Errors: Error{kInvalidConfig} for a GPU in the config's list, Error{kInvalidArgument}
// for one in --gpus, naming the index, why it is unavailable and the available indices. An empty result is not an error (the caller warns and runs on CPU).
Expected<AllowedGpus> ResolveAllowedGpus(const std::vector<GpuInfo>& detected,
                                         const std::optional<std::string>& cuda_visible_devices,
                                         const ResourcesConfig& config,
                                         const std::optional<std::vector<int>>& cli_gpus);

// Parses --gpus text: "0,2,3" -> {0,2,3} in the given order (spaces around entries are
// allowed); "none" -> {} (CPU only). Error{kInvalidArgument} for empty text, an empty or
// non-numeric or negative entry, or a duplicate.
Expected<std::vector<int>> ParseGpuList(std::string_view text);

// Exclusive whole-GPU allocation: a GPU is held by at most one trial at a time.
// Never blocks: TryAcquire returns nullopt until enough GPUs are released.
class GpuPool {
 public:
  explicit GpuPool(std::vector<int> gpus);  // allowed indices; duplicates are dropped

  int total() const;       // number of GPUs in the pool
  int free_count() const;  // number not held

  // The `count` lowest-numbered free GPUs, now marked busy; nullopt if fewer are free
  // (or count < 0). count == 0 -> empty vector (a CPU trial).
  std::optional<std::vector<int>> TryAcquire(int count);

  // Marks `gpus` free. An index that is not busy or not in the pool is a programming
  // error: it is ignored, so the pool's counts stay right.
  void Release(const std::vector<int>& gpus);

 private:
  std::vector<int> gpus_;   // ascending
  std::vector<bool> busy_;  // busy_[i] <=> gpus_[i] is held
};

// Checks that every trial's GPU demand fits the pool before anything starts.
// `gpus_per_trial_by_trial`: one count per trial in trial-number order, or a single
// count meaning every trial. `available`: the number of allowed GPUs.
// Error{kResource, "trial 3 needs 4 GPUs but only 2 are available; lower gpus_per_trial
// or add GPUs"} for the first trial that cannot fit; Error{kInvalidArgument} for a
// negative count.
Status CheckGpuDemand(const std::vector<int>& gpus_per_trial_by_trial, int available);

// Cores this process may run on (sched_getaffinity), >= 1. Ignores cgroup CPU quotas.
int UsableCpuCores();

// Concurrency slots when trials get no GPU: config.cpu_slots, else `usable_cores`;
// capped by config.max_concurrent; >= 1.
int CpuSlots(const ResourcesConfig& config, int usable_cores);

// Environment additions (KEY, VALUE) for one trial; `parent_getenv` looks up gpusweep's
// own environment (nullopt = unset).
//  GPU trial: CUDA_VISIBLE_DEVICES="2,3" (the given order), CUDA_DEVICE_ORDER=PCI_BUS_ID.
//  CPU trial (`gpus` empty): CUDA_VISIBLE_DEVICES="" so it cannot grab a GPU the pool
//  does not manage, and OMP_NUM_THREADS, MKL_NUM_THREADS, OPENBLAS_NUM_THREADS, each
//  unless the parent sets it, = max(1, usable_cores / concurrent_slots), so concurrent
//  trials do not oversubscribe the cores.
std::vector<std::pair<std::string, std::string>> TrialResourceEnv(
    const std::vector<int>& gpus, int usable_cores, int concurrent_slots,
    const std::function<std::optional<std::string>(const std::string&)>& parent_getenv);

}  // namespace gpusweep
