// nvml_probe.cc — GPU inventory through NVML loaded at run time (see nvml_api.h).
#include "resources/nvml_probe.h"

#include <dlfcn.h>

#include <array>
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

class NvmlProbe : public GpuProbe {
 public:
  explicit NvmlProbe(std::string library) : library_(std::move(library)) {}
  Expected<std::vector<GpuInfo>> ListGpus() override;

 private:
  Error CallFailed(const NvmlFunctions& f, std::string_view call, nvml::Return rc) const;
  Expected<GpuInfo> QueryDevice(const NvmlFunctions& f, unsigned index) const;

  std::string library_;
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

}  // namespace

std::unique_ptr<GpuProbe> MakeNvmlProbeForLibrary(std::string library) {
  return std::make_unique<NvmlProbe>(std::move(library));
}

std::unique_ptr<GpuProbe> MakeNvmlProbe() { return MakeNvmlProbeForLibrary(kNvmlLibrary); }

}  // namespace gpusweep
