// output_tail.h — the last line a trial printed, to say why it failed.
//
// A Python trial that raises ends its output with the exception ("ValueError: lr must
// be positive"); a shell trial with the failing command's complaint. Shown next to
// "exit code 1" in the terminal, `status` and `show`, it usually says why at once.
#pragma once

#include <filesystem>
#include <string>

namespace gpusweep {

// The last non-blank line among the final `window` bytes of `path` (a trial's
// output.log): leading and trailing whitespace trimmed, control characters and
// invalid UTF-8 bytes replaced by '?' (the text goes to a terminal and into the
// journal), cut to `max_chars` bytes at a character boundary with "…" appended when
// longer. A carriage return starts a new line (progress bars redraw with it). "" when
// the file is missing, unreadable or holds only blank lines.
std::string LastOutputLine(const std::filesystem::path& path, std::size_t window = 4096,
                           std::size_t max_chars = 200);

}  // namespace gpusweep
