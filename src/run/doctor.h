// doctor.h — what this machine gives gpusweep (`gpusweep doctor`): GPUs through NVML
// with their free memory, how trials will be contained (a cgroup v2 each, or process
// groups), the python3 trials will run and what it imports, SLURM's client commands.
// Every finding that is missing something says what to do about it. Nothing on the
// machine changes (the cgroup check makes and removes one empty cgroup, as a run does).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpusweep {

class GpuProbe;  // gpusweep/resources.h

struct DoctorFinding {
  std::string topic;   // "NVML", "GPU 0", "containment", "python3", "torch", "SLURM", ...
  bool ok = false;     // false: gpusweep works without it, or less well; see advice
  std::string detail;  // what was found, e.g. "NVIDIA A100 80GB: 79.2 GiB free of 80.0 GiB"
  std::string advice;  // what to do when !ok; "" otherwise
};

struct DoctorInputs {
  GpuProbe* gpus = nullptr;                  // MakeNvmlProbe() outside tests
  std::vector<std::string> env;              // the environment trials start with
  std::filesystem::path python_helper_dir;   // first on the trials' PYTHONPATH
  double python_timeout_seconds = 60;        // importing torch can take a while
};

// One finding per topic, in the order above (one per GPU).
std::vector<DoctorFinding> Diagnose(const DoctorInputs& inputs);

}  // namespace gpusweep
