// metrics_reader.h — incremental reader of a trial's metrics.jsonl.
//
// Contract: a trial appends one JSON object per line. The reader returns each complete
// line exactly once, in order, across any number of Poll() calls while the file grows.
// A trailing partial line is held back until its newline arrives, or until Finish()
// (the trial exited, so nothing more will come). Lines that are not JSON objects are
// skipped and reported as warnings ("metrics.jsonl:7: not valid JSON, skipped: ..."),
// never errors. A missing file is simply "nothing reported yet".
//
// The file is untrusted input (docs/protocol.md, "Limits"): the reader never blocks
// (it opens only a regular file, non-blocking, and checks the type of what it opened),
// holds at most one line's limit of a partial line in memory, reads a bounded amount
// per Poll(), and parses through ParseMetricsLine (depth, size and step limits). A path
// that is not a regular file (a FIFO, a directory, a link to /dev/zero) is refused
// once, with a reason, and never read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/json.h"
#include "run/metrics_line.h"

namespace gpusweep {

struct MetricsLine {
  std::int64_t step = 0;  // "step", else "epoch", else "iteration" (integral), else line ordinal
  Json values;            // the whole object (trimmed to the stored-size limit)
};

struct MetricsBatch {
  std::vector<MetricsLine> lines;
  std::vector<std::string> warnings;
  // Set once, when the path turned out not to be a regular file (or not readable):
  // why nothing will be read. The trial loop stops the trial with this reason.
  std::optional<std::string> refused;
};

class MetricsReader {
 public:
  explicit MetricsReader(std::filesystem::path path, MetricsLimits limits = {});

  // New complete lines since the last call (reads at most kPollBytes of the file).
  MetricsBatch Poll();
  // New lines including a final line without newline; call once after the trial exits.
  MetricsBatch Finish();

  const std::filesystem::path& path() const { return path_; }

  static constexpr std::uint64_t kPollBytes = std::uint64_t{16} << 20;
  static constexpr std::uint64_t kFinishBytes = std::uint64_t{1} << 30;

 private:
  enum class ReadMode { kCompleteLines, kToTheEnd };
  MetricsBatch Read(ReadMode mode);
  // Splits `bytes` into lines, keeping at most the line limit of the current one.
  void Consume(std::string_view bytes, MetricsBatch& batch);
  void EndLine(MetricsBatch& batch);
  void Refuse(std::string reason, MetricsBatch& batch);

  std::filesystem::path path_;
  MetricsLimits limits_;
  std::uint64_t offset_ = 0;        // bytes read from the file
  std::string partial_;             // the current line so far (empty once over the limit)
  std::uint64_t partial_bytes_ = 0; // its length, counting bytes dropped over the limit
  bool refused_ = false;
  std::int64_t line_number_ = 0;    // 1-based number of the last line consumed
  std::int64_t object_count_ = 0;   // JSON objects seen, the fallback step
};

// The objective: the last numeric value of `metric` among `lines`, or nullopt.
std::optional<double> LastMetricValue(const std::vector<MetricsLine>& lines,
                                      const std::string& metric);

// Why a trial that exited 0 has no objective, with what it did report (`reported`: its
// last value of each key), so a typo in the metric name or a string value is obvious.
std::string MissingMetricReason(const std::string& metric, const Json& reported);
// "; 3 warnings reading its metrics, the first: metrics.jsonl:1: not valid JSON, ..."
// or "" when there were none: a trial whose lines were skipped (or trimmed of the metric)
// says why in `show` and `status`, not only in the run's console warnings.
std::string MetricsWarningsNote(int warnings, const std::string& first_warning);

}  // namespace gpusweep
