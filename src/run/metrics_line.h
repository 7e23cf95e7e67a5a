// metrics_line.h — one line of a trial's metrics.jsonl, parsed as untrusted input.
//
// Contract: ParseMetricsLine never throws, never recurses on the input's nesting, and
// returns an object whose dumped size is at most `max_stored_bytes`. What it refuses
// or drops comes back as a reason (one sentence, without the file:line prefix the
// reader adds). The limits are documented in docs/protocol.md ("Limits").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_limits.h"
#include "gpusweep/json.h"

namespace gpusweep {

struct MetricsLimits {
  std::size_t max_line_bytes = std::size_t{1} << 20;    // 1 MiB: a longer line is skipped
  std::size_t max_stored_bytes = std::size_t{64} << 10;  // 64 KiB of JSON stored per line
  int max_depth = 64;                                     // deeper lines are skipped
};

struct ParsedMetricsLine {
  std::optional<Json> object;         // the (possibly trimmed) object; nullopt: skipped
  std::optional<std::int64_t> step;   // "step", else "epoch", else "iteration", if usable
  std::vector<std::string> problems;  // why it was skipped, or what was dropped/ignored
};

// `text`: one line without its newline. A blank line gives neither object nor problem.
// A step value must be an integer (or an integral float) inside the int64 range; one
// outside it (1e300, 2^64-1) is ignored with a reason, so the caller falls back to the
// line ordinal. An object over `max_stored_bytes` keeps its entries in order, numbers,
// booleans and nulls first, while they fit; the others are dropped and named.
ParsedMetricsLine ParseMetricsLine(std::string_view text, const MetricsLimits& limits = {});

}  // namespace gpusweep
