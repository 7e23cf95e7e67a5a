// SQLite implementation of gpusweep::Journal (see include/gpusweep/journal.h).
#include "gpusweep/journal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/unique_fd.h"
#include "journal/forwarding_journal.h"
#include "journal/records.h"
#include "journal/schema.h"
#include "journal/sqlite.h"
#include "journal/trial_sql.h"

namespace gpusweep {

JournalWrite JournalWrite::Upsert(const TrialRecord& record,
                                  const std::vector<SchedulerEventRecord>& events) {
  JournalWrite write;
  write.kind = Kind::kUpsertTrial;
  write.record = record;
  write.events = events;
  return write;
}

JournalWrite JournalWrite::Finish(const TrialRecord& record,
                                  const std::vector<IntermediateResult>& results,
                                  const std::vector<SchedulerEventRecord>& events) {
  JournalWrite write = Upsert(record, events);
  write.kind = Kind::kFinishTrial;
  write.results = results;
  return write;
}

JournalWrite JournalWrite::Results(const std::vector<IntermediateResult>& results,
                                   const std::vector<SchedulerEventRecord>& events) {
  JournalWrite write;
  write.kind = Kind::kAppendResults;
  write.results = results;
  write.events = events;
  return write;
}

JournalWrite JournalWrite::Event(double time, std::string_view kind, const Json& detail) {
  JournalWrite write;
  write.kind = Kind::kAppendEvent;
  write.time = time;
  write.event_kind = std::string(kind);
  write.detail = detail;
  return write;
}

namespace {

using journal::DumpJson;
using journal::ParseJson;

// What a write does, in the words its errors start with ("record trial 3: ...").
std::string WhatOf(const JournalWrite& write) {
  switch (write.kind) {
    case JournalWrite::Kind::kUpsertTrial: return fmt::format("record trial {}", write.record.number);
    case JournalWrite::Kind::kFinishTrial: return fmt::format("finish trial {}", write.record.number);
    case JournalWrite::Kind::kAppendResults:
      return fmt::format("append results of trial {}", write.results.empty()
                                                           ? (write.events.empty() ? -1 : write.events.front().trial)
                                                           : write.results.front().trial);
    case JournalWrite::Kind::kAppendEvent: return fmt::format("append event '{}'", write.event_kind);
  }
  return "write";
}

// A run's commits leave the WAL's checkpoints (copying its pages into the database
// file) to the syncs that SyncLater hands to another thread: at 100,000 trials the
// checkpoints were a fifth of the journal's time on the thread that starts trials, and
// they grow with the journal (each commit's pages are scattered over more of it). One
// connection of its own, opened at the first checkpoint and used by one at a time.
// A checkpoint that fails is no error, as SQLite's own automatic ones are not: the next
// sync tries again, and a commit past kCommitCheckpointFrames checkpoints itself.
class WalCheckpointer {
 public:
  explicit WalCheckpointer(std::string path) : path_(std::move(path)) {}
  void Checkpoint() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!db_) {
      Expected<sqlite::Database> opened = sqlite::Database::Open(path_, sqlite::OpenMode::kReadWriteCreate);
      if (!opened) return;
      db_.emplace(std::move(*opened));
    }
    (void)db_->Checkpoint("checkpoint the WAL");  // pages copied: no use here
  }

 private:
  std::string path_;
  std::mutex mutex_;
  std::optional<sqlite::Database> db_;
};

// The WAL's length (frames, 4 KiB pages here) from which a sync checkpoints it: SQLite's
// automatic checkpoint's. And the length from which a commit of a run checkpoints it
// itself, should the syncs fall behind: 32 MiB.
constexpr int kSyncCheckpointFrames = 1000;
constexpr int kCommitCheckpointFrames = 8000;

class SqliteJournal final : public Journal {
 public:
  SqliteJournal(sqlite::Database db, JournalAccess access, int version)
      : db_(std::move(db)), access_(access), version_(version) {}

