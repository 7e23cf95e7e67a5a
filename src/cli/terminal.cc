#include "cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

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

}  // namespace gpusweep
