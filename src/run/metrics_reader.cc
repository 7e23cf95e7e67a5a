#include "run/metrics_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/did_you_mean.h"
#include "common/file_kind.h"
#include "common/unique_fd.h"

namespace gpusweep {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::uint64_t kSlackBytes = 4096;  // read past the size seen by fstat

}  // namespace

MetricsReader::MetricsReader(std::filesystem::path path, MetricsLimits limits)
    : path_(std::move(path)), limits_(limits) {}

MetricsBatch MetricsReader::Poll() { return Read(ReadMode::kCompleteLines); }
MetricsBatch MetricsReader::Finish() { return Read(ReadMode::kToTheEnd); }

void MetricsReader::Refuse(std::string reason, MetricsBatch& batch) {
  refused_ = true;
  batch.refused = std::move(reason);
}

MetricsBatch MetricsReader::Read(ReadMode mode) {
  MetricsBatch batch;
  if (refused_) return batch;
  // stat first, so a FIFO is never opened (opening one would wake a writer blocked in
  // open()); then open without blocking and check what was opened (it may have been
  // swapped in between).
  struct stat info {};
  if (::stat(path_.c_str(), &info) != 0) {
    if (errno != ENOENT) Refuse(fmt::format("{} cannot be read ({})", path_.string(),
                                            std::strerror(errno)), batch);
    return batch;  // not there yet: nothing reported
  }
  UniqueFd fd;
  if (S_ISREG(info.st_mode)) {
    fd.Reset(::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid() || ::fstat(fd.get(), &info) != 0) return batch;  // gone again
  }
  if (!S_ISREG(info.st_mode)) {
    Refuse(fmt::format("{} is {}, not a regular file; gpusweep reads metrics only from a "
                       "regular file, so the trial was stopped",
                       path_.string(), FileKind(info.st_mode)),
           batch);
    return batch;
  }
  const std::uint64_t budget = mode == ReadMode::kToTheEnd ? kFinishBytes : kPollBytes;
  // Nothing new (the common case: polled every iteration of the run loop). A file that
  // shrank reads as its end, as before.
  const std::uint64_t size = static_cast<std::uint64_t>(info.st_size);
  if (size <= offset_ && (mode == ReadMode::kCompleteLines || partial_bytes_ == 0)) return batch;
  // Sized to what is there (plus room to notice growth), not a fixed megabyte: zeroing
  // and faulting in 1 MiB per poll was a tenth of the controller's time on tiny trials.
  const std::uint64_t unread = size - std::min(size, offset_);
  std::string chunk(static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, unread + kSlackBytes)),
                    '\0');
  std::uint64_t read_now = 0;
  bool at_end = false;
  while (read_now < budget) {
    const ssize_t n = ::pread(fd.get(), chunk.data(), chunk.size(), static_cast<off_t>(offset_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      at_end = n == 0;
      break;
    }
    offset_ += static_cast<std::uint64_t>(n);
    read_now += static_cast<std::uint64_t>(n);
    Consume(std::string_view(chunk.data(), static_cast<std::size_t>(n)), batch);
  }
  if (mode == ReadMode::kToTheEnd) {
    if (!at_end)
      batch.warnings.push_back(fmt::format("{}: stopped reading after {} more bytes",
                                           path_.string(), read_now));
    else if (partial_bytes_ > 0)
      EndLine(batch);
  }
  return batch;
}

void MetricsReader::Consume(std::string_view bytes, MetricsBatch& batch) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    partial_bytes_ += piece.size();
    if (partial_bytes_ <= limits_.max_line_bytes) {
      partial_.append(piece);
    } else if (!partial_.empty()) {
      std::string().swap(partial_);  // over the limit: keep counting, stop holding
    }
    if (newline == std::string_view::npos) return;
    EndLine(batch);
    bytes.remove_prefix(newline + 1);
  }
}

void MetricsReader::EndLine(MetricsBatch& batch) {
  ++line_number_;
  const std::uint64_t length = partial_bytes_;
  partial_bytes_ = 0;
  if (length > limits_.max_line_bytes) {
    batch.warnings.push_back(fmt::format("{}:{}: line of {} bytes, over the {}-byte limit, skipped",
                                         path_.string(), line_number_, length,
                                         limits_.max_line_bytes));
    return;
  }
  ParsedMetricsLine parsed = ParseMetricsLine(partial_, limits_);
  partial_.clear();
  for (const std::string& problem : parsed.problems)
    batch.warnings.push_back(fmt::format("{}:{}: {}", path_.string(), line_number_, problem));
  if (!parsed.object) return;
  batch.lines.push_back(
      MetricsLine{parsed.step.value_or(object_count_), std::move(*parsed.object)});
  ++object_count_;
}

std::optional<double> LastMetricValue(const std::vector<MetricsLine>& lines,
                                      const std::string& metric) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    auto found = it->values.find(metric);
    if (found != it->values.end() && found->is_number()) {
      double v = found->get<double>();
      if (std::isfinite(v)) return v;
    }
  }
  return std::nullopt;
}

std::string MissingMetricReason(const std::string& metric, const Json& reported) {
  if (reported.empty())
    return fmt::format("exited 0 but reported no JSON object to $GPUSWEEP_METRICS (needs '{}')",
                       metric);
  if (auto value = reported.find(metric); value != reported.end())
    return fmt::format("exited 0 but its last '{}' was {}, not a number", metric, value->dump());
  std::vector<std::string> keys;
  for (const auto& [key, unused] : reported.items()) keys.push_back(key);
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::string reason = fmt::format("exited 0 but never reported the metric '{}' (it reported: {})",
                                   metric, fmt::join(keys, ", "));
  if (auto close = ClosestMatch(metric, views)) reason += fmt::format("; did you mean '{}'?", *close);
  return reason;
}

std::string MetricsWarningsNote(int warnings, const std::string& first_warning) {
  if (warnings == 0) return "";
  if (warnings == 1) return "; reading its metrics: " + first_warning;
  return fmt::format("; {} warnings reading its metrics, the first: {}", warnings, first_warning);
}

}  // namespace gpusweep