  Status CreateExperiment(const ExperimentRecord& experiment) override;
  Expected<std::optional<ExperimentRecord>> LoadExperiment() override;
  Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEvents(
      std::optional<int> trial) override;
  Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEventsAfter(
      std::int64_t after_seq, std::int64_t limit) override;
  Expected<std::vector<TrialRecord>> LoadTrials() override;
  Expected<std::optional<TrialRecord>> LoadTrial(int number) override;
  Expected<ChangedTrials> LoadTrialsChangedAfter(std::int64_t after) override;
  Expected<std::vector<IntermediateResult>> LoadResults(int trial) override;
  Expected<std::vector<MetricPoint>> LoadMetricPoints(std::string_view key,
                                                      std::int64_t after_cursor,
                                                      std::int64_t limit) override;
  Expected<TrialCounts> CountTrials() override { return journal::SqlCountTrials(db_, version_); }
  Expected<EarlyStoppingSavings> SumPrunedProgress(const std::string& resource, double max) override {
    GS_ASSIGN_OR_RETURN(std::optional<EarlyStoppingSavings> progress,
                        journal::SqlSumPrunedProgress(db_, resource, max));
    if (progress) return *progress;
    return Journal::SumPrunedProgress(resource, max);  // a name SQLite cannot path
  }
  Expected<std::vector<TrialRecord>> QueryTrials(const TrialQuery& query) override {
    std::vector<TrialRecord> trials;
    GS_TRY(ForEachTrial(query, [&](const TrialRecord& t) -> Status {
      trials.push_back(t);
      return {};
    }));
    return trials;
  }
  Status ForEachTrial(const TrialQuery& query, const TrialVisitor& visit) override {
    return journal::SqlForEachTrial(db_, TrialColumns(), query, visit);
  }
  Status ForEachResult(const ResultVisitor& visit) override;
  Expected<std::vector<int>> TrialNumbers(TrialState state) override;
  Expected<RankingRows> LoadRankingRows(const std::vector<std::string>& metrics) override {
    GS_ASSIGN_OR_RETURN(std::optional<RankingRows> rows, journal::SqlLoadRankingRows(db_, metrics));
    if (rows) return std::move(*rows);
    return Journal::LoadRankingRows(metrics);  // a name SQLite cannot path
  }
  Status InSnapshot(const std::function<Status()>& reads) override;
  Expected<TrialGroupRanking> RankTrialGroups(const std::vector<std::string>& ignored, Mode mode,
                                              int limit) override {
    GS_ASSIGN_OR_RETURN(std::optional<TrialGroupRanking> ranking,
                        journal::SqlRankTrialGroups(db_, ignored, mode, limit));
    if (ranking) return std::move(*ranking);
    return Journal::RankTrialGroups(ignored, mode, limit);  // a name SQLite cannot path
  }
  Expected<bool> EveryTrialHas(const std::vector<std::string>& path, const Json& value) override {
    GS_ASSIGN_OR_RETURN(std::optional<bool> has, journal::SqlEveryTrialHas(db_, path, value));
    if (has) return *has;
    return Journal::EveryTrialHas(path, value);
  }
  Expected<std::int64_t> DataVersion() override;
  Status Apply(const std::vector<JournalWrite>& writes, Durability durability) override;
  Status Sync() override;
  Expected<std::function<Status()>> SyncLater() override;
  Expected<std::vector<Json>> LoadEvents(std::string_view kind) override;

 private:
  // Scheduler events matching `where` ("" or a condition on ?1 = `bound`), by seq; at
  // most `limit` (< 0: all).
  Expected<std::vector<SchedulerEventRecord>> QuerySchedulerEvents(std::string_view where,
                                                                   std::int64_t bound,
                                                                   std::int64_t limit = -1);
  bool unsynced_ = false;  // a kAtSync commit is not yet fsync'ed
  std::map<std::uint32_t, std::string> update_sql_;  // WriteUpsert's, by changed columns
  UniqueFd wal_;           // the WAL, opened at the first Sync
  // The statements of each write, inside the caller's transaction.
  Status WriteUpsert(const TrialRecord& record, const std::vector<SchedulerEventRecord>& events,
                     std::string_view what);
  Status WriteFinish(const TrialRecord& record, const std::vector<IntermediateResult>& results,
                     const std::vector<SchedulerEventRecord>& events, std::string_view what);
  Status WriteEvent(double time, std::string_view kind, const Json& detail, std::string_view what);
  Status ApplyInTransaction(const std::vector<JournalWrite>& writes, const std::string& what);
  // SQLite refuses writes on a read-only connection anyway; this names the cause.
  Status RequireWritable(std::string_view what) const {
    if (access_ == JournalAccess::kReadWrite) return {};
    return tl::unexpected(db_.MakeError(ErrorCode::kJournal,
                                        fmt::format("{}: the journal was opened read-only", what)));
  }
  // Inserts `results` / `events` inside the caller's transaction.
  Status InsertResults(const std::vector<IntermediateResult>& results, std::string_view what);
  Status InsertEvents(const std::vector<SchedulerEventRecord>& events, std::string_view what);
  std::string_view TrialColumns() const {
    if (version_ >= 3) return journal::kTrialColumns;
    return version_ == 2 ? journal::kTrialColumnsV2 : journal::kTrialColumnsV1;
  }

