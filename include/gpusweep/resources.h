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
//  - GpuPool is not synchronized: one thread (the scheduler loop) owns it. It does no
//    I/O: memory readings and trial processes are handed to it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
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

// One compute process NVML lists on a GPU.
struct GpuProcessMemory {
  int pid = 0;                              // as NVML reports it: a pid of the host's namespace
  std::optional<std::uint64_t> used_bytes;  // nullopt: NVML cannot tell (some MIG setups)
};

// A GPU's memory at one moment, as NVML reports it (bytes).
struct GpuMemoryReading {
  int index = 0;  // NVML index
  std::uint64_t total_bytes = 0;
  std::uint64_t used_bytes = 0;
  std::uint64_t free_bytes = 0;
  std::vector<GpuProcessMemory> processes;  // compute processes holding memory on it
};

// The GPU inventory and memory; an interface so tests inject a fake.
class GpuProbe {
 public:
  virtual ~GpuProbe() = default;
  // Every GPU the driver reports, in index order. Empty vector when NVML is absent
  // (libnvidia-ml.so.1 not loadable, or NVML says the driver is not loaded) or reports
  // no device. Error{kResource} only for a present-but-failing driver; the message names
  // the NVML call and includes nvmlErrorString().
  virtual Expected<std::vector<GpuInfo>> ListGpus() = 0;
  // The memory of each GPU in `gpus` now, in that order. An empty vector when this probe
  // cannot read memory (no NVML, or a fake inventory): callers then skip memory checks.
  // Error{kResource} naming the NVML call when the driver fails (e.g. a GPU fell off).
  virtual Expected<std::vector<GpuMemoryReading>> ReadMemory(const std::vector<int>& gpus) {
    (void)gpus;
    return std::vector<GpuMemoryReading>{};
  }
};

// The real inventory: dlopen("libnvidia-ml.so.1") at run time, so gpusweep neither
// links nor needs NVML at build time. Each ListGpus() call loads, initializes, queries,
// shuts NVML down and unloads it. ReadMemory() (called every loop iteration) keeps one
// NVML session open from its first call until the probe is destroyed; it reads
// nvmlDeviceGetMemoryInfo and nvmlDeviceGetComputeRunningProcesses (_v3, else _v2,
// else v1; without any, `processes` stays empty).
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

// How trials share GPUs and how a GPU is checked before it is handed on.
struct GpuSharing {
  // At most this many trials at once on one GPU (>= 1); 1 = exclusive, the default.
  int trials_per_gpu = 1;
  // Bytes each trial reserves on each of its GPUs; nullopt = no reservation.
  std::optional<std::uint64_t> memory_per_trial;
  std::uint64_t min_free_memory = 0;  // bytes a GPU must have free to take a trial
  double release_timeout_seconds = 30;
  std::uint64_t release_tolerance = 256ull * 1024 * 1024;  // bytes
};

// The config's resources as GpuSharing: trials_per_gpu as given, else unbounded
// (INT_MAX: memory decides) with gpu_memory_per_trial, else 1.
GpuSharing GpuSharingFrom(const ResourcesConfig& resources);

// How many trials one GPU of `total_bytes` holds at once: trials_per_gpu, further
// capped by total_bytes / memory_per_trial when that is set; >= 1.
int TrialsPerGpu(const GpuSharing& sharing, std::uint64_t total_bytes);

// Something about a GPU the caller tells the user (`message`, one line) and journals.
struct GpuNotice {
  enum class Kind {
    kQuarantined,    // a finished trial's memory was not freed within the timeout
    kRecovered,      // a quarantined GPU's memory was freed after all: in use again
    kForeignMemory,  // a process gpusweep did not start holds memory on the GPU
    kLowMemory,      // the GPU has a free slot but too little free memory: not used
  };
  Kind kind = Kind::kQuarantined;
  int gpu = 0;
  int trial = -1;                 // kQuarantined / kRecovered: the trial that ended
  std::uint64_t bytes = 0;        // held (quarantine), foreign, or free (low memory)
  std::vector<int> pids;          // the processes holding it
  std::string message;
};

// GPU allocation, exclusive by default, shared under GpuSharing. Never blocks:
// TryAcquire returns nullopt until enough GPUs have room.
//
// With memory readings (Observe, from GpuProbe::ReadMemory) the pool also
//  - hands a finished trial's GPU on only once the reading shows none of the trial's
//    processes and the GPU's used memory that no listed process accounts for back within
//    release_tolerance of its level when the trial started; after
//    release_timeout_seconds the GPU is quarantined (takes no trial) and rechecked, and
//    comes back once clean. A process listed on the GPU that appeared while the trial ran
//    and that no other trial owns counts as the trial's (a child it started) — on a
//    shared GPU only once NVML's pids have matched some trial's (not across PID
//    namespaces);
//  - starts a trial on a GPU only if its last reading's free memory, less what trials
//    there reserved (memory_per_trial) and have not allocated yet, is at least
//    max(memory_per_trial, min_free_memory); the reservation is counted from the moment
//    of TryAcquire, so two trials acquired from the same reading cannot both take the
//    last free memory;
//  - tracks each running trial's peak memory (its processes, per GPU, from the readings).
// Without readings (no NVML) it is a plain slot allocator and releases at once.
// Times are monotonic seconds.
class GpuPool {
 public:
  explicit GpuPool(std::vector<int> gpus, GpuSharing sharing = {});  // duplicates dropped

