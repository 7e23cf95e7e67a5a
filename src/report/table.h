// table.h — a plain-text table with aligned columns, two spaces between columns.
//
// The last column is never padded, so putting the longest, least important column
// (params) last makes cutting a row to the terminal width elide exactly that column.
// A last column marked Overflow::kWrap is wrapped instead (at ", " between items, an
// item longer than the column continued on the next line, never cut; the
// continuation lines indented under it), so that two rows whose texts differ only
// near the end never look alike.
// On a narrow terminal, columns with a drop_order are hidden first (highest first) so
// that the last column keeps at least kMinLastColumnWidth columns.
#pragma once

#include <string>
#include <vector>

#include "report/text.h"

namespace gpusweep::report {

enum class Align { kLeft, kRight };
enum class Overflow { kCut, kWrap };  // kWrap: only for the last column

inline constexpr int kMinLastColumnWidth = 10;

struct Column {
  std::string header;
  Align align = Align::kLeft;
  int drop_order = 0;  // 0: always shown; otherwise hidden on narrow terminals, highest first
  Overflow overflow = Overflow::kCut;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // One cell per column (missing cells are empty, extra cells ignored).
  void AddRow(std::vector<Segment> cells);
  // Header line then one line per row, with columns hidden to suit `width` (<= 0:
  // unlimited) but not yet cut to it.
  std::vector<StyledLine> Lines(int width) const;

 private:
  std::vector<int> NaturalWidths() const;
  std::vector<bool> VisibleColumns(const std::vector<int>& widths, int width) const;
  StyledLine RenderRow(const std::vector<Segment>& cells, const std::vector<int>& widths,
                       const std::vector<bool>& visible) const;
  // A row, its last cell wrapped to `width` when the last column wraps.
  void AddRowLines(std::vector<StyledLine>& lines, const std::vector<Segment>& cells,
                   const std::vector<int>& widths, const std::vector<bool>& visible,
                   int width) const;

  std::vector<Column> columns_;
  std::vector<std::vector<Segment>> rows_;
};

// Appends every line of the table, each fitted to `width`.
void AppendTable(std::string& out, const Table& table, int width, ColorMode mode);

}  // namespace gpusweep::report