  sqlite::Database db_;
  // Made at the first SyncLater; after db_, so that its connection closes first and
  // db_'s, the last, checkpoints and removes the WAL.
  std::shared_ptr<WalCheckpointer> checkpointer_;
  JournalAccess access_;
  int version_;  // schema version of the file (read-only opens may read version 1)
};

Status SqliteJournal::CreateExperiment(const ExperimentRecord& experiment) {
  const std::string what = fmt::format("create experiment '{}'", experiment.name);
  GS_TRY(RequireWritable(what));
  GS_ASSIGN_OR_RETURN(auto txn, sqlite::Transaction::Begin(db_, what));
  {
    GS_ASSIGN_OR_RETURN(auto existing, db_.Prepare("SELECT name FROM experiment", what));
    GS_ASSIGN_OR_RETURN(const bool exists, existing.Step());
    if (exists)
      return tl::unexpected(db_.MakeError(
          ErrorCode::kJournal,
          fmt::format("{}: the journal already holds experiment '{}'", what, existing.Text(0))));
  }
  GS_ASSIGN_OR_RETURN(
      auto insert,
      db_.Prepare("INSERT INTO experiment (id, name, config_path, config_yaml, identity, "
                  "created_time) VALUES (1, ?1, ?2, ?3, ?4, ?5)",
                  what));
  insert.Bind(1, experiment.name)
      .Bind(2, experiment.config_path)
      .Bind(3, experiment.config_yaml)
      .Bind(4, DumpJson(experiment.identity))
      .Bind(5, experiment.created_time);
  GS_TRY(insert.Run());
  return txn.Commit();
}

Expected<std::optional<ExperimentRecord>> SqliteJournal::LoadExperiment() {
  constexpr std::string_view kWhat = "load experiment";
  GS_ASSIGN_OR_RETURN(auto row, db_.Prepare("SELECT name, config_path, config_yaml, identity, "
                                            "created_time FROM experiment WHERE id = 1",
                                            kWhat));
  GS_ASSIGN_OR_RETURN(const bool found, row.Step());
  if (!found) return std::optional<ExperimentRecord>();
  ExperimentRecord experiment;
  experiment.name = row.Text(0);
  experiment.config_path = row.Text(1);
  experiment.config_yaml = row.Text(2);
  GS_ASSIGN_OR_RETURN(experiment.identity, ParseJson(db_, row.Text(3), kWhat));
  experiment.created_time = row.Double(4);
  return std::optional<ExperimentRecord>(std::move(experiment));
}

// The trial columns, in kTrialColumns' order (BindTrial binds column i as ?i+1).
std::vector<std::string_view> TrialColumnNames() {
  std::vector<std::string_view> names;
  std::string_view columns = journal::kTrialColumns;
  while (!columns.empty()) {
    const std::size_t comma = columns.find(", ");
    names.push_back(columns.substr(0, comma));
    columns = comma == std::string_view::npos ? std::string_view() : columns.substr(comma + 2);
  }
  return names;
}

// For a trial row: per column but number, whether the bound record's value differs from
// the row's, then that value ("SELECT ?2 IS NOT repeat, ?2, ?3 IS NOT attempt, ?3, ...").
std::string TrialDifferenceSql() {
  const std::vector<std::string_view> names = TrialColumnNames();
  std::vector<std::string> terms;
  for (std::size_t i = 1; i < names.size(); ++i) terms.push_back(fmt::format("?{0} IS NOT {1}, ?{0}", i + 1, names[i]));
  return fmt::format("SELECT {} FROM trials WHERE number = ?1", fmt::join(terms, ", "));
}

