// nvml_probe.cc — GPU inventory through NVML loaded at run time (see nvml_api.h).
#include "resources/nvml_probe.h"

#include <dlfcn.h>

#include <array>
#include <optional>
#include <vector>
#include <utility>

#include <fmt/format.h>

#include "resources/nvml_api.h"

namespace gpusweep {
namespace {

struct DlCloser {
  void operator()(void* handle) const { dlclose(handle); }
};
using LibraryHandle = std::unique_ptr<void, DlCloser>;

struct NvmlFunctions {
  nvml::InitFn init = nullptr;
  nvml::ShutdownFn shutdown = nullptr;
  nvml::ErrorStringFn error_string = nullptr;
  nvml::DeviceGetCountFn get_count = nullptr;
  nvml::DeviceGetHandleByIndexFn get_handle = nullptr;
  nvml::DeviceGetNameFn get_name = nullptr;
  nvml::DeviceGetUuidFn get_uuid = nullptr;
  nvml::DeviceGetMemoryInfoFn get_memory = nullptr;
  // Optional (older drivers have only v1): the newest present is used.
  nvml::DeviceGetComputeProcessesFn<nvml::ProcessInfoV2> get_processes_v2 = nullptr;
  nvml::DeviceGetComputeProcessesFn<nvml::ProcessInfoV1> get_processes_v1 = nullptr;
};

// Resolves `name` into `*out`; false if the library lacks it.
template <class Fn>
bool Lookup(void* library, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, name));
  return *out != nullptr;
}

// Every symbol gpusweep calls. A library that has some but not all of them is a
// driver too old (or broken) to use: an error rather than a silent "no GPU".
Expected<NvmlFunctions> LoadFunctions(void* library, const std::string& library_name) {
  NvmlFunctions f;
  const std::pair<const char*, bool> symbols[] = {
      {"nvmlInit_v2", Lookup(library, "nvmlInit_v2", &f.init)},
      {"nvmlShutdown", Lookup(library, "nvmlShutdown", &f.shutdown)},
      {"nvmlErrorString", Lookup(library, "nvmlErrorString", &f.error_string)},
      {"nvmlDeviceGetCount_v2", Lookup(library, "nvmlDeviceGetCount_v2", &f.get_count)},
      {"nvmlDeviceGetHandleByIndex_v2",
       Lookup(library, "nvmlDeviceGetHandleByIndex_v2", &f.get_handle)},
      {"nvmlDeviceGetName", Lookup(library, "nvmlDeviceGetName", &f.get_name)},
      {"nvmlDeviceGetUUID", Lookup(library, "nvmlDeviceGetUUID", &f.get_uuid)},
      {"nvmlDeviceGetMemoryInfo", Lookup(library, "nvmlDeviceGetMemoryInfo", &f.get_memory)},
  };
  for (const auto& [name, found] : symbols) {
    if (!found) {
      return Fail(ErrorCode::kResource,
                  fmt::format("NVML library {} lacks the function {}; the NVIDIA driver is "
                              "too old or its installation is broken",
                              library_name, name));
    }
  }
  if (!Lookup(library, "nvmlDeviceGetComputeRunningProcesses_v3", &f.get_processes_v2))
    Lookup(library, "nvmlDeviceGetComputeRunningProcesses_v2", &f.get_processes_v2);
  Lookup(library, "nvmlDeviceGetComputeRunningProcesses", &f.get_processes_v1);
  return f;
}

// nvmlShutdown() for every successful nvmlInit_v2() (NVML reference-counts them).
class NvmlSession {
 public:
  explicit NvmlSession(nvml::ShutdownFn shutdown) : shutdown_(shutdown) {}
  NvmlSession(const NvmlSession&) = delete;
  NvmlSession& operator=(const NvmlSession&) = delete;
  ~NvmlSession() { shutdown_(); }

 private:
  nvml::ShutdownFn shutdown_;
};

// A loaded, initialized NVML kept for repeated memory readings. Members are destroyed
// in reverse order: the session shuts NVML down before the library is unloaded.
struct OpenNvml {
  LibraryHandle library;
  NvmlFunctions f;
  std::unique_ptr<NvmlSession> session;
};

