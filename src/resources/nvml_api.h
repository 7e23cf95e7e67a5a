// nvml_api.h — the few NVML C declarations gpusweep uses, written from NVIDIA's public
// "NVML API Reference Guide" (docs.nvidia.com/deploy/nvml-api) so that nothing needs
// nvml.h or libnvidia-ml at build time. The library is loaded with dlopen and these
// are the signatures its symbols are called through.
#pragma once

namespace gpusweep::nvml {

// nvmlReturn_t is a C enum (int-sized). Only the values gpusweep distinguishes:
using Return = int;
inline constexpr Return kSuccess = 0;              // NVML_SUCCESS
inline constexpr Return kDriverNotLoaded = 9;      // NVML_ERROR_DRIVER_NOT_LOADED
inline constexpr Return kLibraryNotFound = 12;     // NVML_ERROR_LIBRARY_NOT_FOUND
inline constexpr Return kInsufficientSize = 7;     // NVML_ERROR_INSUFFICIENT_SIZE

// usedGpuMemory when NVML cannot tell (Windows WDDM, some MIG setups).
inline constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE

// nvmlDevice_t: an opaque handle (pointer to an undefined struct).
struct DeviceSt;
using Device = DeviceSt*;

// nvmlMemory_t, filled by nvmlDeviceGetMemoryInfo (v1); all fields in bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlProcessInfo_v1_t, filled by nvmlDeviceGetComputeRunningProcesses (v1).
struct ProcessInfoV1 {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kValueNotAvailable
};
// nvmlProcessInfo_v2_t (== nvmlProcessInfo_t), filled by ..._v2 and ..._v3.
struct ProcessInfoV2 {
  unsigned int pid;
  unsigned long long usedGpuMemory;  // bytes, or kValueNotAvailable
  unsigned int gpuInstanceId;        // MIG only
  unsigned int computeInstanceId;    // MIG only
};

// Buffer sizes the reference guarantees large enough:
inline constexpr unsigned kDeviceNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kDeviceUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE

// Function signatures (all C linkage in the library).
using InitFn = Return (*)();                                          // nvmlInit_v2
using ShutdownFn = Return (*)();                                      // nvmlShutdown
using ErrorStringFn = const char* (*)(Return);                        // nvmlErrorString
using DeviceGetCountFn = Return (*)(unsigned* count);                 // nvmlDeviceGetCount_v2
using DeviceGetHandleByIndexFn = Return (*)(unsigned index, Device*); // nvmlDeviceGetHandleByIndex_v2
using DeviceGetNameFn = Return (*)(Device, char* name, unsigned length);  // nvmlDeviceGetName
using DeviceGetUuidFn = Return (*)(Device, char* uuid, unsigned length);  // nvmlDeviceGetUUID
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);            // nvmlDeviceGetMemoryInfo
// nvmlDeviceGetComputeRunningProcesses{,_v2,_v3}: `*count` in = room in `infos`, out =
// processes found; kInsufficientSize when they do not fit (then *count is the need).
template <class Info>
using DeviceGetComputeProcessesFn = Return (*)(Device, unsigned* count, Info* infos);

}  // namespace gpusweep::nvml