Status SqliteJournal::WriteUpsert(const TrialRecord& record,
                                  const std::vector<SchedulerEventRecord>& events,
                                  std::string_view what) {
  // A trial already there gets only its changed columns, not a REPLACE: a run writes each
  // trial again when its process is recorded, and a REPLACE deletes and inserts the row
  // and every index entry (7, and the read tallies' share, schema.h), each a page more
  // to write at commit: at 100,000 trials most of the journal's cost per trial.
  static const std::vector<std::string_view> names = TrialColumnNames();
  static const std::string difference_sql = TrialDifferenceSql();
  static const std::string insert_sql =
      fmt::format("INSERT INTO trials ({}, changed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                  "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, {})",
                  journal::kTrialColumns, journal::kNextChange);
  static_assert(sizeof(std::uint32_t) * 8 > 19, "a bit per trial column");
  GS_ASSIGN_OR_RETURN(auto difference, db_.PrepareCached(difference_sql, what));
  journal::BindTrial(difference, record);
  GS_ASSIGN_OR_RETURN(const bool exists, difference.Step());
  if (!exists) {
    GS_ASSIGN_OR_RETURN(auto insert, db_.PrepareCached(insert_sql, what));
    journal::BindTrial(insert, record);
    GS_TRY(insert.Run());
    return InsertEvents(events, what);
  }
  std::vector<int> changed;  // indexes into names
  std::uint32_t mask = 0;
  for (std::size_t i = 1; i < names.size(); ++i)
    if (difference.Int(static_cast<int>(2 * i - 2)) != 0) {
      changed.push_back(static_cast<int>(i));
      mask |= std::uint32_t{1} << i;
    }
  if (!changed.empty()) {
    // The statement's text per set of changed columns, made once (a run has a few).
    std::string& sql = update_sql_[mask];
    if (sql.empty()) {
      std::vector<std::string> assignments;
      for (std::size_t k = 0; k < changed.size(); ++k)
        assignments.push_back(fmt::format("{} = ?{}", names[static_cast<std::size_t>(changed[k])], k + 2));
      sql = fmt::format("UPDATE trials SET {}, changed = {} WHERE number = ?1", fmt::join(assignments, ", "),
                        journal::kNextChange);
    }
    GS_ASSIGN_OR_RETURN(auto update, db_.PrepareCached(sql, what));
    update.Bind(1, record.number);
    for (std::size_t k = 0; k < changed.size(); ++k)
      update.BindColumn(static_cast<int>(k) + 2, difference, 2 * changed[k] - 1);
    GS_TRY(update.Run());
  }
  return InsertEvents(events, what);
}

Status SqliteJournal::WriteFinish(const TrialRecord& record,
                                  const std::vector<IntermediateResult>& results,
                                  const std::vector<SchedulerEventRecord>& events,
                                  std::string_view what) {
  {
    GS_ASSIGN_OR_RETURN(
        auto update,
        db_.PrepareCached(fmt::format("UPDATE trials SET state = ?2, end_time = ?3, "
                                      "exit_code = ?4, term_signal = ?5, failure_reason = ?6, "
                                      "objective = ?7, last_metrics = ?8, changed = {} "
                                      "WHERE number = ?1",
                                      journal::kNextChange),
                          what));
    update.Bind(1, record.number)
        .Bind(2, ToString(record.state))
        .Bind(3, record.end_time)
        .Bind(4, record.exit_code)
        .Bind(5, record.term_signal)
        .Bind(6, record.failure_reason)
        .Bind(7, record.objective)
        .Bind(8, DumpJson(record.last_metrics));
    GS_TRY(update.Run());
    if (db_.ChangedRows() == 0)
      return tl::unexpected(db_.MakeError(
          ErrorCode::kNotFound,
          fmt::format("{}: trial {} is not in the journal", what, record.number)));
  }
  GS_TRY(InsertResults(results, what));
  GS_TRY(InsertEvents(events, what));
  return {};
}

Status SqliteJournal::InsertEvents(const std::vector<SchedulerEventRecord>& events,
                                   std::string_view what) {
  if (events.empty()) return {};
  GS_ASSIGN_OR_RETURN(auto insert, db_.PrepareCached("INSERT INTO scheduler_events (time, trial, kind, "
                                               "detail) VALUES (?1, ?2, ?3, ?4)",
                                               what));
  for (const SchedulerEventRecord& event : events) {
    insert.Bind(1, event.time).Bind(2, event.trial).Bind(3, event.kind).Bind(
        4, DumpJson(event.detail));
    GS_TRY(insert.Run());
  }
  return {};
}

Expected<std::vector<SchedulerEventRecord>> SqliteJournal::LoadSchedulerEvents(
    std::optional<int> trial) {
  return QuerySchedulerEvents(trial ? "WHERE trial = ?1" : "", trial.value_or(0));
}

Expected<std::vector<SchedulerEventRecord>> SqliteJournal::LoadSchedulerEventsAfter(
    std::int64_t after_seq, std::int64_t limit) {
  return QuerySchedulerEvents("WHERE seq > ?1", after_seq, limit);
}

Expected<std::vector<SchedulerEventRecord>> SqliteJournal::QuerySchedulerEvents(
    std::string_view where, std::int64_t bound, std::int64_t limit) {
  std::vector<SchedulerEventRecord> events;
  if (version_ < 2) return events;
  constexpr std::string_view kWhat = "load scheduler events";
  GS_ASSIGN_OR_RETURN(
      auto rows, db_.Prepare(fmt::format("SELECT seq, time, trial, kind, detail FROM "
                                         "scheduler_events {} ORDER BY seq LIMIT {}",
                                         where, limit),
                             kWhat));
  if (!where.empty()) rows.Bind(1, bound);
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return events;
    SchedulerEventRecord event;
    event.seq = rows.Int64(0);
    event.time = rows.Double(1);
    event.trial = rows.Int(2);
    event.kind = rows.Text(3);
    GS_ASSIGN_OR_RETURN(event.detail, ParseJson(db_, rows.Text(4), kWhat));
    events.push_back(std::move(event));
  }
}

