// ParseByteSize (declared in gpusweep/config.h): "1073741824", "512MiB", "10GiB",
// "1.5GB" -> bytes. Memory sizes in the config (resources.gpu_memory_per_trial, ...).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

struct ByteUnit {
  std::string_view suffix;  // compared case-insensitively
  double bytes;
};

// Binary units as nvidia-smi reports memory (MiB), decimal ones as disk vendors do.
constexpr std::array<ByteUnit, 9> kByteUnits{{
    {"b", 1},
    {"kib", 1024.0},
    {"mib", 1024.0 * 1024},
    {"gib", 1024.0 * 1024 * 1024},
    {"tib", 1024.0 * 1024 * 1024 * 1024},
    {"kb", 1e3},
    {"mb", 1e6},
    {"gb", 1e9},
    {"tb", 1e12},
}};

constexpr std::string_view kValidSizes =
    "use bytes as an integer, or a number with a unit B, KiB, MiB, GiB, TiB (powers of "
    "1024) or KB, MB, GB, TB (powers of 1000), e.g. 10GiB, 512MiB, 1.5GB";

tl::unexpected<Error> NotASize(std::string_view text, std::string_view why) {
  return Fail(ErrorCode::kInvalidConfig,
              fmt::format("'{}' is not a memory size ({}); {}", text, why, kValidSizes));
}

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return lower;
}

}  // namespace

Expected<std::uint64_t> ParseByteSize(std::string_view text) {
  if (text.empty()) return NotASize(text, "it is empty");
  if (text.front() == '-') return NotASize(text, "it is negative");
  std::size_t length = 0;
  while (length < text.size() &&
         ((text[length] >= '0' && text[length] <= '9') || text[length] == '.'))
    ++length;
  if (length == 0) return NotASize(text, "expected a number");
  double amount = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + length, amount);
  if (ec != std::errc() || ptr != text.data() + length) return NotASize(text, "bad number");
  std::string_view unit_text = text.substr(length);
  while (!unit_text.empty() && unit_text.front() == ' ') unit_text.remove_prefix(1);
  double bytes = amount;
  if (!unit_text.empty()) {
    const std::string unit = Lowercase(unit_text);
    const auto found = std::find_if(kByteUnits.begin(), kByteUnits.end(),
                                    [&](const ByteUnit& u) { return u.suffix == unit; });
    if (found == kByteUnits.end()) return NotASize(text, "unknown unit");
    bytes = amount * found->bytes;
  } else if (amount != std::floor(amount)) {
    return NotASize(text, "a fraction of a byte");
  }
  if (!std::isfinite(bytes) || bytes >= 18446744073709551616.0) return NotASize(text, "too large");
  return static_cast<std::uint64_t>(std::floor(bytes));
}

}  // namespace gpusweep
