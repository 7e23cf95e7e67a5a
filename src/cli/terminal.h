// terminal.h — what the CLI knows about its terminal.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "gpusweep/report.h"

namespace gpusweep {

struct TerminalInfo {
  bool is_tty = false;
  int width = 160;                       // columns; generous when not a terminal
  ColorMode color = ColorMode::kNever;   // NO_COLOR (https://no-color.org) turns it off
};

// Inspects `stream` (isatty, TIOCGWINSZ, $COLUMNS, $NO_COLOR).
TerminalInfo InspectTerminal(std::FILE* stream);

// `text` with every control character but newline and tab written visibly, as `less`
// shows them: C0 controls and DEL as "\x1b", "\r", ...; C1 controls (U+0080..U+009F,
// which some terminals obey as ESC sequences) as "\u009b". For what a trial wrote
// (its output's tail) on a terminal: raw, an ESC sequence would
// recolour, move the cursor or retitle the window instead of showing what is there.
std::string ControlsVisible(std::string_view text);

}  // namespace gpusweep
