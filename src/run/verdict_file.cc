#include "run/verdict_file.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "gpusweep/json.h"
#include "gpusweep/render.h"

namespace gpusweep {
namespace {

Error VerdictIoError(const std::filesystem::path& path, std::string_view what, int err) {
  return Error{ErrorCode::kIo,
               fmt::format("{}: cannot {} the verdict file: {}", path.string(), what,
                           std::strerror(err))};
}

}  // namespace

std::string VerdictLine(double resource, const std::optional<Decision>& decision) {
  Json line = Json::object();
  line["resource"] = BudgetJson(resource);  // whole values as integers, like the trial wrote them
  line["verdict"] = std::string(ToString(decision ? decision->verdict : Verdict::kContinue));
  if (decision && decision->rung >= 0) line["rung"] = decision->rung;
  if (decision && !decision->reason.empty()) line["reason"] = decision->reason;
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Expected<VerdictFile> VerdictFile::Create(const std::filesystem::path& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return tl::unexpected(VerdictIoError(path, "create", errno));
  return VerdictFile(path, UniqueFd(fd));
}

Expected<VerdictFile> VerdictFile::Reopen(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(VerdictIoError(path, "open", errno));
  return VerdictFile(path, UniqueFd(fd));
}

Status VerdictFile::Append(double resource, const std::optional<Decision>& decision) {
  const std::string data = VerdictLine(resource, decision) + "\n";
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(fd_.get(), data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return tl::unexpected(VerdictIoError(path_, "append to", errno));
    written += static_cast<std::size_t>(n);
  }
  return {};
}

}  // namespace gpusweep
