#include "cli/experiment_locator.h"

#include <fmt/format.h>


namespace gpusweep {
namespace {

constexpr const char* kJournalFile = "gpusweep.db";

bool HoldsJournal(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / kJournalFile, ec);
}

}  // namespace

Expected<std::filesystem::path> LocateExperiment(const std::optional<std::string>& given,
                                                 const std::filesystem::path& cwd) {
  if (given) {
    std::filesystem::path dir = std::filesystem::absolute(cwd / *given);
    if (!HoldsJournal(dir))
      return Fail(ErrorCode::kNotFound,
                  fmt::format("no experiment at {}: {} does not exist", dir.string(), kJournalFile));
    return dir;
  }
  if (HoldsJournal(cwd)) return cwd;
  std::optional<std::filesystem::path> newest;
  std::filesystem::file_time_type newest_time;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cwd / "runs", ec)) {
    if (!HoldsJournal(entry.path())) continue;
    auto time = std::filesystem::last_write_time(entry.path() / kJournalFile, ec);
    if (!newest || time > newest_time) {
      newest = entry.path();
      newest_time = time;
    }
  }
  if (newest) return *newest;
  return Fail(ErrorCode::kNotFound,
              fmt::format("no experiment in {} or {}/runs/*; pass the experiment directory "
                          "(the one holding {})",
                          cwd.string(), cwd.string(), kJournalFile));
}

}  // namespace gpusweep
