#include "cli/experiment_locator.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/experiment_files.h"
#include "view/experiment_view.h"

namespace gpusweep {
namespace {

// Why `dir` is not an experiment, and where one may be: a path that does not exist, a
// file, or a folder of experiments (runs/, say) named with the ones it holds.
std::string NoExperimentAt(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec))
    return fmt::format("no experiment at {}: there is no such directory", dir.string());
  if (!std::filesystem::is_directory(dir, ec))
    return fmt::format("no experiment at {}: it is a file; pass the experiment directory (the one "
                       "holding {})",
                       dir.string(), kJournalFileName);
  // Newest journal first: the one `status` alone would pick under runs/.
  std::vector<std::pair<std::filesystem::file_time_type, std::string>> found;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (HoldsExperiment(entry.path()))
      found.emplace_back(std::filesystem::last_write_time(ExperimentFiles{entry.path()}.journal(), ec),
                         entry.path().filename().string());
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> inside;
  for (auto& [time, name] : found) inside.push_back(std::move(name));
  if (inside.empty())
    return fmt::format("no experiment at {}: {} does not exist there, nor in a directory inside it",
                       dir.string(), kJournalFileName);
  constexpr std::size_t kNamed = 5;
  const std::size_t named = std::min(inside.size(), kNamed);
  if (inside.size() == 1)
    return fmt::format("{} is not an experiment but holds one, {}; pass that: {}", dir.string(),
                       inside.front(), (dir / inside.front()).string());
  return fmt::format("{} is not an experiment but holds {} ({}{}, the newest first); pass one of "
                     "them, e.g. {}",
                     dir.string(), inside.size(),
                     fmt::join(inside.begin(), inside.begin() + static_cast<std::ptrdiff_t>(named), ", "),
                     named < inside.size() ? ", ..." : "", (dir / inside.front()).string());
}

}  // namespace

Expected<std::filesystem::path> LocateExperiment(const std::optional<std::string>& given,
                                                 const std::filesystem::path& cwd) {
  if (given) {
    std::filesystem::path dir = std::filesystem::absolute(cwd / *given);
    if (!HoldsExperiment(dir)) return Fail(ErrorCode::kNotFound, NoExperimentAt(dir));
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
