#include "config/template_parser.h"

#include "common/file_kind.h"
#include "common/unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <array>
#include <charconv>
#include <kainjow/mustache.hpp>
#include <system_error>

#include "gpusweep/experiment_files.h"

namespace gpusweep::config_detail {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 2> kTemplateFileKeys{"src", "dst"};
// What the runner itself writes into every trial directory (ARCHITECTURE.md); a
// template rendered there would be overwritten or would corrupt the trial's record.
constexpr std::array<std::string_view, 3> kRunnerFiles{TrialFiles::kParams, TrialFiles::kOutputLog,
                                                       TrialFiles::kMetrics};
constexpr std::string_view kDstHint =
    "use a path relative to the trial directory, e.g. setup.py or conf/train.yaml";

Expected<TemplateSpec> ParseTemplate(const Value& value, const fs::path& config_dir) {
  GS_ASSIGN_OR_RETURN(Mapping mapping, value.ToMapping());
  GS_TRY(mapping.CheckKeys(kTemplateFileKeys));
  GS_ASSIGN_OR_RETURN(Value src, mapping.Require("src", "add src: <template file>"));
  GS_ASSIGN_OR_RETURN(Value dst, mapping.Require("dst", "add dst: <path in the trial directory>"));
  TemplateSpec spec;
  spec.position = value.position();
  GS_ASSIGN_OR_RETURN(std::string src_text, src.ToText());
  spec.src = (config_dir / src_text).lexically_normal();
  auto content = ReadTextFile(spec.src);
  if (!content)
    return src.Invalid(content.error().message,
                       "src is relative to the config file's directory; check the path");
  if (auto error = MustacheSyntaxError(*content))
    return src.Invalid(
        fmt::format("'{}' is not a valid Mustache template: {}", spec.src.string(), *error),
        "fix the template's {{tags}}");
  spec.text = std::move(*content);
  GS_ASSIGN_OR_RETURN(spec.dst, ParseTemplateDst(dst));
  return spec;
}

}  // namespace

Expected<std::vector<TemplateSpec>> ParseTemplates(const Value* value, const fs::path& config_dir) {
  std::vector<TemplateSpec> templates;
  if (value == nullptr || value->IsNull()) return templates;
  GS_ASSIGN_OR_RETURN(std::vector<Value> list, value->ToList());
  for (std::size_t i = 0; i < list.size(); ++i) {
    GS_ASSIGN_OR_RETURN(TemplateSpec spec, ParseTemplate(list[i], config_dir));
    for (std::size_t j = 0; j < templates.size(); ++j)
      if (templates[j].dst == spec.dst)
        return list[i].Invalid(
            fmt::format("dst '{}' is also written by {}[{}]", spec.dst, value->path(), j),
            "give each template its own dst");
    templates.push_back(std::move(spec));
  }
  return templates;
}

Expected<std::string> ParseTemplateDst(const Value& value) {
  GS_ASSIGN_OR_RETURN(std::string text, value.ToText());
  const fs::path path(text);
  if (text.empty()) return value.Invalid("dst is empty", kDstHint);
  if (path.has_root_path()) return value.Invalid(fmt::format("'{}' is absolute", text), kDstHint);
  const fs::path normal = path.lexically_normal();
  if (normal.empty() || normal == "." || *normal.begin() == "..")
    return value.Invalid(fmt::format("'{}' is outside the trial directory", text), kDstHint);
  if (!normal.has_filename())
    return value.Invalid(fmt::format("'{}' names a directory, not a file", text), kDstHint);
  for (std::string_view reserved : kRunnerFiles)
    if (normal == reserved)
      return value.Invalid(
          fmt::format("'{}' is written by gpusweep in every trial directory", text),
          "choose another name");
  return normal.generic_string();
}

std::optional<std::string> MustacheSyntaxError(const std::string& text) {
  const kainjow::mustache::mustache parsed{text};
  if (parsed.is_valid()) return std::nullopt;
  // kainjow ends with a byte offset ("Unclosed section \"a\" at 57"); a person needs
  // the line and column.
  std::string message = parsed.error_message();
  const std::size_t at = message.rfind(" at ");
  std::size_t offset = 0;
  const char* digits = message.data() + (at == std::string::npos ? 0 : at + 4);
  const auto [end, ec] = std::from_chars(digits, message.data() + message.size(), offset);
  if (at == std::string::npos || ec != std::errc() || end != message.data() + message.size() ||
      offset > text.size())
    return message;
  const std::string_view before = std::string_view(text).substr(0, offset);
  const auto line = std::count(before.begin(), before.end(), '\n') + 1;
  const std::size_t newline = before.rfind('\n');
  const std::size_t column = newline == std::string_view::npos ? offset + 1 : offset - newline;
  return fmt::format("{} at line {}, column {}", message.substr(0, at), line, column);
}

Expected<std::string> ReadTextFile(const fs::path& path, std::uint64_t max_bytes) {
  // Non-blocking: opening a FIFO for reading would wait for a writer forever. What was
  // opened is judged by fstat (a path checked first could be swapped before the open).
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd.valid())
    return Fail(ErrorCode::kIo, fmt::format("'{}' is not a readable file: {}", path.string(),
                                            std::strerror(errno)));
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0)
    return Fail(ErrorCode::kIo, fmt::format("cannot read '{}': {}", path.string(),
                                            std::strerror(errno)));
  if (!S_ISREG(info.st_mode))
    return Fail(ErrorCode::kIo, fmt::format("'{}' is not a readable file: it is {}, not a "
                                            "regular file",
                                            path.string(), FileKind(info.st_mode)));
  const auto too_big = [&](std::uint64_t size) {
    return Fail(ErrorCode::kIo,
                fmt::format("'{}' is {} bytes, over the {}-byte limit for a config or "
                            "template file",
                            path.string(), size, max_bytes));
  };
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) return too_big(info.st_size);
  // It may still grow while read: read at most one byte past the limit to notice.
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return Fail(ErrorCode::kIo, fmt::format("cannot read '{}': {}", path.string(),
                                              std::strerror(errno)));
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > max_bytes) return too_big(text.size());
  }
}

}  // namespace gpusweep::config_detail