Expected<std::vector<Json>> SqliteJournal::LoadEvents(std::string_view kind) {
  const std::string what = fmt::format("load events '{}'", kind);
  GS_ASSIGN_OR_RETURN(
      auto rows, db_.Prepare("SELECT detail FROM events WHERE kind = ?1 ORDER BY rowid", what));
  rows.Bind(1, kind);
  std::vector<Json> details;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return details;
    GS_ASSIGN_OR_RETURN(Json detail, ParseJson(db_, rows.Text(0), what));
    details.push_back(std::move(detail));
  }
}

Status SqliteJournal::InsertResults(const std::vector<IntermediateResult>& results,
                                    std::string_view what) {
  if (results.empty()) return {};
  GS_ASSIGN_OR_RETURN(
      auto insert,
      db_.PrepareCached(fmt::format("INSERT INTO results ({}) VALUES (?1, ?2, ?3, ?4, ?5)",
                              journal::kResultColumns),
                  what));
  for (const IntermediateResult& result : results) {
    journal::BindResult(insert, result);
    GS_TRY(insert.Run());
  }
  return {};
}

Expected<std::vector<TrialRecord>> SqliteJournal::LoadTrials() {
  GS_ASSIGN_OR_RETURN(
      auto rows,
      db_.Prepare(fmt::format("SELECT {} FROM trials ORDER BY number", TrialColumns()),
                  "load trials"));
  // Reserved to the count: grown by doubling, 100,000 records peaked at 69 MB of vector
  // (the old and the new buffer at once) instead of 35.
  GS_ASSIGN_OR_RETURN(auto count, db_.Prepare("SELECT count(*) FROM trials", "count the trials"));
  GS_ASSIGN_OR_RETURN(const bool counted, count.Step());
  std::vector<TrialRecord> trials;
  if (counted) trials.reserve(static_cast<std::size_t>(count.Int(0)));
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return trials;
    GS_ASSIGN_OR_RETURN(TrialRecord trial, journal::ReadTrial(db_, rows));
    trials.push_back(std::move(trial));
  }
}

Expected<ChangedTrials> SqliteJournal::LoadTrialsChangedAfter(std::int64_t after) {
  if (version_ < 4) return Journal::LoadTrialsChangedAfter(after);  // no marks
  // In one statement (one snapshot): the rows and the largest mark among them. A whole
  // read scans the table in number order ('+changed': not through the marks' index and a
  // sort of every row); a later one looks its few rows up by the index.
  const bool whole = after < 0;
  GS_ASSIGN_OR_RETURN(
      auto rows, db_.PrepareCached(fmt::format("SELECT {}, changed FROM trials WHERE {}changed > ?1 "
                                               "ORDER BY number",
                                               journal::kTrialColumns, whole ? "+" : ""),
                                   "load the trials changed since the last read"));
  rows.Bind(1, after);
  ChangedTrials read{{}, std::max<std::int64_t>(after, 0), whole};
  if (whole) {
    GS_ASSIGN_OR_RETURN(auto count, db_.Prepare("SELECT count(*) FROM trials", "count the trials"));
    GS_ASSIGN_OR_RETURN(const bool counted, count.Step());
    if (counted) read.trials.reserve(static_cast<std::size_t>(count.Int(0)));
  }
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return read;
    GS_ASSIGN_OR_RETURN(TrialRecord trial, journal::ReadTrial(db_, rows));
    read.trials.push_back(std::move(trial));
    read.mark = std::max(read.mark, rows.Int64(19));
  }
}

Expected<std::optional<TrialRecord>> SqliteJournal::LoadTrial(int number) {
  GS_ASSIGN_OR_RETURN(
      auto row,
      // Cached: `best` of a Pareto front loads each member, 1,763 of 100,000 trials, and
      // compiling the statement each time was a tenth of its time (issue 25).
      db_.PrepareCached(fmt::format("SELECT {} FROM trials WHERE number = ?1", TrialColumns()),
                        fmt::format("load trial {}", number)));
  row.Bind(1, number);
  GS_ASSIGN_OR_RETURN(const bool found, row.Step());
  if (!found) return std::optional<TrialRecord>();
  GS_ASSIGN_OR_RETURN(TrialRecord trial, journal::ReadTrial(db_, row));
  return std::optional<TrialRecord>(std::move(trial));
}

