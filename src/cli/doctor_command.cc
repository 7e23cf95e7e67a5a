// doctor_command.cc — `gpusweep doctor`: the machine's findings (run/doctor.h), one line
// each, with what to do under every one that is missing something.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/install_paths.h"
#include "cli/version.h"
#include "gpusweep/resources.h"
#include "run/doctor.h"
#include "run/trial_env.h"

namespace gpusweep {
namespace {

std::string FindingLines(const std::vector<DoctorFinding>& findings) {
  std::size_t width = 0;
  for (const DoctorFinding& finding : findings) width = std::max(width, finding.topic.size());
  std::string out;
  for (const DoctorFinding& finding : findings) {
    out += fmt::format("{:<9}{:<{}}  {}\n", finding.ok ? "ok" : "missing", finding.topic, width,
                       finding.detail);
    if (!finding.advice.empty()) out += fmt::format("{:<{}}  -> {}\n", "", width + 9, finding.advice);
  }
  return out;
}

}  // namespace

Expected<int> DoctorCommand() {
  std::unique_ptr<GpuProbe> gpus = MakeNvmlProbe();
  DoctorInputs inputs;
  inputs.gpus = gpus.get();
  inputs.env = CurrentEnvironment();
  inputs.python_helper_dir = PythonHelperDir();
  const std::string text = fmt::format("gpusweep {} ({})\n{}", ProjectVersion(), SourceRevision(),
                                       FindingLines(Diagnose(inputs)));
  // Exit 0 whatever is missing: a missing GPU or SLURM is a finding, not a failure.
  return PrintText(text, std::nullopt);
}

}  // namespace gpusweep
