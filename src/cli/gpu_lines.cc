#include "cli/gpu_lines.h"

#include <map>

#include <fmt/format.h>

#include "gpusweep/trial.h"

namespace gpusweep {

Expected<std::string> QuarantineLines(Journal& journal) {
  GS_ASSIGN_OR_RETURN(std::vector<Json> pools, journal.LoadEvents("gpu_pool"));
  if (pools.empty()) return std::string();
  const double run = pools.back().value("run", 0.0);
  GS_ASSIGN_OR_RETURN(std::vector<Json> quarantined, journal.LoadEvents("gpu_quarantined"));
  GS_ASSIGN_OR_RETURN(std::vector<Json> recovered, journal.LoadEvents("gpu_recovered"));
  // A GPU may be quarantined, recovered and quarantined again in one run: it is
  // quarantined now when it has more quarantines than recoveries.
  std::map<int, std::pair<int, std::string>> state;  // GPU -> (quarantines - recoveries, why)
  for (const Json& event : quarantined)
    if (event.value("run", 0.0) == run) {
      auto& [open, why] = state[event.value("gpu", -1)];
      ++open;
      why = event.value("message", std::string());
    }
  for (const Json& event : recovered)
    if (event.value("run", 0.0) == run) --state[event.value("gpu", -1)].first;
  std::string lines;
  for (const auto& [gpu, entry] : state)
    if (entry.first > 0) lines += "  " + entry.second + "\n";
  if (lines.empty()) return lines;
  return "Quarantined GPUs (latest run):\n" + lines;
}

Expected<std::string> TrialGpuMemoryLine(Journal& journal, int number) {
  GS_ASSIGN_OR_RETURN(std::vector<Json> events, journal.LoadEvents("trial_gpu_memory"));
  const Json* latest = nullptr;
  for (const Json& event : events)
    if (event.value("trial", -1) == number) latest = &event;
  if (latest == nullptr) return std::string();
  const auto peak = latest->value("peak_bytes", std::uint64_t{0});
  if (!latest->contains("declared_bytes"))
    return fmt::format("GPU memory: peak {}\n", FormatByteSize(peak));
  const auto declared = latest->value("declared_bytes", std::uint64_t{0});
  if (peak <= declared)
    return fmt::format("GPU memory: peak {} (declared {})\n", FormatByteSize(peak),
                       FormatByteSize(declared));
  return fmt::format("GPU memory: peak {}, MORE than the {} declared in "
                     "resources.gpu_memory_per_trial; trials sharing its GPU may run out of "
                     "memory: raise it\n",
                     FormatByteSize(peak), FormatByteSize(declared));
}

}  // namespace gpusweep
