#include "journal/records.h"

#include <cstdint>

#include <fmt/format.h>

#include "common/json_limits.h"

namespace gpusweep::journal {
namespace {

Error CorruptRow(const sqlite::Database& db, std::string_view what, std::string_view problem) {
  return db.MakeError(ErrorCode::kJournal, fmt::format("{}: {}", what, problem));
}

Expected<std::vector<int>> ParseGpus(const sqlite::Database& db, std::string_view text,
                                     std::string_view what) {
  GS_ASSIGN_OR_RETURN(const Json array, ParseJson(db, text, what));
  if (!array.is_array()) return tl::unexpected(CorruptRow(db, what, "gpus is not a JSON array"));
  std::vector<int> gpus;
  for (const Json& gpu : array) {
    if (!gpu.is_number_integer())
      return tl::unexpected(CorruptRow(db, what, "gpus holds a non-integer"));
    gpus.push_back(gpu.get<int>());
  }
  return gpus;
}

std::optional<int> ToOptionalInt(std::optional<std::int64_t> value) {
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

}  // namespace

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Expected<Json> ParseJson(const sqlite::Database& db, std::string_view text,
                         std::string_view what) {
  // Depth-limited: a row nested 50,000 levels deep (written before the limit existed,
  // or by hand) must be an error here, not a stack overflow when the value is used.
  Expected<Json> value = ParseJsonWithDepthLimit(text);
  if (!value)
    return tl::unexpected(CorruptRow(
        db, what, fmt::format("{} in the journal: {:.80}", value.error().message, text)));
  return value;
}

void BindTrial(sqlite::Statement& stmt, const TrialRecord& record) {
  stmt.Bind(1, record.number)
      .Bind(2, record.repeat)
      .Bind(3, record.attempt)
      .Bind(4, DumpJson(record.params))
      .Bind(5, ToString(record.state))
      .Bind(6, DumpJson(Json(record.gpus)))
      .Bind(7, record.start_time)
      .Bind(8, record.end_time)
      .Bind(9, record.pid)
      .Bind(10, static_cast<std::int64_t>(record.pid_start_ticks))
      .Bind(11, record.exit_code)
      .Bind(12, record.term_signal)
      .Bind(13, record.failure_reason)
      .Bind(14, record.objective)
      .Bind(15, DumpJson(record.last_metrics))
      .Bind(16, record.bracket)
      .Bind(17, record.rung)
      .Bind(18, record.budget)
      .Bind(19, record.job_id);
}

Expected<TrialRecord> ReadTrial(const sqlite::Database& db, const sqlite::Statement& row) {
  TrialRecord record;
  record.number = row.Int(0);
  const std::string what = fmt::format("load trial {}", record.number);
  record.repeat = row.Int(1);
  record.attempt = row.Int(2);
  GS_ASSIGN_OR_RETURN(record.params, ParseJson(db, row.Text(3), what + ": params"));
  const std::string state = row.Text(4);
  const std::optional<TrialState> parsed_state = TrialStateFromString(state);
  if (!parsed_state)
    return tl::unexpected(CorruptRow(db, what, fmt::format("unknown state '{}'", state)));
  record.state = *parsed_state;
  GS_ASSIGN_OR_RETURN(record.gpus, ParseGpus(db, row.Text(5), what + ": gpus"));
  record.start_time = row.Double(6);
  record.end_time = row.Double(7);
  record.pid = row.Int(8);
  record.pid_start_ticks = static_cast<std::uint64_t>(row.Int64(9));
  record.exit_code = ToOptionalInt(row.OptionalInt64(10));
  record.term_signal = ToOptionalInt(row.OptionalInt64(11));
  record.failure_reason = row.Text(12);
  record.objective = row.OptionalDouble(13);
  GS_ASSIGN_OR_RETURN(record.last_metrics, ParseJson(db, row.Text(14), what + ": last_metrics"));
  record.bracket = row.Int(15);
  record.rung = row.Int(16);
  record.budget = row.OptionalDouble(17);
  record.job_id = row.Text(18);
  return record;
}

void BindResult(sqlite::Statement& stmt, const IntermediateResult& result) {
  stmt.Bind(1, result.trial)
      .Bind(2, result.attempt)
      .Bind(3, result.step)
      .Bind(4, result.time)
      .Bind(5, DumpJson(result.values));
}

Expected<IntermediateResult> ReadResult(const sqlite::Database& db, const sqlite::Statement& row) {
  IntermediateResult result;
  result.trial = row.Int(0);
  result.attempt = row.Int(1);
  result.step = row.Int64(2);
  result.time = row.Double(3);
  GS_ASSIGN_OR_RETURN(result.values,
                      ParseJson(db, row.Text(4), fmt::format("load results of trial {}", result.trial)));
  return result;
}

}  // namespace gpusweep::journal