class NvmlProbe : public GpuProbe {
 public:
  explicit NvmlProbe(std::string library) : library_(std::move(library)) {}
  Expected<std::vector<GpuInfo>> ListGpus() override;
  Expected<std::vector<GpuMemoryReading>> ReadMemory(const std::vector<int>& gpus) override;

 private:
  Error CallFailed(const NvmlFunctions& f, std::string_view call, nvml::Return rc) const;
  Expected<GpuInfo> QueryDevice(const NvmlFunctions& f, unsigned index) const;
  Expected<GpuMemoryReading> ReadDeviceMemory(const NvmlFunctions& f, int index) const;
  template <class Info>
  Expected<std::vector<GpuProcessMemory>> ReadProcesses(
      const NvmlFunctions& f, nvml::DeviceGetComputeProcessesFn<Info> get, nvml::Device device,
      int index) const;

  std::string library_;
  std::optional<OpenNvml> open_;  // ReadMemory's session, opened on its first call
  bool no_nvml_ = false;          // ReadMemory found no usable NVML: stays empty
};

Error NvmlProbe::CallFailed(const NvmlFunctions& f, std::string_view call,
                            nvml::Return rc) const {
  const char* text = f.error_string(rc);
  return Error{ErrorCode::kResource,
               fmt::format("NVML ({}): {} failed: {} (code {}); check the NVIDIA driver "
                           "with nvidia-smi",
                           library_, call, text != nullptr ? text : "unknown error", rc)};
}

Expected<GpuInfo> NvmlProbe::QueryDevice(const NvmlFunctions& f, unsigned index) const {
  nvml::Device device = nullptr;
  if (nvml::Return rc = f.get_handle(index, &device); rc != nvml::kSuccess) {
    return tl::unexpected(
        CallFailed(f, fmt::format("nvmlDeviceGetHandleByIndex_v2(GPU {})", index), rc));
  }
  std::array<char, nvml::kDeviceNameBufferSize> name{};
  if (nvml::Return rc = f.get_name(device, name.data(), name.size()); rc != nvml::kSuccess) {
    return tl::unexpected(CallFailed(f, fmt::format("nvmlDeviceGetName(GPU {})", index), rc));
  }
  std::array<char, nvml::kDeviceUuidBufferSize> uuid{};
  if (nvml::Return rc = f.get_uuid(device, uuid.data(), uuid.size()); rc != nvml::kSuccess) {
    return tl::unexpected(CallFailed(f, fmt::format("nvmlDeviceGetUUID(GPU {})", index), rc));
  }
  nvml::Memory memory{};
  if (nvml::Return rc = f.get_memory(device, &memory); rc != nvml::kSuccess) {
    return tl::unexpected(
        CallFailed(f, fmt::format("nvmlDeviceGetMemoryInfo(GPU {})", index), rc));
  }
  name.back() = '\0';  // never trust a foreign buffer to be terminated
  uuid.back() = '\0';
  return GpuInfo{static_cast<int>(index), name.data(), uuid.data(), memory.total};
}

