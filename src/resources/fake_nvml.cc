// fake_nvml.cc — a stand-in libnvidia-ml for tests, loaded by path through
// MakeNvmlProbeForLibrary. It reports two GPUs (40 GiB and 80 GiB); FAKE_NVML_MODE (read
// by nvmlInit_v2) selects a failure instead: "driver_not_loaded", "init_fails",
// "no_devices", "name_fails" (GPU 1 is lost), "memory_fails" (memory of GPU 1 is lost).
// Built twice: once complete, once with FAKE_NVML_OMIT_UUID (a library lacking a symbol).
//
// Memory is scripted by the file named in FAKE_NVML_SCRIPT, read again on every call, so
// a test (or a trial) changes it while a run goes on. One entry per line:
//   gpu <index> used <bytes>        memory NVML lists no process for (driver, foreign)
//   proc <gpu> <pid> <bytes> [linger <seconds> | keep]
//                                   a compute process holding memory: listed while <pid>
//                                   is alive, and after its death for <seconds> (as a
//                                   driver that frees memory late), or forever with keep
// A GPU's used memory is its `gpu ... used` plus its listed processes; free = total - used.
#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "resources/nvml_api.h"

namespace nvml = gpusweep::nvml;

namespace {

constexpr nvml::Return kGpuIsLost = 15;  // NVML_ERROR_GPU_IS_LOST
constexpr nvml::Return kUnknown = 999;   // NVML_ERROR_UNKNOWN

std::string_view g_mode;
int g_open_sessions = 0;  // nvmlInit_v2 successes minus nvmlShutdown calls
int g_init_calls = 0;

// Handles are pointers to these; the probe treats them as opaque.
char g_devices[2];

int DeviceIndex(nvml::Device device) {
  return static_cast<int>(reinterpret_cast<char*>(device) - g_devices);
}

unsigned long long TotalBytes(int index) { return (index + 1) * 40ULL * 1024 * 1024 * 1024; }

double Now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec / 1e9;
}

bool Alive(int pid) { return kill(pid, 0) == 0 || errno == EPERM; }

std::map<int, double> g_seen_dead;  // pid -> when this library first saw it dead

struct ScriptedProcess {
  int pid;
  unsigned long long bytes;
};

// The scripted state of GPU `index` now: unlisted used bytes and listed processes.
std::vector<ScriptedProcess> ReadScript(int index, unsigned long long& unlisted) {
  unlisted = 0;
  std::vector<ScriptedProcess> listed;
  const char* path = std::getenv("FAKE_NVML_SCRIPT");
  if (path == nullptr) return listed;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    int gpu = -1;
    words >> kind >> gpu;
    if (gpu != index) continue;
    if (kind == "gpu") {
      std::string used;
      unsigned long long bytes = 0;
      if (words >> used >> bytes && used == "used") unlisted += bytes;
      continue;
    }
    if (kind != "proc") continue;
    ScriptedProcess process{0, 0};
    if (!(words >> process.pid >> process.bytes)) continue;
    std::string after;
    double linger = 0;
    if (words >> after) {
      if (after == "keep") linger = 1e18;
      else if (after == "linger") words >> linger;
    }
    if (!Alive(process.pid)) {
      const double dead_since = g_seen_dead.emplace(process.pid, Now()).first->second;
      if (Now() - dead_since >= linger) continue;
    }
    listed.push_back(process);
  }
  return listed;
}

}  // namespace

extern "C" {

int FakeNvmlOpenSessions() { return g_open_sessions; }
int FakeNvmlInitCalls() { return g_init_calls; }

nvml::Return nvmlInit_v2() {
  ++g_init_calls;
  const char* mode = std::getenv("FAKE_NVML_MODE");
  g_mode = mode != nullptr ? mode : "";
  if (g_mode == "driver_not_loaded") return nvml::kDriverNotLoaded;
  if (g_mode == "init_fails") return kUnknown;
  ++g_open_sessions;
  return nvml::kSuccess;
}

nvml::Return nvmlShutdown() {
  --g_open_sessions;
  return nvml::kSuccess;
}

const char* nvmlErrorString(nvml::Return rc) {
  if (rc == kGpuIsLost) return "GPU is lost";
  if (rc == nvml::kInsufficientSize) return "Insufficient Size";
  if (rc == nvml::kDriverNotLoaded) return "Driver Not Loaded";
  return "Unknown Error";
}

nvml::Return nvmlDeviceGetCount_v2(unsigned* count) {
  *count = g_mode == "no_devices" ? 0 : 2;
  return nvml::kSuccess;
}

nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned index, nvml::Device* device) {
  *device = reinterpret_cast<nvml::Device>(&g_devices[index]);
  return nvml::kSuccess;
}

nvml::Return nvmlDeviceGetName(nvml::Device device, char* name, unsigned length) {
  if (g_mode == "name_fails" && DeviceIndex(device) == 1) return kGpuIsLost;
  std::strncpy(name, DeviceIndex(device) == 0 ? "Fake A100" : "Fake H100", length);
  return nvml::kSuccess;
}

#ifndef FAKE_NVML_OMIT_UUID
nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned length) {
  std::strncpy(uuid, DeviceIndex(device) == 0 ? "GPU-aaaa0000" : "GPU-bbbb1111", length);
  return nvml::kSuccess;
}
#endif

nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::Memory* memory) {
  const int index = DeviceIndex(device);
  if (g_mode == "memory_fails" && index == 1) return kGpuIsLost;
  unsigned long long used = 0;
  for (const ScriptedProcess& process : ReadScript(index, used)) used += process.bytes;
  memory->total = TotalBytes(index);
  memory->used = used < memory->total ? used : memory->total;
  memory->free = memory->total - memory->used;
  return nvml::kSuccess;
}

nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device device, unsigned* count,
                                                     nvml::ProcessInfoV2* infos) {
  unsigned long long unlisted = 0;
  const std::vector<ScriptedProcess> listed = ReadScript(DeviceIndex(device), unlisted);
  const unsigned room = *count;
  *count = static_cast<unsigned>(listed.size());
  if (listed.size() > room) return nvml::kInsufficientSize;
  for (std::size_t i = 0; i < listed.size(); ++i)
    infos[i] = nvml::ProcessInfoV2{static_cast<unsigned>(listed[i].pid), listed[i].bytes, 0, 0};
  return nvml::kSuccess;
}

}  // extern "C"
