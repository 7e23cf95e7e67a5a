// io_error.h — the run module's one way of saying a system call on a path failed: an
// ErrorCode::kIo error reading "<path>: <what>: <strerror(err)>". Internal to src/run.
#pragma once

#include <cstring>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "gpusweep/status.h"

namespace gpusweep {

inline Error IoError(const std::filesystem::path& path, std::string_view what, int err) {
  return Error{ErrorCode::kIo, fmt::format("{}: {}: {}", path.string(), what, std::strerror(err))};
}

}  // namespace gpusweep
