#include "web/point_columns.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include <fmt/format.h>

namespace gpusweep::web {
namespace {

// Appends `value` and a ','. Doubles in their shortest round-trip form, as fmt's "{}".
template <typename T>
void AppendNumber(std::string& column, T value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  column.append(buffer, error == std::errc() ? end : buffer);
  column += ',';
}

}  // namespace

void PointColumns::Append(const MetricPoint& point) {
  Start start{point.cursor, {}};
  for (std::size_t c = 0; c < kColumns; ++c) start.at[c] = static_cast<std::uint32_t>(text_[c].size());
  starts_.push_back(start);
  AppendNumber(text_[0], point.trial);
  AppendNumber(text_[1], point.attempt);
  AppendNumber(text_[2], point.step);
  AppendNumber(text_[3], *point.value);
}

std::string PointColumns::JsonAfter(std::int64_t after, std::int64_t read_up_to) const {
  auto first = std::upper_bound(starts_.begin(), starts_.end(), after,
                                [](std::int64_t c, const Start& s) { return c < s.cursor; });
  static constexpr const char* kNames[kColumns] = {"trial", "attempt", "step", "value"};
  std::array<std::size_t, kColumns> from{};
  std::size_t bytes = 96;
  for (std::size_t c = 0; c < kColumns; ++c) {
    from[c] = first == starts_.end() ? text_[c].size() : first->at[c];
    bytes += text_[c].size() - from[c];
  }
  std::string out;
  out.reserve(bytes);
  fmt::format_to(std::back_inserter(out), "{{\"cursor\":{}", std::max(after, read_up_to));
  for (std::size_t c = 0; c < kColumns; ++c) {
    // Without the last number's ',' (none when there are no points).
    const std::size_t length = text_[c].size() - from[c] - (from[c] < text_[c].size() ? 1 : 0);
    fmt::format_to(std::back_inserter(out), ",\"{}\":[", kNames[c]);
    out.append(text_[c], from[c], length);
    out += ']';
  }
  out += '}';
  return out;
}

}  // namespace gpusweep::web
