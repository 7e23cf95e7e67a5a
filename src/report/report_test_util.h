// report_test_util.h — builders and checks shared by the report module's tests.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gpusweep/report.h"

namespace gpusweep::testing {

inline TrialRecord MakeTrial(int number, TrialState state, std::optional<double> objective,
                             Json params = Json::object()) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.objective = objective;
  t.params = std::move(params);
  t.start_time = 1000 + number * 10;
  if (state != TrialState::kRunning) t.end_time = t.start_time + 83;
  return t;
}

inline ReportContext MakeContext(int width = 100, Mode mode = Mode::kMax) {
  ReportContext ctx;
  ctx.experiment_name = "fmnist-cnn";
  ctx.experiment_dir = "/runs/fmnist-cnn";
  ctx.metric = MetricSpec{"val_acc", mode};
  ctx.total_trials = 16;
  ctx.now = 2000;
  ctx.width = width;
  return ctx;
}

inline std::string StripAnsi(const std::string& text) {
  static const std::regex kEscape("\x1b\\[[0-9;]*m");
  return std::regex_replace(text, kEscape, "");
}

// UTF-8 code points, the module's notion of display width.
inline int CodePoints(const std::string& text) {
  int n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

inline std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace gpusweep::testing