Expected<std::vector<GpuInfo>> NvmlProbe::ListGpus() {
  LibraryHandle library(dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!library) return std::vector<GpuInfo>{};  // no NVIDIA driver installed: no GPU
  GS_ASSIGN_OR_RETURN(const NvmlFunctions f, LoadFunctions(library.get(), library_));

  const nvml::Return init = f.init();
  // The user-space library without a loaded kernel driver (e.g. a container image that
  // ships it on a machine without GPUs) means "no GPU", not a failure.
  if (init == nvml::kDriverNotLoaded || init == nvml::kLibraryNotFound) {
    return std::vector<GpuInfo>{};
  }
  if (init != nvml::kSuccess) return tl::unexpected(CallFailed(f, "nvmlInit_v2", init));
  const NvmlSession session(f.shutdown);  // destroyed before `library` is closed

  unsigned count = 0;
  if (nvml::Return rc = f.get_count(&count); rc != nvml::kSuccess) {
    return tl::unexpected(CallFailed(f, "nvmlDeviceGetCount_v2", rc));
  }
  std::vector<GpuInfo> gpus;
  gpus.reserve(count);
  for (unsigned index = 0; index < count; ++index) {
    GS_ASSIGN_OR_RETURN(GpuInfo gpu, QueryDevice(f, index));
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

template <class Info>
Expected<std::vector<GpuProcessMemory>> NvmlProbe::ReadProcesses(
    const NvmlFunctions& f, nvml::DeviceGetComputeProcessesFn<Info> get, nvml::Device device,
    int index) const {
  std::vector<Info> infos(64);
  // A process may start between the call that reports the need and the next one.
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned count = static_cast<unsigned>(infos.size());
    const nvml::Return rc = get(device, &count, infos.data());
    if (rc == nvml::kInsufficientSize) {
      infos.resize(count + 16);
      continue;
    }
    if (rc != nvml::kSuccess)
      return tl::unexpected(CallFailed(
          f, fmt::format("nvmlDeviceGetComputeRunningProcesses(GPU {})", index), rc));
    std::vector<GpuProcessMemory> processes;
    for (unsigned i = 0; i < count && i < infos.size(); ++i) {
      GpuProcessMemory process{static_cast<int>(infos[i].pid), std::nullopt};
      if (infos[i].usedGpuMemory != nvml::kValueNotAvailable)
        process.used_bytes = infos[i].usedGpuMemory;
      processes.push_back(process);
    }
    return processes;
  }
  return tl::unexpected(CallFailed(
      f, fmt::format("nvmlDeviceGetComputeRunningProcesses(GPU {})", index),
      nvml::kInsufficientSize));
}

Expected<GpuMemoryReading> NvmlProbe::ReadDeviceMemory(const NvmlFunctions& f, int index) const {
  nvml::Device device = nullptr;
  if (nvml::Return rc = f.get_handle(static_cast<unsigned>(index), &device); rc != nvml::kSuccess)
    return tl::unexpected(
        CallFailed(f, fmt::format("nvmlDeviceGetHandleByIndex_v2(GPU {})", index), rc));
  nvml::Memory memory{};
  if (nvml::Return rc = f.get_memory(device, &memory); rc != nvml::kSuccess)
    return tl::unexpected(
        CallFailed(f, fmt::format("nvmlDeviceGetMemoryInfo(GPU {})", index), rc));
  GpuMemoryReading reading{index, memory.total, memory.used, memory.free, {}};
  if (f.get_processes_v2 != nullptr) {
    GS_ASSIGN_OR_RETURN(reading.processes, ReadProcesses(f, f.get_processes_v2, device, index));
  } else if (f.get_processes_v1 != nullptr) {
    GS_ASSIGN_OR_RETURN(reading.processes, ReadProcesses(f, f.get_processes_v1, device, index));
  }
  return reading;
}

Expected<std::vector<GpuMemoryReading>> NvmlProbe::ReadMemory(const std::vector<int>& gpus) {
  if (no_nvml_) return std::vector<GpuMemoryReading>{};
  if (!open_) {
    LibraryHandle library(dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!library) {
      no_nvml_ = true;
      return std::vector<GpuMemoryReading>{};
    }
    GS_ASSIGN_OR_RETURN(NvmlFunctions f, LoadFunctions(library.get(), library_));
    const nvml::Return init = f.init();
    if (init == nvml::kDriverNotLoaded || init == nvml::kLibraryNotFound) {
      no_nvml_ = true;
      return std::vector<GpuMemoryReading>{};
    }
    if (init != nvml::kSuccess) return tl::unexpected(CallFailed(f, "nvmlInit_v2", init));
    auto session = std::make_unique<NvmlSession>(f.shutdown);
    open_.emplace(OpenNvml{std::move(library), f, std::move(session)});
  }
  std::vector<GpuMemoryReading> readings;
  readings.reserve(gpus.size());
  for (int index : gpus) {
    GS_ASSIGN_OR_RETURN(GpuMemoryReading reading, ReadDeviceMemory(open_->f, index));
    readings.push_back(std::move(reading));
  }
  return readings;
}

}  // namespace

std::unique_ptr<GpuProbe> MakeNvmlProbeForLibrary(std::string library) {
  return std::make_unique<NvmlProbe>(std::move(library));
}

std::unique_ptr<GpuProbe> MakeNvmlProbe() { return MakeNvmlProbeForLibrary(kNvmlLibrary); }

}  // namespace gpusweep
