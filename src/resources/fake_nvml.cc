// fake_nvml.cc — a stand-in libnvidia-ml for tests, loaded by path through
// MakeNvmlProbeForLibrary. It reports two GPUs; FAKE_NVML_MODE (read by nvmlInit_v2)
// selects a failure instead: "driver_not_loaded", "init_fails", "no_devices",
// "name_fails" (GPU 1 is lost). Built twice: once complete, once with
// FAKE_NVML_OMIT_UUID (a library lacking a symbol).
#include <cstdlib>
#include <cstring>
#include <string_view>

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
  memory->total = (DeviceIndex(device) + 1) * 40ULL * 1024 * 1024 * 1024;
  memory->free = memory->total;
  memory->used = 0;
  return nvml::kSuccess;
}

}  // extern "C"
