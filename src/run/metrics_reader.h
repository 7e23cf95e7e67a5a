// metrics_reader.h — incremental reader of a trial's metrics.jsonl.
//
// Contract: a trial appends one JSON object per line. The reader returns each complete
// line exactly once, in order, across any number of Poll() calls while the file grows.
// A trailing partial line is held back until its newline arrives, or until Finish()
// (the trial exited, so nothing more will come). Lines that are not JSON objects are
// skipped and reported as warnings ("metrics.jsonl:7: not valid JSON, skipped: ..."),
// never errors. A missing file is simply "nothing reported yet".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/json.h"

namespace gpusweep {

struct MetricsLine {
  std::int64_t step = 0;  // "step", else "epoch", else "iteration" (integral), else line ordinal
  Json values;            // the whole object
};

struct MetricsBatch {
  std::vector<MetricsLine> lines;
  std::vector<std::string> warnings;
};

class MetricsReader {
 public:
  explicit MetricsReader(std::filesystem::path path);

  // New complete lines since the last call.
  MetricsBatch Poll();
  // New lines including a final line without newline; call once after the trial exits.
  MetricsBatch Finish();

  const std::filesystem::path& path() const { return path_; }

 private:
  MetricsBatch Read(bool final_read);
  void ParseLine(const std::string& text, MetricsBatch& batch);

  std::filesystem::path path_;
  std::uint64_t offset_ = 0;   // bytes consumed (complete lines only)
  std::int64_t line_number_ = 0;  // 1-based number of the last line consumed
  std::int64_t object_count_ = 0;  // JSON objects seen, the fallback step
};

// The objective: the last numeric value of `metric` among `lines`, or nullopt.
std::optional<double> LastMetricValue(const std::vector<MetricsLine>& lines,
                                      const std::string& metric);

}  // namespace gpusweep
