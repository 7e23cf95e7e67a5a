#include "run/metrics_line.h"

#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace gpusweep {
namespace {

// Keys a trial may use for its step, in order of preference.
constexpr std::array<const char*, 3> kStepKeys{"step", "epoch", "iteration"};
// 2^63 as a double: the first value past the int64 range.
constexpr double kInt64End = 9223372036854775808.0;

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The step `value` stands for, if it is an integer inside the int64 range. A value that
// is an integer outside it adds a problem (a float with a fraction is just not a step).
std::optional<std::int64_t> StepValue(const char* key, const Json& value,
                                      std::vector<std::string>& problems) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(v);
  } else if (value.is_number_integer()) {
    return value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    const double v = value.get<double>();
    if (!std::isfinite(v) || v != std::floor(v)) return std::nullopt;
    if (v >= -kInt64End && v < kInt64End) return static_cast<std::int64_t>(v);
  } else {
    return std::nullopt;
  }
  problems.push_back(fmt::format(
      "\"{}\": {} is outside the 64-bit integer range, ignored as a step", key, Dump(value)));
  return std::nullopt;
}

std::optional<std::int64_t> StepOf(const Json& object, std::vector<std::string>& problems) {
  for (const char* key : kStepKeys) {
    auto it = object.find(key);
    if (it == object.end()) continue;
    if (auto step = StepValue(key, *it, problems)) return step;
  }
  return std::nullopt;
}

bool IsSmallScalar(const Json& value) {
  return value.is_number() || value.is_boolean() || value.is_null();
}

// Keeps entries while they fit in `budget` bytes: small scalars first (metrics are
// numbers), then the rest, each group in the trial's order. Names what it dropped.
Json TrimToBudget(const Json& object, std::size_t total, std::size_t budget,
                  std::vector<std::string>& problems) {
  std::vector<std::size_t> sizes;  // each entry's share of the dump (escapes included)
  for (const auto& [key, value] : object.items())
    sizes.push_back(Dump(Json(key)).size() + Dump(value).size() + 2);  // "k":v,
  std::vector<bool> keep(sizes.size(), false);
  std::size_t used = 2;  // {}
  for (const bool scalars : {true, false}) {
    std::size_t i = 0;
    for (const auto& [key, value] : object.items()) {
      if (IsSmallScalar(value) == scalars && used + sizes[i] <= budget) {
        keep[i] = true;
        used += sizes[i];
      }
      ++i;
    }
  }
  Json trimmed = Json::object();
  std::vector<std::string> dropped;
  std::size_t i = 0;
  for (const auto& [key, value] : object.items()) {
    if (keep[i++]) trimmed[key] = value;
    else dropped.push_back(key);
  }
  const std::size_t shown = std::min<std::size_t>(dropped.size(), 5);
  problems.push_back(fmt::format(
      "{} bytes of JSON, over the {}-byte limit per line; dropped {}{}", total, budget,
      fmt::join(dropped.begin(), dropped.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
      dropped.size() > shown ? fmt::format(" and {} more", dropped.size() - shown) : ""));
  return trimmed;
}

std::string Preview(std::string_view text) {
  std::string preview(text.substr(0, 60));
  for (char& c : preview)
    if (static_cast<unsigned char>(c) < 0x20) c = '?';  // no control bytes to the terminal
  return preview;
}

}  // namespace

ParsedMetricsLine ParseMetricsLine(std::string_view text, const MetricsLimits& limits) {
  ParsedMetricsLine parsed;
  if (text.size() > limits.max_line_bytes) {
    parsed.problems.push_back(fmt::format("line of {} bytes, over the {}-byte limit, skipped",
                                          text.size(), limits.max_line_bytes));
    return parsed;
  }
  if (text.find_first_not_of(" \t\r") == std::string_view::npos) return parsed;  // blank
  Expected<Json> value = ParseJsonWithDepthLimit(text, limits.max_depth);
  if (!value || !value->is_object()) {
    const bool non_finite = !value && (text.find("NaN") != std::string_view::npos ||
                                       text.find("Infinity") != std::string_view::npos);
    const std::string why =
        non_finite ? "NaN and Infinity are not JSON (report null, or stop the trial)"
        : !value   ? value.error().message
                   : "not a JSON object";
    parsed.problems.push_back(fmt::format("{}, skipped: {}", why, Preview(text)));
    return parsed;
  }
  parsed.step = StepOf(*value, parsed.problems);
  const std::size_t size = Dump(*value).size();
  parsed.object = size <= limits.max_stored_bytes
                      ? std::move(*value)
                      : TrimToBudget(*value, size, limits.max_stored_bytes, parsed.problems);
  return parsed;
}

}  // namespace gpusweep
