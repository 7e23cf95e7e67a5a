#include "report/text.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/report.h"

namespace gpusweep::report {

namespace {

constexpr std::string_view kEllipsis = "…";

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Byte length of the first `count` code points of text (all of it if shorter).
size_t PrefixBytes(std::string_view text, int count) {
  size_t i = 0;
  for (int seen = 0; i < text.size(); ++i) {
    if (!IsContinuationByte(text[i]) && seen++ == count) break;
  }
  return i;
}

std::string_view AnsiCode(Color color) {
  switch (color) {
    case Color::kGreen: return "\x1b[32m";
    case Color::kRed: return "\x1b[31m";
    case Color::kYellow: return "\x1b[33m";
    case Color::kNone: break;
  }
  return "";
}

}  // namespace

int DisplayWidth(std::string_view text) {
  int width = 0;
  for (char c : text) width += IsContinuationByte(c) ? 0 : 1;
  return width;
}

std::string Elide(std::string_view text, int width) {
  if (width <= 0 || DisplayWidth(text) <= width) return std::string(text);
  std::string out(text.substr(0, PrefixBytes(text, width - 1)));
  out += kEllipsis;
  return out;
}

std::vector<std::string> WrapWords(std::string_view text, int width,
                                   std::string_view separator) {
  auto rstrip = [](std::string_view s) { return s.substr(0, s.find_last_not_of(' ') + 1); };
  std::vector<std::string> lines(1);
  size_t begin = 0;
  while (begin < text.size() || lines.back().empty()) {
    size_t end = separator.empty() ? std::string_view::npos : text.find(separator, begin);
    end = end == std::string_view::npos ? text.size() : end + separator.size();
    const std::string_view piece = text.substr(begin, end - begin);
    std::string& line = lines.back();
    if (line.empty() || width <= 0 ||
        DisplayWidth(line) + DisplayWidth(rstrip(piece)) <= width) {
      line += piece;
    } else {
      line.resize(rstrip(line).size());
      lines.emplace_back(piece);
    }
    begin = end;
    if (piece.empty()) break;
  }
  return lines;
}

std::vector<std::string> WrapWhole(std::string_view text, int width,
                                   std::string_view separator) {
  std::vector<std::string> lines;
  for (std::string& line : WrapWords(text, width, separator)) {
    std::string_view rest = line;
    while (width > 0 && DisplayWidth(rest) > width) {
      const size_t cut = PrefixBytes(rest, width);
      lines.emplace_back(rest.substr(0, cut));
      rest.remove_prefix(cut);
    }
    lines.emplace_back(rest);
  }
  return lines;
}

StyledLine& StyledLine::Add(std::string text, Color color) {
  if (!text.empty()) segments_.push_back({std::move(text), color});
  return *this;
}

int StyledLine::Width() const {
  int width = 0;
  for (const Segment& s : segments_) width += DisplayWidth(s.text);
  return width;
}

StyledLine StyledLine::Fit(int width) const {
  if (width <= 0 || Width() <= width) return *this;
  StyledLine out;
  int room = width - 1;  // one column is kept for the ellipsis
  for (const Segment& s : segments_) {
    if (room <= 0) break;
    const std::string_view text = s.text;
    out.Add(std::string(text.substr(0, PrefixBytes(text, room))), s.color);
    room -= DisplayWidth(text);
  }
  out.Add(std::string(kEllipsis));
  return out;
}

std::string StyledLine::Render(ColorMode mode) const {
  std::string out;
  for (const Segment& s : segments_) {
    if (mode == ColorMode::kAlways && s.color != Color::kNone) {
      out += AnsiCode(s.color);
      out += s.text;
      out += "\x1b[0m";
    } else {
      out += s.text;
    }
  }
  return out;
}

void AppendLine(std::string& out, const StyledLine& line, int width, ColorMode mode) {
  out += line.Fit(width).Render(mode);
  out += '\n';
}

Color StateColor(TrialState state) {
  switch (state) {
    case TrialState::kCompleted: return Color::kGreen;
    case TrialState::kFailed: return Color::kRed;
    case TrialState::kRunning:
    case TrialState::kInterrupted:
    case TrialState::kPaused:
    case TrialState::kPruned: return Color::kYellow;
  }
  return Color::kNone;
}

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", value);
}

std::string DumpCompact(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string FormatFloatFull(double value) {
  if (!std::isfinite(value)) return FormatNumber(value);
  return DumpCompact(Json(value));
}

std::string FormatValue(const Json& value, Precision precision) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    const double number = value.get<double>();
    return precision == Precision::kShort ? FormatNumber(number) : FormatFloatFull(number);
  }
  return DumpCompact(value);
}

std::string ParamsSummary(const Json& params) {
  std::string out;
  for (const auto& [name, value] : FlattenParams(params)) {
    if (!out.empty()) out += ", ";
    out += name + "=" + FormatValue(value, Precision::kShort);
  }
  return out;
}

std::string ParamLines(const Json& params) {
  std::string out;
  for (const auto& [name, value] : FlattenParams(params))
    out += fmt::format("  {} = {}\n", name, FormatValue(value, Precision::kFull));
  return out;
}

std::string GpusText(const std::vector<int>& gpus) {
  return gpus.empty() ? "cpu" : fmt::format("{}", fmt::join(gpus, ","));
}

std::optional<double> TrialDuration(const TrialRecord& trial, double now) {
  if (trial.start_time <= 0) return std::nullopt;
  if (trial.state == TrialState::kRunning) return now - trial.start_time;
  if (trial.end_time <= 0) return std::nullopt;  // stopped without a recorded end
  return trial.end_time - trial.start_time;
}

std::string ObjectiveText(const std::optional<double>& objective) {
  return objective ? FormatNumber(*objective) : "-";
}

std::optional<double> ReachedResource(const TrialRecord& trial, const std::string& resource) {
  const auto it = trial.last_metrics.find(resource);
  if (it == trial.last_metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string StopReason(const TrialRecord& trial) {
  constexpr std::string_view kPrefix = "pruned: ";
  std::string_view reason = trial.failure_reason;
  if (reason.substr(0, kPrefix.size()) == kPrefix) reason.remove_prefix(kPrefix.size());
  return std::string(reason);
}

std::string NoteText(const TrialRecord& trial) {
  switch (trial.state) {
    case TrialState::kPruned: {
      const std::string reason = StopReason(trial);
      return reason.substr(0, reason.find(": "));
    }
    case TrialState::kFailed:
    case TrialState::kInterrupted: return trial.failure_reason;
    default: return "";
  }
}

}  // namespace gpusweep::report
