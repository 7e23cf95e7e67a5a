// libFuzzer target: one line of a trial's metrics.jsonl (ParseMetricsLine), with small
// limits so the size and depth paths are reached often. Checks the contract: the
// stored object never exceeds the stored-size limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "run/metrics_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  gpusweep::MetricsLimits limits;
  limits.max_line_bytes = 4096;
  limits.max_stored_bytes = 256;
  limits.max_depth = 16;
  const gpusweep::ParsedMetricsLine parsed = gpusweep::ParseMetricsLine(line, limits);
  if (parsed.object) {
    if (!parsed.object->is_object()) std::abort();
    if (parsed.object->dump(-1, ' ', false, gpusweep::Json::error_handler_t::replace).size() >
        limits.max_stored_bytes)
      std::abort();
  }
  (void)gpusweep::ParseMetricsLine(line);  // the default limits too
  return 0;
}
