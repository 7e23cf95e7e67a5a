// records.h — how trials and intermediate results map to journal rows.
//
// JSON-valued fields (params, gpus, last_metrics, result values) are stored as
// nlohmann dump() text; Json is ordered_json, so object keys keep their order through
// a round trip. Optional numbers are SQL NULL when absent; a NaN objective is NULL too.
#pragma once

#include <string>
#include <string_view>

#include "gpusweep/json.h"
#include "gpusweep/status.h"
#include "gpusweep/trial.h"
#include "journal/sqlite.h"

namespace gpusweep::journal {

// Compact JSON text; invalid UTF-8 in strings is replaced (U+FFFD) rather than thrown.
std::string DumpJson(const Json& value);
// Error{kJournal, "<db>: <what>: invalid JSON in the journal: ..."} on malformed text.
Expected<Json> ParseJson(const sqlite::Database& db, std::string_view text,
                         std::string_view what);

// Column list of the trials table, in the order BindTrial binds (?1..?18) and
// ReadTrial reads (columns 0..18). kTrialColumnsV1/V2 read a version 1 journal (no
// scheduler columns, no job id) or 2 (no job id) into the same shape.
inline constexpr std::string_view kTrialColumns =
    "number, repeat, attempt, params, state, gpus, start_time, end_time, pid, "
    "pid_start_ticks, exit_code, term_signal, failure_reason, objective, last_metrics, "
    "bracket, rung, budget, job_id";
inline constexpr std::string_view kTrialColumnsV2 =
    "number, repeat, attempt, params, state, gpus, start_time, end_time, pid, "
    "pid_start_ticks, exit_code, term_signal, failure_reason, objective, last_metrics, "
    "bracket, rung, budget, ''";
inline constexpr std::string_view kTrialColumnsV1 =
    "number, repeat, attempt, params, state, gpus, start_time, end_time, pid, "
    "pid_start_ticks, exit_code, term_signal, failure_reason, objective, last_metrics, "
    "0, 0, NULL, ''";
void BindTrial(sqlite::Statement& stmt, const TrialRecord& record);
// The value every write of a trial row sets its `changed` column to (version 4): one more
// than any row's, so a reader that has read every row up to mark M (the largest it saw)
// finds every later write as `changed > M`. SQLite has one writer at a time, and this is
// evaluated inside the write's transaction, before a REPLACE deletes the old row; the
// index on `changed` answers it without a scan.
inline constexpr std::string_view kNextChange =
    "(SELECT IFNULL(MAX(changed), 0) + 1 FROM trials)";
Expected<TrialRecord> ReadTrial(const sqlite::Database& db, const sqlite::Statement& row);

// Same for the results table: trial, attempt, step, time, "values" (?1..?5 / 0..4).
inline constexpr std::string_view kResultColumns = R"(trial, attempt, step, time, "values")";
void BindResult(sqlite::Statement& stmt, const IntermediateResult& result);
Expected<IntermediateResult> ReadResult(const sqlite::Database& db, const sqlite::Statement& row);

}  // namespace gpusweep::journal
