// point_columns.h — an experiment's learning-curve points kept as the JSON text the
// dashboard is sent, so that answering is copying.
//
// The points answer of a 10,000-trial sweep (150,000 points, 4 MB) took 130–170 ms to
// format on every page load (bench/web); kept as text it is a concatenation. The text
// replaces a vector of MetricPoint (40 bytes a point) with about 28 bytes of text and 24
// of index a point. Not thread-safe: LiveExperiment holds its lock around it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpusweep/journal.h"

namespace gpusweep::web {

class PointColumns {
 public:
  // Appends one point; its cursor must exceed every earlier one's and it must have a
  // finite value (the caller keeps only those).
  void Append(const MetricPoint& point);

  // {"cursor":max(after, read_up_to),"trial":[...],"attempt":[...],"step":[...],
  //  "value":[...]}: the points appended with a cursor > `after`, in append order.
  // `read_up_to` is the journal cursor read so far (past points without a value too).
  // With `keep`, only the points of the trials it keeps (ChartedTrials::Holds); without,
  // every point is copied as a column's tail, no number read.
  std::string JsonAfter(std::int64_t after, std::int64_t read_up_to,
                        const std::function<bool(int trial)>& keep = {}) const;

  std::size_t size() const { return starts_.size(); }

 private:
  static constexpr std::size_t kColumns = 4;  // trial, attempt, step, value
  struct Start {
    std::int64_t cursor;
    std::array<std::uint32_t, kColumns> at;  // where the point's text begins in each column
  };
  // Each column's numbers, each followed by ','.
  std::array<std::string, kColumns> text_;
  std::vector<Start> starts_;
};

}  // namespace gpusweep::web
