// install_paths.cc — where an installed or a build-tree gpusweep finds its files.
#include "cli/install_paths.h"

#include <cstdlib>
#include <string_view>
#include <system_error>

namespace gpusweep {

// The folder holding gpusweep.py for trials: the installed copy,
// <exe dir>/../share/gpusweep/python. Only a binary still in its build tree falls back
// to the source tree's copy: an installed one must never reach back into a source tree
// that may have moved on (or gone), so without its helper it names the missing folder
// and trials that import gpusweep fail saying so.
std::filesystem::path PythonHelperDir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return GPUSWEEP_SOURCE_PYTHON_DIR;  // no /proc: nothing to go by but the build
  const auto installed = exe.parent_path().parent_path() / "share" / "gpusweep" / "python";
  if (std::filesystem::exists(installed / "gpusweep.py", ec)) return installed;
  const auto build_dir = std::filesystem::weakly_canonical(GPUSWEEP_BUILD_DIR, ec);
  if (!ec && exe.parent_path() == build_dir) return GPUSWEEP_SOURCE_PYTHON_DIR;
  return installed;
}

std::string SuggestedProgram() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "gpusweep";
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "";
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    const auto candidate = std::filesystem::path(dir) / "gpusweep";
    if (!std::filesystem::exists(candidate, ec)) continue;
    // The first gpusweep on PATH is what the user's shell runs: it must be this one.
    if (std::filesystem::equivalent(candidate, exe, ec)) return "gpusweep";
    break;
  }
  // A path a shell would split or expand is not worth copying: the plain name then.
  const std::string text = exe.string();
  const bool plain = text.find_first_not_of(
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+") ==
                     std::string::npos;
  return plain ? text : "gpusweep";
}

}  // namespace gpusweep
