#include "report/table.h"

#include <algorithm>
#include <utility>

namespace gpusweep::report {
namespace {
constexpr int kSeparatorWidth = 2;
}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::AddRow(std::vector<Segment> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<int> Table::NaturalWidths() const {
  std::vector<int> widths;
  for (const Column& column : columns_) widths.push_back(DisplayWidth(column.header));
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], DisplayWidth(row[i].text));
  return widths;
}

std::vector<bool> Table::VisibleColumns(const std::vector<int>& widths, int width) const {
  std::vector<bool> visible(columns_.size(), true);
  if (width <= 0 || columns_.empty()) return visible;
  auto needed = [&] {  // everything before the last column, separators included
    int total = 0;
    for (size_t i = 0; i + 1 < columns_.size(); ++i)
      if (visible[i]) total += widths[i] + kSeparatorWidth;
    return total;
  };
  while (needed() + kMinLastColumnWidth > width) {
    int drop = -1;
    for (size_t i = 0; i + 1 < columns_.size(); ++i) {
      if (visible[i] && columns_[i].drop_order > 0 &&
          (drop < 0 || columns_[i].drop_order > columns_[drop].drop_order))
        drop = static_cast<int>(i);
    }
    if (drop < 0) break;
    visible[drop] = false;
  }
  return visible;
}

StyledLine Table::RenderRow(const std::vector<Segment>& cells, const std::vector<int>& widths,
                            const std::vector<bool>& visible) const {
  StyledLine line;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!visible[i]) continue;
    const bool last = i + 1 == columns_.size();
    const int pad = widths[i] - DisplayWidth(cells[i].text);
    if (columns_[i].align == Align::kRight) line.Add(std::string(pad, ' '));
    line.Add(cells[i].text, cells[i].color);
    if (!last) {
      if (columns_[i].align == Align::kLeft) line.Add(std::string(pad, ' '));
      line.Add(std::string(kSeparatorWidth, ' '));
    }
  }
  return line;
}

std::vector<StyledLine> Table::Lines(int width) const {
  const std::vector<int> widths = NaturalWidths();
  const std::vector<bool> visible = VisibleColumns(widths, width);
  std::vector<Segment> header;
  for (const Column& column : columns_) header.push_back({column.header});
  std::vector<StyledLine> lines{RenderRow(header, widths, visible)};
  for (const auto& row : rows_) AddRowLines(lines, row, widths, visible, width);
  return lines;
}

void Table::AddRowLines(std::vector<StyledLine>& lines, const std::vector<Segment>& cells,
                        const std::vector<int>& widths, const std::vector<bool>& visible,
                        int width) const {
  if (width <= 0 || columns_.empty() || columns_.back().overflow != Overflow::kWrap) {
    lines.push_back(RenderRow(cells, widths, visible));
    return;
  }
  int indent = 0;  // where the last column starts
  for (size_t i = 0; i + 1 < columns_.size(); ++i)
    if (visible[i]) indent += widths[i] + kSeparatorWidth;
  const std::vector<std::string> pieces =
      WrapWhole(cells.back().text, std::max(1, width - indent), ", ");
  std::vector<Segment> first = cells;
  first.back().text = pieces.empty() ? "" : pieces.front();
  lines.push_back(RenderRow(first, widths, visible));
  for (size_t k = 1; k < pieces.size(); ++k) {
    StyledLine continuation(std::string(static_cast<size_t>(indent), ' '));
    continuation.Add(pieces[k], cells.back().color);
    lines.push_back(std::move(continuation));
  }
}

void AppendTable(std::string& out, const Table& table, int width, ColorMode mode) {
  for (const StyledLine& line : table.Lines(width)) AppendLine(out, line, width, mode);
}

}  // namespace gpusweep::report
