// ParseDuration (declared in gpusweep/config.h): "90", "90s", "20m", "1.5h", "1h30m",
// "250ms", "2d" -> seconds.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

struct Unit {
  std::string_view suffix;
  double seconds;
};

// Largest first: a multi-part duration must list its units in this order, once each.
constexpr std::array<Unit, 5> kUnits{{
    {"d", 86400},
    {"h", 3600},
    {"m", 60},
    {"s", 1},
    {"ms", 0.001},
}};

constexpr std::string_view kValidForms =
    "use seconds as a number, or a number with units d, h, m, s, ms, e.g. 90, 90s, "
    "20m, 1.5h, 1h30m, 250ms, 2d";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Length of the unsigned decimal number at the start of `text` ("1", "1.5", ".5").
std::size_t NumberLength(std::string_view text) {
  std::size_t i = 0, digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  }
  return digits == 0 ? 0 : i;
}

// Index into kUnits of the unit at the start of `text`, preferring "ms" over "m".
std::optional<std::size_t> UnitAt(std::string_view text) {
  std::optional<std::size_t> found;
  for (std::size_t u = 0; u < kUnits.size(); ++u)
    if (text.starts_with(kUnits[u].suffix) &&
        (!found || kUnits[u].suffix.size() > kUnits[*found].suffix.size()))
      found = u;
  return found;
}

tl::unexpected<Error> NotADuration(std::string_view text, std::string_view why) {
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("'{}' is not a duration ({}); {}", text, why, kValidForms));
}

}  // namespace

Expected<double> ParseDuration(std::string_view text) {
  if (text.empty()) return NotADuration(text, "it is empty");
  if (text.front() == '-')
    return Fail(ErrorCode::kInvalidConfig,
                fmt::format("'{}' is negative; durations must be >= 0; {}", text, kValidForms));
  std::string_view rest = text.front() == '+' ? text.substr(1) : text;
  double total = 0;
  std::size_t next_unit = 0;  // units must appear in kUnits order
  bool first = true;
  while (!rest.empty()) {
    const std::size_t length = NumberLength(rest);
    if (length == 0) return NotADuration(text, "expected a number");
    double amount = 0;
    auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + length, amount);
    if (ec != std::errc() || ptr != rest.data() + length)
      return NotADuration(text, "number out of range");
    rest.remove_prefix(length);
    if (rest.empty() && first) return amount;  // a bare number means seconds
    const std::optional<std::size_t> unit = UnitAt(rest);
    if (!unit) return NotADuration(text, "unknown or missing unit");
    if (*unit < next_unit) return NotADuration(text, "units must go from largest to smallest");
    total += amount * kUnits[*unit].seconds;
    rest.remove_prefix(kUnits[*unit].suffix.size());
    next_unit = *unit + 1;
    first = false;
  }
  if (!std::isfinite(total)) return NotADuration(text, "too large");
  return total;
}

}  // namespace gpusweep
