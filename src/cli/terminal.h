// terminal.h — what the CLI knows about its terminal.
#pragma once

#include <cstdio>

#include "gpusweep/report.h"

namespace gpusweep {

struct TerminalInfo {
  bool is_tty = false;
  int width = 160;                       // columns; generous when not a terminal
  ColorMode color = ColorMode::kNever;   // NO_COLOR (https://no-color.org) turns it off
};

// Inspects `stream` (isatty, TIOCGWINSZ, $COLUMNS, $NO_COLOR).
TerminalInfo InspectTerminal(std::FILE* stream);

}  // namespace gpusweep
