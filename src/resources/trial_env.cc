// trial_env.cc — CPU slots and the environment that pins a trial to its resources.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

struct CpuSetFree {
  void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

// sched_getaffinity with a set large enough for this machine's CPU numbers (a fixed
// cpu_set_t stops at 1024 CPUs and then fails with EINVAL). 0 when it cannot say.
int AffinityCoreCount() {
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  for (int max_cpus = static_cast<int>(std::max(1024L, configured)); max_cpus <= (1 << 20);
       max_cpus *= 2) {
    std::unique_ptr<cpu_set_t, CpuSetFree> set(CPU_ALLOC(max_cpus));
    if (!set) return 0;
    const std::size_t size = CPU_ALLOC_SIZE(max_cpus);
    CPU_ZERO_S(size, set.get());
    if (sched_getaffinity(0, size, set.get()) == 0) return CPU_COUNT_S(size, set.get());
    if (errno != EINVAL) return 0;
  }
  return 0;
}

}  // namespace

int UsableCpuCores() {
  if (const int cores = AffinityCoreCount(); cores > 0) return cores;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

int CpuSlots(const ResourcesConfig& config, int usable_cores) {
  int slots = config.cpu_slots.value_or(usable_cores);
  if (config.max_concurrent) slots = std::min(slots, *config.max_concurrent);
  return std::max(1, slots);
}

std::vector<std::pair<std::string, std::string>> TrialResourceEnv(
    const std::vector<int>& gpus, int usable_cores, int concurrent_slots,
    const std::function<std::optional<std::string>(const std::string&)>& parent_getenv) {
  std::vector<std::pair<std::string, std::string>> env;
  if (!gpus.empty()) {
    env.emplace_back("CUDA_VISIBLE_DEVICES", fmt::format("{}", fmt::join(gpus, ",")));
    // NVML numbers GPUs in PCI bus order; CUDA's default (FASTEST_FIRST) may not.
    env.emplace_back("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    return env;
  }
  env.emplace_back("CUDA_VISIBLE_DEVICES", "");
  const int threads = std::max(1, usable_cores / std::max(1, concurrent_slots));
  for (const char* name : {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
    // A user who set the variable knows better; an empty lookup function sees nothing.
    if (!parent_getenv || !parent_getenv(name)) env.emplace_back(name, std::to_string(threads));
  }
  return env;
}

}  // namespace gpusweep