Expected<std::vector<IntermediateResult>> SqliteJournal::LoadResults(int trial) {
  GS_ASSIGN_OR_RETURN(
      auto rows,
      db_.Prepare(fmt::format("SELECT {} FROM results WHERE trial = ?1 "
                              "ORDER BY attempt, step, rowid",
                              journal::kResultColumns),
                  fmt::format("load results of trial {}", trial)));
  rows.Bind(1, trial);
  std::vector<IntermediateResult> results;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return results;
    GS_ASSIGN_OR_RETURN(IntermediateResult result, journal::ReadResult(db_, rows));
    results.push_back(std::move(result));
  }
}

Status SqliteJournal::ForEachResult(const ResultVisitor& visit) {
  // The index on trial gives the trials in order; SQLite sorts each trial's rows alone.
  // Only recorded trials' results, as the default (trial by trial) reads them.
  GS_ASSIGN_OR_RETURN(
      auto rows,
      db_.Prepare(fmt::format("SELECT {} FROM results WHERE trial IN (SELECT number FROM trials) "
                              "ORDER BY trial, attempt, step, rowid",
                              journal::kResultColumns),
                  "read every result"));
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return {};
    GS_ASSIGN_OR_RETURN(const IntermediateResult result, journal::ReadResult(db_, rows));
    GS_TRY(visit(result));
  }
}

Expected<std::vector<int>> SqliteJournal::TrialNumbers(TrialState state) {
  GS_ASSIGN_OR_RETURN(auto rows, db_.Prepare("SELECT number FROM trials WHERE state = ?1 ORDER BY "
                                             "number",
                                             "list trials by state"));
  rows.Bind(1, ToString(state));
  std::vector<int> numbers;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return numbers;
    numbers.push_back(rows.Int(0));
  }
}

Status SqliteJournal::InSnapshot(const std::function<Status()>& reads) {
  GS_ASSIGN_OR_RETURN(auto snapshot,
                      sqlite::Transaction::Begin(db_, "read snapshot", sqlite::Transaction::Kind::kRead));
  GS_TRY(reads());  // an error rolls the snapshot back as it goes out of scope
  return snapshot.Commit();
}

Expected<std::vector<MetricPoint>> SqliteJournal::LoadMetricPoints(std::string_view key,
                                                                   std::int64_t after_cursor,
                                                                   std::int64_t limit) {
  // json_each rather than a JSON path: a path cannot quote every key a trial may report.
  GS_ASSIGN_OR_RETURN(
      auto rows,
      db_.Prepare("SELECT r.rowid, r.trial, r.attempt, r.step, "
                  "(SELECT j.value FROM json_each(r.\"values\") AS j "
                  " WHERE j.key = ?2 AND j.type IN ('integer', 'real')) "
                  "FROM results AS r WHERE r.rowid > ?1 ORDER BY r.rowid LIMIT ?3",
                  fmt::format("load '{}' of results after {}", key, after_cursor)));
  rows.Bind(1, after_cursor).Bind(2, key).Bind(3, limit);
  std::vector<MetricPoint> points;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return points;
    MetricPoint point;
    point.cursor = rows.Int64(0);
    point.trial = static_cast<int>(rows.Int64(1));
    point.attempt = static_cast<int>(rows.Int64(2));
    point.step = rows.Int64(3);
    if (!rows.IsNull(4)) point.value = rows.Double(4);
    points.push_back(point);
  }
}

Expected<std::int64_t> SqliteJournal::DataVersion() {
  GS_ASSIGN_OR_RETURN(auto row, db_.Prepare("PRAGMA data_version", "read data version"));
  GS_ASSIGN_OR_RETURN(const bool has_row, row.Step());
  return has_row ? row.Int64(0) : 0;
}

Status SqliteJournal::WriteEvent(double time, std::string_view kind, const Json& detail,
                                 std::string_view what) {
  GS_ASSIGN_OR_RETURN(auto insert,
                      db_.PrepareCached("INSERT INTO events (time, kind, detail) VALUES (?1, ?2, ?3)",
                                  what));
  insert.Bind(1, time).Bind(2, kind).Bind(3, DumpJson(detail));
  return insert.Run();
}

