#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

namespace gpusweep {

TerminalInfo InspectTerminal(std::FILE* stream) {
  TerminalInfo info;
  const int fd = fileno(stream);
  info.is_tty = ::isatty(fd) == 1;
  if (info.is_tty) {
    winsize size{};
    if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) info.width = size.ws_col;
    else info.width = 80;
    const char* no_color = std::getenv("NO_COLOR");
    info.color = (no_color && *no_color) ? ColorMode::kNever : ColorMode::kAlways;
  }
  if (const char* columns = std::getenv("COLUMNS")) {
    int value = std::atoi(columns);
    if (value > 0) info.width = value;
  }
  return info;
}

std::string ControlsVisible(std::string_view text) {
  std::string visible;
  visible.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (byte == '\n' || byte == '\t') {
      visible += text[i];
    } else if (byte == '\r') {
      visible += "\\r";
    } else if (byte < 0x20 || byte == 0x7f) {
      visible += fmt::format("\\x{:02x}", byte);
    } else if (byte == 0xc2 && next >= 0x80 && next <= 0x9f) {  // UTF-8 of U+0080..U+009F
      visible += fmt::format("\\u{:04x}", next);
      ++i;
    } else {
      visible += text[i];
    }
  }
  return visible;
}

}  // namespace gpusweep