  int total() const;       // number of GPUs in the pool
  int free_count() const;  // GPUs that could take one more trial (memory aside)
  const std::vector<int>& gpus() const { return gpus_; }  // ascending

  // `count` GPUs for trial `trial` (a key unique among running trials: its number), now
  // held; nullopt if fewer have room (or count < 0). The least loaded first, then the
  // lowest-numbered (exclusive: the lowest free). count == 0 -> empty vector.
  std::optional<std::vector<int>> TryAcquire(int count, int trial = -1);

  // The live processes of running `trial` (pids as the process runner lists them):
  // NVML processes with these pids are the trial's, now and after it ends.
  void Attribute(int trial, const std::vector<int>& pids);

  // Whether every process `readings` list is already known as some trial's: when not,
  // the caller should Attribute its running trials' processes before Observe (listing
  // a trial's processes costs a /proc scan, so it is done only then).
  bool AllAttributed(const std::vector<GpuMemoryReading>& readings) const;

  // Readings of (some of) the pool's GPUs taken at `now`; a GPU missing from `readings`
  // keeps its older one. Updates peaks and reports foreign processes (TakeNotices): a
  // listed process no trial owned in readings at least a second apart.
  void Observe(const std::vector<GpuMemoryReading>& readings, double now);

  // Trial `trial` ended. Its GPUs are free at once when it never ran (kNo: it failed
  // before its process started) or without readings; otherwise Settle checks them.
  // Returns its peak memory on any one GPU (bytes; nullopt if never read). Unknown
  // trials are ignored.
  enum class TrialRan { kNo, kYes };
  std::optional<std::uint64_t> Release(int trial, double now, TrialRan ran = TrialRan::kYes);

  // Frees released GPUs whose check passes, quarantines those past the timeout, brings
  // back quarantined GPUs that are clean now.
  void Settle(double now);

  // Notices since the last call, in the order they happened.
  std::vector<GpuNotice> TakeNotices();

  // Some GPU waits for a released trial's memory (not yet quarantined) or was refused
  // for low memory in the last TryAcquire: the caller should poll again soon.
  bool Waiting() const;
  std::vector<int> Quarantined() const;  // ascending
  bool AllQuarantined() const;           // and the pool is not empty

 private:
  // One trial on one GPU, from TryAcquire until its memory is verified free.
  struct Hold {
    int trial = -1;
    std::set<int> pids;                     // the trial's processes (Attribute)
    std::uint64_t current_bytes = 0;        // its processes' memory in the last reading
    std::uint64_t peak_bytes = 0;
    bool read = false;                      // some reading saw this GPU while it ran
    std::optional<std::uint64_t> baseline;  // unlisted used memory when acquired
    std::set<int> listed_before;            // processes on the GPU when acquired
    std::optional<double> released_at;      // the trial ended: waiting for its check
    bool timed_out = false;                 // past the timeout: the GPU is quarantined
  };
  struct Gpu {
    std::vector<Hold> holds;
    std::optional<GpuMemoryReading> reading;  // the last one
    double read_at = 0;                       // when (monotonic seconds)
    bool quarantined = false;
  };
  bool HasRoom(const Gpu& gpu, bool note);
  bool MemoryAllows(const Gpu& gpu, bool note);
  void Check(Gpu& gpu, double now);
  std::vector<int> gpus_;      // ascending
  std::vector<Gpu> state_;     // state_[i] is gpus_[i]
  GpuSharing sharing_;
  bool have_readings_ = false;
  bool memory_refused_ = false;
  bool pids_match_ = false;  // some reading listed a pid known as a trial's
  std::vector<GpuNotice> notices_;
  std::map<int, double> suspects_;  // unattributed pid -> when first seen so
  std::set<int> reported_foreign_;
  std::set<int> low_memory_noted_;  // GPUs whose low memory was told (until they get a trial)
};

// Checks that a trial's memory demand (max(memory_per_trial, min_free_memory)) fits in
// the total memory of at least one `allowed` GPU of `detected`, else no trial could ever
// start. Error{kInvalidConfig} naming the key, the size and the largest GPU.
Status CheckGpuMemoryDemand(const GpuSharing& sharing, const std::vector<GpuInfo>& detected,
                            const std::vector<int>& allowed);

// How many one-GPU trials the `allowed` GPUs of `detected` hold at once (the sum of
// TrialsPerGpu), for the run's concurrency bound.
int SharedGpuSlots(const GpuSharing& sharing, const std::vector<GpuInfo>& detected,
                   const std::vector<int>& allowed);

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
