#include "run/metrics_reader.h"

#include <array>
#include <cmath>
#include <fstream>

#include <fmt/format.h>

namespace gpusweep {
namespace {

// Keys a trial may use for its step, in order of preference.
constexpr std::array<const char*, 3> kStepKeys{"step", "epoch", "iteration"};

std::optional<std::int64_t> StepOf(const Json& object) {
  for (const char* key : kStepKeys) {
    auto it = object.find(key);
    if (it != object.end() && it->is_number_integer()) return it->get<std::int64_t>();
    if (it != object.end() && it->is_number_float()) {
      double v = it->get<double>();
      if (std::isfinite(v) && v == std::floor(v)) return static_cast<std::int64_t>(v);
    }
  }
  return std::nullopt;
}

}  // namespace

MetricsReader::MetricsReader(std::filesystem::path path) : path_(std::move(path)) {}

MetricsBatch MetricsReader::Poll() { return Read(false); }
MetricsBatch MetricsReader::Finish() { return Read(true); }

MetricsBatch MetricsReader::Read(bool final_read) {
  MetricsBatch batch;
  std::ifstream in(path_, std::ios::binary);
  if (!in) return batch;
  in.seekg(static_cast<std::streamoff>(offset_));
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t begin = 0;
  while (begin < chunk.size()) {
    std::size_t newline = chunk.find('\n', begin);
    if (newline == std::string::npos && !final_read) break;  // partial line: wait for the rest
    std::size_t end = newline == std::string::npos ? chunk.size() : newline;
    ParseLine(chunk.substr(begin, end - begin), batch);
    begin = newline == std::string::npos ? chunk.size() : newline + 1;
  }
  offset_ += begin;
  return batch;
}

void MetricsReader::ParseLine(const std::string& text, MetricsBatch& batch) {
  ++line_number_;
  if (text.find_first_not_of(" \t\r") == std::string::npos) return;  // blank line
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!value.is_object()) {
    const bool invalid = value.is_discarded();
    const bool non_finite = invalid && (text.find("NaN") != std::string::npos ||
                                        text.find("Infinity") != std::string::npos);
    batch.warnings.push_back(fmt::format(
        "{}:{}: {}, skipped: {:.60}", path_.string(), line_number_,
        non_finite ? "NaN and Infinity are not JSON (report null, or stop the trial)"
                   : invalid ? "not valid JSON" : "not a JSON object",
        text));
    return;
  }
  MetricsLine line;
  line.step = StepOf(value).value_or(object_count_);
  line.values = std::move(value);
  ++object_count_;
  batch.lines.push_back(std::move(line));
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

}  // namespace gpusweep
