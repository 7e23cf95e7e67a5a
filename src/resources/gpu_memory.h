// gpu_memory.h — arithmetic on one GPU memory reading, shared by the pool's allocation
// (gpu_pool.cc) and release checks (gpu_release.cc).
#pragma once

#include <cstdint>
#include <set>

#include "gpusweep/resources.h"

namespace gpusweep::gpu_memory {

// Memory of the listed processes for which `counts(pid)` is true (unknown sizes count 0).
template <class Pred>
std::uint64_t ListedBytes(const GpuMemoryReading& reading, Pred counts) {
  std::uint64_t sum = 0;
  for (const GpuProcessMemory& process : reading.processes)
    if (counts(process.pid)) sum += process.used_bytes.value_or(0);
  return sum;
}

// Used memory no listed process accounts for: the driver's own, and processes NVML does
// not list (another PID namespace). What a finished trial's release is compared on.
inline std::uint64_t UnlistedBytes(const GpuMemoryReading& reading) {
  const std::uint64_t listed = ListedBytes(reading, [](int) { return true; });
  return reading.used_bytes > listed ? reading.used_bytes - listed : 0;
}

inline std::set<int> ListedPids(const GpuMemoryReading& reading) {
  std::set<int> pids;
  for (const GpuProcessMemory& process : reading.processes) pids.insert(process.pid);
  return pids;
}

}  // namespace gpusweep::gpu_memory
