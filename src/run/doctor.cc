// doctor.cc — the machine's findings for `gpusweep doctor` (see doctor.h).
#include "run/doctor.h"

#include <sstream>

#include <fmt/format.h>

#include "backend/command.h"
#include "gpusweep/resources.h"
#include "gpusweep/trial.h"
#include "process/process_runner.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

constexpr const char* kNoGpuAdvice =
    "trials run on CPU slots; for GPUs install the NVIDIA driver (Debian: nvidia-driver, "
    "which brings libnvidia-ml.so.1) and check that nvidia-smi lists them";

void AddGpuFindings(GpuProbe& probe, std::vector<DoctorFinding>& out) {
  Expected<std::vector<GpuInfo>> gpus = probe.ListGpus();
  if (!gpus) {
    out.push_back({"NVML", false, gpus.error().message,
                   "the NVIDIA driver is installed but failing: check nvidia-smi, and "
                   "dmesg for Xid errors; until then trials run on CPU slots"});
    return;
  }
  if (gpus->empty()) {
    out.push_back({"NVML", false, "no NVIDIA GPU (libnvidia-ml.so.1 not loadable, driver not "
                                  "loaded, or no device)", kNoGpuAdvice});
    return;
  }
  out.push_back({"NVML", true, fmt::format("{} GPU{}", gpus->size(), gpus->size() == 1 ? "" : "s"), ""});
  std::vector<int> indices;
  for (const GpuInfo& gpu : *gpus) indices.push_back(gpu.index);
  Expected<std::vector<GpuMemoryReading>> memory = probe.ReadMemory(indices);
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    const GpuInfo& gpu = (*gpus)[i];
    DoctorFinding finding{fmt::format("GPU {}", gpu.index), true,
                          fmt::format("{}, {}", gpu.name, FormatByteSize(gpu.memory_total_bytes)), ""};
    if (!memory) {
      finding.ok = false;
      finding.detail += "; memory unreadable: " + memory.error().message;
      finding.advice = "check nvidia-smi; gpusweep cannot see whether this GPU's memory is freed";
    } else if (i < memory->size()) {
      const GpuMemoryReading& reading = (*memory)[i];
      finding.detail += fmt::format(", {} free", FormatByteSize(reading.free_bytes));
      if (!reading.processes.empty())
        finding.detail += fmt::format(" ({} process{} using it)", reading.processes.size(),
                                      reading.processes.size() == 1 ? "" : "es");
    }
    out.push_back(std::move(finding));
  }
}

DoctorFinding ContainmentFinding(const std::vector<std::string>& env) {
  if (LookupEnv(env, "GPUSWEEP_CONTAINMENT") == std::optional<std::string>("tagged"))
    return {"containment", false, "process groups (GPUSWEEP_CONTAINMENT=tagged is set)",
            "unset GPUSWEEP_CONTAINMENT to let gpusweep give each trial a cgroup"};
  const CgroupAvailability cgroup = CheckCgroupContainment();
  if (cgroup.available) return {"containment", true, "a cgroup v2 per trial, under " + cgroup.detail, ""};
  return {"containment", false, "process group and tag per trial: " + cgroup.detail,
          "trials are still all ended, except a process that leaves its group and clears "
          "its environment; for cgroups run as root or in a delegated subtree (systemd-run "
          "--user --scope -p Delegate=yes gpusweep run ...)"};
}

// What the trials' python3 prints about itself: its version, where `import gpusweep`
// finds the helper, torch's version and whether it sees CUDA; "!" + error when an import fails.
constexpr const char* kPythonProbe =
    "import sys\n"
    "print(sys.version.split()[0])\n"
    "try:\n import gpusweep; print(gpusweep.__file__)\n"
    "except Exception as e: print('!' + repr(e))\n"
    "try:\n import torch; print(torch.__version__, 'CUDA' if torch.cuda.is_available() else 'no CUDA')\n"
    "except Exception as e: print('!' + repr(e))\n";

void AddPythonFindings(const DoctorInputs& inputs, std::vector<DoctorFinding>& out) {
  Expected<std::filesystem::path> python = ResolveTrialProgram("python3", inputs.env);
  if (!python) {
    out.push_back({"python3", false, python.error().message,
                   "install python3 (apt install python3) or put it on PATH; trials that are "
                   "not Python do not need it"});
    return;
  }
  std::string path = inputs.python_helper_dir.string();
  if (auto inherited = LookupEnv(inputs.env, "PYTHONPATH"); inherited && !inherited->empty())
    path += ":" + *inherited;
  const std::vector<std::string> env = MergeEnv(inputs.env, {{"PYTHONPATH", path}});
  Expected<CommandResult> ran =
      RunCommand({python->string(), "-c", kPythonProbe}, env, inputs.python_timeout_seconds);
  std::vector<std::string> lines;
  if (ran) {
    std::istringstream text(ran->out);
    for (std::string line; std::getline(text, line);) lines.push_back(line);
  }
  if (!ran || ran->exit_code != 0 || lines.size() < 3) {
    out.push_back({"python3", false,
                   fmt::format("{} does not run: {}", python->string(),
                               ran ? LastLine(*ran) : ran.error().message),
                   "fix or replace that python3; trials that are not Python do not need it"});
    return;
  }
  out.push_back({"python3", true, fmt::format("{} (Python {})", python->string(), lines[0]), ""});
  if (lines[1].starts_with("!"))
    out.push_back({"gpusweep.py", false, "import gpusweep fails: " + lines[1].substr(1),
                   fmt::format("reinstall gpusweep: the helper belongs in {}",
                               inputs.python_helper_dir.string())});
  else
    out.push_back({"gpusweep.py", true, lines[1], ""});
  if (lines[2].starts_with("!"))
    out.push_back({"torch", false, "import torch fails: " + lines[2].substr(1),
                   "only trials that use PyTorch need it: pip install torch (in the "
                   "environment whose python3 is on PATH), or apt install python3-torch"});
  else
    out.push_back({"torch", true, lines[2], ""});
}

DoctorFinding SlurmFinding(const std::vector<std::string>& env) {
  std::vector<std::string> found, missing;
  for (const char* command : {"sbatch", "squeue", "scancel", "sacct"})
    (ResolveTrialProgram(command, env) ? found : missing).push_back(command);
  auto join = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
    return out;
  };
  if (missing.empty()) return {"SLURM", true, "client commands found: " + join(found), ""};
  return {"SLURM", false, "not on PATH: " + join(missing),
          "only `backend: slurm` needs them: run gpusweep on a login node, or install "
          "SLURM's client (apt install slurm-client) configured for the cluster"};
}

}  // namespace

std::vector<DoctorFinding> Diagnose(const DoctorInputs& inputs) {
  std::vector<DoctorFinding> findings;
  if (inputs.gpus != nullptr) AddGpuFindings(*inputs.gpus, findings);
  findings.push_back(ContainmentFinding(inputs.env));
  AddPythonFindings(inputs, findings);
  findings.push_back(SlurmFinding(inputs.env));
  return findings;
}

}  // namespace gpusweep
