// export_rows.h — the exports' shared writers (export.cc, export_steps.cc).
#pragma once

#include <string>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/report.h"

namespace gpusweep::report {

// Writes flat JSON objects one at a time to a sink, as
// - CSV: RFC 4180 ("\r\n" line ends), the given header first, a field quoted when it
//   holds a comma, quote, CR or LF; null and missing values empty, strings raw, floats
//   round-trip, lists/maps compact JSON; a "gpus" list as "0,1"; a key a row has that
//   the header lacks is not written;
// - JSON: an array of the rows, 2-space indent, invalid UTF-8 replaced: the bytes
//   nlohmann's dump(2) gives for the whole array, without holding it.
// Begin, Write each row, End; the sink's first error is returned and ends the writing.
class RowWriter {
 public:
  RowWriter(ExportText format, std::vector<std::string> header, const TextSink& out)
      : format_(format), header_(std::move(header)), out_(out) {}
  Status Begin();
  Status Write(const Json& row);
  Status End();

 private:
  ExportText format_;
  std::vector<std::string> header_;
  const TextSink& out_;
  bool any_ = false;
};

// Appends `name` to `names` unless it is there: a header's union in order of first
// appearance.
void AddUnique(std::vector<std::string>& names, const std::string& name);

// A sink that appends to `text`: the unstreamed exports.
TextSink AppendTo(std::string& text);

// 27.0 -> 27 (an integer), 2.5 stays 2.5: budgets and resources read as people wrote them.
Json WholeAsInteger(double value);

// ISO 8601 in UTC with milliseconds, "2026-12-01T02:48:55.120Z"; "" when not > 0.
std::string IsoUtcTime(double unix_seconds);

}  // namespace gpusweep::report
