// template_parser.h — the `templates:` section and Mustache syntax checks.
//
// Contract: each template's src is resolved against the config file's directory and
// must be a readable file whose text is valid Mustache; dst must be a relative path
// that, after lexical normalization, stays inside the trial directory, names a file and
// is not one of the runner's own files.
// Failures are located Error{kInvalidConfig}.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/yaml_reader.h"
#include "gpusweep/config.h"

namespace gpusweep::config_detail {

// `value` is the node under `templates:`, or nullptr when absent.
Expected<std::vector<TemplateSpec>> ParseTemplates(const Value* value,
                                                   const std::filesystem::path& config_dir);

// The normalized form of a template destination ("a/./b.py" -> "a/b.py"), or an error
// at `value` when it is absolute, empty, a directory, escapes with "..", or is one of
// the files the runner writes (params.json, output.log, metrics.jsonl).
Expected<std::string> ParseTemplateDst(const Value& value);

// kainjow::mustache's message when `text` is not a valid Mustache template.
std::optional<std::string> MustacheSyntaxError(const std::string& text);

// The most a config or template file may hold: 16 MiB. Every trial renders each
// template and the config's text is journaled, so a mistaken path to a data file must
// fail at once, not fill memory and disk.
constexpr std::uint64_t kMaxTextFileBytes = std::uint64_t{16} << 20;

// Reads a whole regular file of at most `max_bytes`. Never blocks on a FIFO (opened
// non-blocking) and judges what it opened (fstat), so a FIFO, directory or device is
// refused even if swapped in after a check. Error{kIo} with message text the caller
// locates (file:line of the YAML that names it): "'<path>' is not a readable file: it
// is a FIFO, not a regular file", "'<path>' is 20000000 bytes, over the limit ...".
Expected<std::string> ReadTextFile(const std::filesystem::path& path,
                                   std::uint64_t max_bytes = kMaxTextFileBytes);

}  // namespace gpusweep::config_detail
