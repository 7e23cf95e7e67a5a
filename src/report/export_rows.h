// export_rows.h — the exports' shared writers (export.cc, export_steps.cc).
#pragma once

#include <string>
#include <vector>

#include "gpusweep/json.h"

namespace gpusweep::report {

// RFC 4180 CSV ("\r\n" line ends) of flat JSON objects: a header of the union of their
// keys in order of first appearance (`empty_header` when there are no rows), a field
// quoted when it holds a comma, quote, CR or LF; null and missing values empty,
// strings raw, floats round-trip, lists/maps compact JSON; a "gpus" list as "0,1".
std::string RowsToCsv(const std::vector<Json>& rows, const std::vector<std::string>& empty_header);

// A JSON array of the rows, 2-space indent, invalid UTF-8 replaced.
std::string RowsToJson(std::vector<Json> rows);

// 27.0 -> 27 (an integer), 2.5 stays 2.5: budgets and resources read as people wrote them.
Json WholeAsInteger(double value);

// ISO 8601 in UTC with milliseconds, "2026-12-01T02:48:55.120Z"; "" when not > 0.
std::string IsoUtcTime(double unix_seconds);

}  // namespace gpusweep::report