Status SqliteJournal::Apply(const std::vector<JournalWrite>& writes, Durability durability) {
  if (writes.empty()) return {};
  // A one-entry batch is a single call (UpsertTrial, ...) and its errors say so.
  const std::string what = writes.size() == 1 ? WhatOf(writes.front())
                                              : fmt::format("commit {} changes", writes.size());
  GS_TRY(RequireWritable(what));
  if (durability == Durability::kAtSync) {
    // In WAL mode, synchronous=NORMAL writes the commit to the WAL without fsync; Sync
    // then fsyncs the WAL, which is all synchronous=FULL would have done at commit.
    GS_TRY(db_.Run("PRAGMA synchronous = NORMAL", "defer fsync"));
    unsynced_ = true;
    db_.wal_length()->checkpoint_at.store(kCommitCheckpointFrames);  // the syncs checkpoint
  }
  Status committed = ApplyInTransaction(writes, what);
  if (durability == Durability::kAtSync)
    GS_TRY(db_.Run("PRAGMA synchronous = FULL", "restore synchronous=FULL"));
  return committed;
}

Status SqliteJournal::Sync() {
  GS_ASSIGN_OR_RETURN(std::function<Status()> sync, SyncLater());
  return sync();
}

Expected<std::function<Status()>> SqliteJournal::SyncLater() {
  if (!unsynced_) return std::function<Status()>([] { return Status(); });
  if (!wal_.valid()) {
    wal_ = UniqueFd(::open((db_.path() + "-wal").c_str(), O_RDONLY | O_CLOEXEC));
    if (!wal_.valid())
      return tl::unexpected(db_.MakeError(
          ErrorCode::kJournal, fmt::format("open the WAL to sync it: {}", std::strerror(errno))));
  }
  auto fd = std::make_shared<UniqueFd>(::fcntl(wal_.get(), F_DUPFD_CLOEXEC, 0));
  if (!fd->valid())
    return tl::unexpected(db_.MakeError(
        ErrorCode::kJournal, fmt::format("duplicate the WAL's fd: {}", std::strerror(errno))));
  unsynced_ = false;
  if (!checkpointer_) checkpointer_ = std::make_shared<WalCheckpointer>(db_.path());
  return std::function<Status()>([fd, path = db_.path(), wal = db_.wal_length(),
                                  checkpointer = checkpointer_]() -> Status {
    if (::fdatasync(fd->get()) != 0)
      return Fail(ErrorCode::kJournal, fmt::format("{}: sync the WAL: {}", path, std::strerror(errno)));
    if (wal->frames.load() >= kSyncCheckpointFrames) checkpointer->Checkpoint();
    return {};
  });
}

Status SqliteJournal::ApplyInTransaction(const std::vector<JournalWrite>& writes,
                                         const std::string& what) {
  GS_ASSIGN_OR_RETURN(auto txn, sqlite::Transaction::Begin(db_, what));
  for (const JournalWrite& write : writes) {
    switch (write.kind) {
      case JournalWrite::Kind::kUpsertTrial:
        GS_TRY(WriteUpsert(write.record, write.events, WhatOf(write)));
        break;
      case JournalWrite::Kind::kFinishTrial:
        GS_TRY(WriteFinish(write.record, write.results, write.events, WhatOf(write)));
        break;
      case JournalWrite::Kind::kAppendResults:
        GS_TRY(InsertResults(write.results, what));
        GS_TRY(InsertEvents(write.events, what));
        break;
      case JournalWrite::Kind::kAppendEvent:
        GS_TRY(WriteEvent(write.time, write.event_kind, write.detail, what));
        break;
    }
  }
  return txn.Commit();
}

}  // namespace

namespace {

namespace fs = std::filesystem;

// A private copy of a journal and its WAL, for a reader that may not write where the
// journal is: SQLite must write a -shm file next to a WAL-mode database it reads.
// Removed when the journal closes.
class PrivateCopy {
 public:
  static Expected<PrivateCopy> Make(const fs::path& db_path) {
    // The error_code overload: a TMPDIR that is not a directory must be an error, not
    // an uncaught filesystem_error.
    std::error_code temp_error;
    const fs::path temp_dir = fs::temp_directory_path(temp_error);
    const char* tmpdir_variable = std::getenv("TMPDIR");
    const std::string temp_shown =
        temp_error ? fmt::format("TMPDIR={}", tmpdir_variable ? tmpdir_variable : "")
                   : temp_dir.string();
    std::string pattern = (temp_dir / "gpusweep-read.XXXXXX").string();
    if (temp_error || ::mkdtemp(pattern.data()) == nullptr) {
      const std::string reason = temp_error ? temp_error.message() : std::strerror(errno);
      return Fail(ErrorCode::kJournal,
                  fmt::format("{}: cannot make a private copy to read (this directory is not "
                              "writable, so its WAL cannot be read in place) in the temporary "
                              "directory {}: {}; set TMPDIR to a directory you can write",
                              db_path.string(), temp_shown, reason));
    }
    PrivateCopy copy{fs::path(pattern)};
    std::error_code ec;
    for (const char* suffix : {"", "-wal"}) {
      fs::path from = db_path;
      from += suffix;
      if (!fs::exists(from, ec)) continue;
      fs::copy_file(from, copy.db_path().string() + suffix, ec);
      if (ec)
        return Fail(ErrorCode::kJournal, fmt::format("{}: cannot copy to {}: {}", from.string(),
                                                     copy.dir_.string(), ec.message()));
    }
    return copy;
  }
  PrivateCopy(PrivateCopy&& other) noexcept : dir_(std::exchange(other.dir_, {})) {}
  PrivateCopy& operator=(PrivateCopy&&) = delete;
  ~PrivateCopy() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  fs::path db_path() const { return dir_ / kJournalFileName; }

