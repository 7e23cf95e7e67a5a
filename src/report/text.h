// text.h — display-width aware text building blocks for the report module.
//
// A StyledLine is a line made of segments, each optionally coloured, so that a line can
// be cut to a width on its visible text and coloured afterwards (an escape sequence is
// never split and never counted).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/report.h"
#include "gpusweep/trial.h"

namespace gpusweep::report {

enum class Color { kNone, kGreen, kRed, kYellow };

// Number of UTF-8 code points (continuation bytes are not counted).
int DisplayWidth(std::string_view text);

// `text` if it fits `width`, else its first width-1 code points and "…"; width <= 0
// (unlimited) returns text unchanged.
std::string Elide(std::string_view text, int width);

// Greedy wrap into lines of at most `width` columns (width <= 0: one line), breaking
// only after `separator` (its trailing spaces dropped at a break: "a, b" → "a,", "b").
// A piece longer than `width` gets a line of its own (callers cut it with Fit).
std::vector<std::string> WrapWords(std::string_view text, int width,
                                   std::string_view separator = " ");

// WrapWords, and a piece longer than `width` continues on the next lines instead of
// being cut: values that differ only at their end ("run-a-long-name-1" and "...-2")
// stay told apart in a narrow terminal.
std::vector<std::string> WrapWhole(std::string_view text, int width,
                                   std::string_view separator = " ");

struct Segment {
  std::string text;
  Color color = Color::kNone;
};

class StyledLine {
 public:
  StyledLine() = default;
  StyledLine(std::string text) { Add(std::move(text)); }  // NOLINT: implicit on purpose

  StyledLine& Add(std::string text, Color color = Color::kNone);
  int Width() const;
  // Cuts the visible text to `width` columns ending in "…" (width <= 0: unlimited).
  StyledLine Fit(int width) const;
  // The text with ANSI colour codes when mode is kAlways; no trailing newline.
  std::string Render(ColorMode mode) const;

 private:
  std::vector<Segment> segments_;
};

// Appends Fit(width).Render(mode) and '\n' to out.
void AppendLine(std::string& out, const StyledLine& line, int width, ColorMode mode);

Color StateColor(TrialState state);

// "%.6g" for finite numbers; "nan"/"inf"/"-inf" otherwise.
std::string FormatNumber(double value);

// Compact JSON text; invalid UTF-8 in strings is replaced instead of throwing.
std::string DumpCompact(const Json& value);

// Round-trip text of a double ("0.1", "1e-05"); "nan"/"inf"/"-inf" when not finite.
std::string FormatFloatFull(double value);

enum class Precision { kShort, kFull };

// A JSON value for people: strings raw, integers and booleans as JSON, floats with 6
// significant digits (kShort) or round-trip precision (kFull), lists/maps compact JSON.
std::string FormatValue(const Json& value, Precision precision);

// "k=v, k2=v2" over the flattened params, values kShort.
std::string ParamsSummary(const Json& params);

// "  name = value\n" for each flattened param (a choice of sub-spaces as
// "classifier.type = svm", the names status and export use), values kFull: the Params
// block of `best` and `show`.
std::string ParamLines(const Json& params);

// "0,1" or "cpu".
std::string GpusText(const std::vector<int>& gpus);

// Seconds the trial ran (running: now - start); nullopt when never started.
std::optional<double> TrialDuration(const TrialRecord& trial, double now);

// Display text of an optional objective: FormatNumber or "-".
std::string ObjectiveText(const std::optional<double>& objective);

// How far the trial got in the scheduler's resource: its last reported `resource` value.
std::optional<double> ReachedResource(const TrialRecord& trial, const std::string& resource);

// Why the scheduler stopped a pruned trial: its failure_reason without "pruned: ",
// e.g. "rank 4 of 9 at rung 1 (epoch 3): only the top 3 continue".
std::string StopReason(const TrialRecord& trial);

// The short why of a row in `status`: a pruned trial's stop reason up to its first
// ": " ("rank 4 of 9 at rung 1 (epoch 3)"), a failed or interrupted trial's
// failure_reason; "" for the others.
std::string NoteText(const TrialRecord& trial);

}  // namespace gpusweep::report
