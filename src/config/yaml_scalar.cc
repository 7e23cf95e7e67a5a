#include "config/yaml_scalar.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace gpusweep::config_detail {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Strips one leading sign; from_chars accepts '-' but not '+'.
std::string_view WithoutPlus(std::string_view text) {
  return !text.empty() && text.front() == '+' ? text.substr(1) : text;
}

std::optional<std::int64_t> ParseInt(std::string_view text) {
  std::string_view digits = WithoutPlus(text);
  int base = 10;
  if (digits.starts_with("0x")) base = 16;
  if (digits.starts_with("0o")) base = 8;
  if (base != 10) digits.remove_prefix(2);
  if (digits.empty()) return std::nullopt;
  if (base != 10 && digits.front() == '-') return std::nullopt;  // "0x-5" is not YAML
  if (base == 10) {
    std::string_view unsigned_part = digits.front() == '-' ? digits.substr(1) : digits;
    if (unsigned_part.empty()) return std::nullopt;
    for (char c : unsigned_part)
      if (!IsDigit(c)) return std::nullopt;
  }
  std::int64_t value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value, base);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// YAML 1.2 core float: [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool IsCoreFloat(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const std::size_t integer_digits = digits();
  std::size_t fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    fraction_digits = digits();
  }
  if (integer_digits == 0 && fraction_digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

std::optional<double> ParseSpecialFloat(std::string_view text) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr std::array<std::pair<std::string_view, double>, 12> kSpecial{{
      {".inf", kInf},
      {".Inf", kInf},
      {".INF", kInf},
      {"+.inf", kInf},
      {"+.Inf", kInf},
      {"+.INF", kInf},
      {"-.inf", -kInf},
      {"-.Inf", -kInf},
      {"-.INF", -kInf},
      {".nan", std::numeric_limits<double>::quiet_NaN()},
      {".NaN", std::numeric_limits<double>::quiet_NaN()},
      {".NAN", std::numeric_limits<double>::quiet_NaN()},
  }};
  for (const auto& [spelling, value] : kSpecial)
    if (text == spelling) return value;
  return std::nullopt;
}

std::optional<double> ParseFloat(std::string_view text) {
  if (auto special = ParseSpecialFloat(text)) return special;
  // Decimal integers that overflow int64 also land here, as doubles.
  if (!IsCoreFloat(text)) return std::nullopt;
  std::string_view number = WithoutPlus(text);
  double value = 0;
  const char* end = number.data() + number.size();
  auto [ptr, ec] = std::from_chars(number.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<bool> ParseBool(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

bool IsNullSpelling(std::string_view text) {
  return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
}

}  // namespace

Json ResolvePlainScalar(std::string_view text) {
  if (IsNullSpelling(text)) return nullptr;
  if (auto b = ParseBool(text)) return *b;
  if (auto i = ParseInt(text)) return *i;
  if (auto d = ParseFloat(text)) return *d;
  return std::string(text);
}

Json ResolveScalar(const YAML::Node& node) {
  if (node.IsNull()) return nullptr;
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
  return ResolvePlainScalar(node.Scalar());
}

}  // namespace gpusweep::config_detail
