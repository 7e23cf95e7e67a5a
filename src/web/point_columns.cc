#include "web/point_columns.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <string_view>

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

std::string PointColumns::JsonAfter(std::int64_t after, std::int64_t read_up_to,
                                    const std::function<bool(int trial)>& keep) const {
  auto first = std::upper_bound(starts_.begin(), starts_.end(), after,
                                [](std::int64_t c, const Start& s) { return c < s.cursor; });
  std::array<std::string_view, kColumns> columns;
  std::array<std::string, kColumns> kept;
  if (!keep) {  // every point after `after`: each column's tail, as it is
    for (std::size_t c = 0; c < kColumns; ++c)
      columns[c] = std::string_view(text_[c]).substr(first == starts_.end() ? text_[c].size()
                                                                            : first->at[c]);
  } else {
    for (auto point = first; point != starts_.end(); ++point) {
      const auto next = point + 1;
      std::array<std::size_t, kColumns> end{};
      for (std::size_t c = 0; c < kColumns; ++c)
        end[c] = next == starts_.end() ? text_[c].size() : next->at[c];
      int trial = -1;
      std::from_chars(text_[0].data() + point->at[0], text_[0].data() + end[0], trial);
      if (!keep(trial)) continue;
      for (std::size_t c = 0; c < kColumns; ++c)
        kept[c].append(text_[c], point->at[c], end[c] - point->at[c]);
    }
    for (std::size_t c = 0; c < kColumns; ++c) columns[c] = kept[c];
  }
  static constexpr const char* kNames[kColumns] = {"trial", "attempt", "step", "value"};
  std::size_t bytes = 96;
  for (std::string_view column : columns) bytes += column.size();
  std::string out;
  out.reserve(bytes);
  fmt::format_to(std::back_inserter(out), "{{\"cursor\":{}", std::max(after, read_up_to));
  for (std::size_t c = 0; c < kColumns; ++c) {
    // Without the last number's ',' (none when there are no points).
    std::string_view numbers = columns[c];
    if (!numbers.empty()) numbers.remove_suffix(1);
    fmt::format_to(std::back_inserter(out), ",\"{}\":[", kNames[c]);
    out.append(numbers);
    out += ']';
  }
  out += '}';
  return out;
}

}  // namespace gpusweep::web
