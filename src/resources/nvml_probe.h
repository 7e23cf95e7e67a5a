// nvml_probe.h — the NVML-backed GpuProbe, with the library name injectable so tests
// can load a fake libnvidia-ml built from fake_nvml.cc.
#pragma once

#include <memory>
#include <string>

#include "gpusweep/resources.h"

namespace gpusweep {

// The soname MakeNvmlProbe() loads; the driver package installs it.
inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// A probe that dlopen()s `library` (a soname searched like any dlopen argument, or a
// path) on each ListGpus() call. Semantics as GpuProbe::ListGpus.
std::unique_ptr<GpuProbe> MakeNvmlProbeForLibrary(std::string library);

}  // namespace gpusweep
