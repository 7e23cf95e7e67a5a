// json_limits.h — parsing JSON that came from outside (a trial, a journal row) with a
// nesting limit.
//
// Why: nlohmann's parser itself is iterative, but copying, comparing and dumping a
// value recurse once per nesting level, so a line nested 50,000 levels deep overflows
// the stack wherever the value goes next. Every parse of untrusted or stored JSON goes
// through ParseJsonWithDepthLimit, which measures the depth first (one linear scan, no
// recursion) and refuses a too-deep text before a value is built.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "gpusweep/json.h"
#include "gpusweep/status.h"

namespace gpusweep {

// The deepest nesting a stored value (a journal row, experiment.json) may have when it
// is read back (an object holding an array is depth 2). Above what the config allows
// for a parameter (128) plus the params object around it; metrics lines have their own,
// lower limit (MetricsLimits).
inline constexpr int kMaxStoredJsonDepth = 256;

// The deepest nesting of arrays and objects in `text`, counting brackets outside
// strings; stops counting (returns stop_above + 1) once it exceeds `stop_above`.
// Linear time, constant space. Meaningful for valid JSON; for other text it is only an
// upper-bound guard (the parser rejects that text anyway).
int JsonNestingDepth(std::string_view text, int stop_above);

// Parses `text` as one JSON value. Errors (kInvalidArgument): nested deeper than
// `max_depth` ("nested more than 256 levels deep"), or not valid JSON ("not valid
// JSON"). Never throws.
Expected<Json> ParseJsonWithDepthLimit(std::string_view text, int max_depth = kMaxStoredJsonDepth);

}  // namespace gpusweep
