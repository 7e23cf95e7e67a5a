#include "cli/experiment_locator.h"

#include <fmt/format.h>

#include "gpusweep/experiment_files.h"
#include "view/experiment_view.h"

namespace gpusweep {

Expected<std::filesystem::path> LocateExperiment(const std::optional<std::string>& given,
                                                 const std::filesystem::path& cwd) {
  if (given) {
    std::filesystem::path dir = std::filesystem::absolute(cwd / *given);
    if (!HoldsExperiment(dir))
      return Fail(ErrorCode::kNotFound,
                  fmt::format("no experiment at {}: {} does not exist", dir.string(), kJournalFileName));
    return dir;
  }
  if (HoldsExperiment(cwd)) return cwd;
  std::optional<std::filesystem::path> newest;
  std::filesystem::file_time_type newest_time;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cwd / kRunsDirName, ec)) {
    if (!HoldsExperiment(entry.path())) continue;
    auto time = std::filesystem::last_write_time(ExperimentFiles{entry.path()}.journal(), ec);
    if (!newest || time > newest_time) {
      newest = entry.path();
      newest_time = time;
    }
  }
  if (newest) return *newest;
  return Fail(ErrorCode::kNotFound,
              fmt::format("no experiment in {} or {}/runs/*; pass the experiment directory "
                          "(the one holding {})",
                          cwd.string(), cwd.string(), kJournalFileName));
}

}  // namespace gpusweep