 private:
  explicit PrivateCopy(fs::path dir) : dir_(std::move(dir)) {}
  fs::path dir_;
};

// A read-only journal that keeps its private copy (if any) alive as long as it is open.
class ReadOnlyJournal final : public ForwardingJournal {
 public:
  ReadOnlyJournal(std::unique_ptr<Journal> inner, std::optional<PrivateCopy> copy)
      : ForwardingJournal(std::move(inner)), copy_(std::move(copy)) {}
  ~ReadOnlyJournal() override { Close(); }  // close the database before the copy goes

 private:
  std::optional<PrivateCopy> copy_;
};

Expected<std::unique_ptr<Journal>> OpenWith(const fs::path& db_path, sqlite::OpenMode mode,
                                           JournalAccess access) {
  GS_ASSIGN_OR_RETURN(sqlite::Database db, sqlite::Database::Open(db_path, mode));
  int version = journal::kSchemaVersion;
  if (access == JournalAccess::kReadOnly) {
    GS_ASSIGN_OR_RETURN(version, journal::CheckSchema(db));
  } else {
    GS_TRY(journal::PrepareForWriting(db));
  }
  return std::unique_ptr<Journal>(std::make_unique<SqliteJournal>(std::move(db), access, version));
}

bool NonEmptyFile(const fs::path& path) {
  std::error_code ec;
  return fs::file_size(path, ec) > 0 && !ec;
}

// For a reader that cannot write the experiment directory (a read-only copy, another
// user's experiment): SQLite cannot create the -shm file a WAL database needs. Without
// a WAL file there is nothing beyond the main file to read: open it immutable. With
// one (a run is live, or was killed), read a private copy of both.
Expected<std::unique_ptr<Journal>> OpenReadOnlyElsewhere(const fs::path& db_path,
                                                        const Error& first_error) {
  fs::path wal = db_path;
  wal += "-wal";
  if (!NonEmptyFile(wal)) {
    auto immutable = OpenWith(db_path, sqlite::OpenMode::kReadOnlyImmutable, JournalAccess::kReadOnly);
    if (immutable) return immutable;
    return tl::unexpected(first_error);
  }
  GS_ASSIGN_OR_RETURN(PrivateCopy copy, PrivateCopy::Make(db_path));
  // Read-write on the copy, so SQLite can replay the WAL; the wrapper stays read-only.
  GS_ASSIGN_OR_RETURN(sqlite::Database db,
                      sqlite::Database::Open(copy.db_path(), sqlite::OpenMode::kReadWriteCreate));
  GS_ASSIGN_OR_RETURN(const int version, journal::CheckSchema(db));
  auto inner = std::make_unique<SqliteJournal>(std::move(db), JournalAccess::kReadOnly, version);
  return std::unique_ptr<Journal>(std::make_unique<ReadOnlyJournal>(std::move(inner), std::move(copy)));
}

}  // namespace

Expected<std::unique_ptr<Journal>> OpenJournal(const std::filesystem::path& db_path,
                                               JournalAccess access) {
  if (access == JournalAccess::kReadOnly) {
    std::error_code ec;
    if (!std::filesystem::exists(db_path, ec)) {
      const std::filesystem::path dir =
          db_path.has_parent_path() ? db_path.parent_path() : std::filesystem::path(".");
      return Fail(ErrorCode::kNotFound, fmt::format("no experiment at {}: {} does not exist",
                                                    dir.string(), db_path.string()));
    }
    auto journal = OpenWith(db_path, sqlite::OpenMode::kReadOnly, access);
    if (journal || journal.error().code != ErrorCode::kJournal) return journal;
    return OpenReadOnlyElsewhere(db_path, journal.error());
  }
  return OpenWith(db_path, sqlite::OpenMode::kReadWriteCreate, access);
}

}  // namespace gpusweep
