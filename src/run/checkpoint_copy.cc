// Copying a parent's checkpoint and judging a trial's own (see checkpoint_copy.h).
#include "run/checkpoint_copy.h"

#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "common/json_limits.h"
#include "gpusweep/experiment_files.h"

namespace gpusweep {
namespace {

constexpr std::streamsize kMaxMarkerBytes = 64 * 1024;

Status IoFailure(std::string_view what, const std::filesystem::path& path, const std::error_code& ec) {
  return Fail(ErrorCode::kIo, fmt::format("checkpoint: cannot {} {}: {}", what, path.string(), ec.message()));
}

}  // namespace

Status CopyParentCheckpoint(const std::filesystem::path& parent_dir,
                            const std::filesystem::path& trial_dir) {
  namespace fs = std::filesystem;
  const TrialFiles parent{parent_dir}, trial{trial_dir};
  std::error_code ec;
  fs::remove_all(trial.checkpoint_incoming(), ec);
  if (ec) return IoFailure("remove", trial.checkpoint_incoming(), ec);
  const fs::file_status source = fs::symlink_status(parent.checkpoint(), ec);
  if (!fs::is_directory(source)) {  // nothing saved (or not a directory): start fresh
    fs::remove_all(trial.checkpoint(), ec);
    return ec ? IoFailure("remove", trial.checkpoint(), ec) : Status{};
  }
  fs::copy(parent.checkpoint(), trial.checkpoint_incoming(),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) return IoFailure("copy the parent's checkpoint into", trial.checkpoint_incoming(), ec);
  fs::remove_all(trial.checkpoint(), ec);  // an earlier attempt's
  if (ec) return IoFailure("remove", trial.checkpoint(), ec);
  fs::rename(trial.checkpoint_incoming(), trial.checkpoint(), ec);
  if (ec) return IoFailure("rename into place", trial.checkpoint(), ec);
  return {};
}

Status ClearCheckpoint(const std::filesystem::path& trial_dir) {
  const TrialFiles trial{trial_dir};
  std::error_code ec;
  for (const std::filesystem::path& path : {trial.checkpoint_incoming(), trial.checkpoint()}) {
    std::filesystem::remove_all(path, ec);
    if (ec) return IoFailure("remove", path, ec);
  }
  return {};
}

bool HasOwnCheckpoint(const std::filesystem::path& trial_dir, int number) {
  const std::filesystem::path marker = TrialFiles{trial_dir}.checkpoint_marker();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(marker, ec))) return false;
  std::ifstream in(marker, std::ios::binary);
  std::string text(static_cast<std::size_t>(kMaxMarkerBytes), '\0');
  in.read(text.data(), kMaxMarkerBytes);
  text.resize(static_cast<std::size_t>(in.gcount()));
  const Expected<Json> json = ParseJsonWithDepthLimit(text);
  if (!json || !json->is_object() || !json->contains("trial")) return false;
  const Json& trial = (*json)["trial"];
  return trial.is_number_integer() && trial.get<long long>() == number;
}

}  // namespace gpusweep
