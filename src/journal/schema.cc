#include "journal/schema.h"

#include <fmt/format.h>

namespace gpusweep::journal {
namespace {

// "values" is an SQL keyword, hence quoted. JSON columns hold nlohmann dump() text;
// REAL columns are Unix seconds. trials.objective is NULL when no objective (or NaN).
constexpr std::string_view kCreateTables = R"sql(
CREATE TABLE experiment (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  config_path TEXT NOT NULL,
  config_yaml TEXT NOT NULL,
  identity TEXT NOT NULL,
  created_time REAL NOT NULL
);
CREATE TABLE trials (
  number INTEGER PRIMARY KEY,
  repeat INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  params TEXT NOT NULL,
  state TEXT NOT NULL,
  gpus TEXT NOT NULL,
  start_time REAL NOT NULL,
  end_time REAL NOT NULL,
  pid INTEGER NOT NULL,
  pid_start_ticks INTEGER NOT NULL,
  exit_code INTEGER,
  term_signal INTEGER,
  failure_reason TEXT NOT NULL,
  objective REAL,
  last_metrics TEXT NOT NULL,
  bracket INTEGER NOT NULL DEFAULT 0,
  rung INTEGER NOT NULL DEFAULT 0,
  budget REAL,
  job_id TEXT NOT NULL DEFAULT '',
  changed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX trials_by_change ON trials (changed);
CREATE TABLE results (
  trial INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  step INTEGER NOT NULL,
  time REAL NOT NULL,
  "values" TEXT NOT NULL
);
CREATE INDEX results_by_trial ON results (trial);
CREATE TABLE events (
  time REAL NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
)sql";

// Version 2 additions, also the migration from version 1. seq orders the replay.
constexpr std::string_view kSchedulerTable = R"sql(
CREATE TABLE scheduler_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time REAL NOT NULL,
  trial INTEGER NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX scheduler_events_by_trial ON scheduler_events (trial);
)sql";

constexpr std::string_view kMigrateTrialsFrom1 = R"sql(
ALTER TABLE trials ADD COLUMN bracket INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN rung INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trials ADD COLUMN budget REAL;
)sql";

constexpr std::string_view kMigrateTrialsFrom2 = R"sql(
ALTER TABLE trials ADD COLUMN job_id TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: each row's change mark (journal/records.h, kNextChange), so a reader that
// follows a run reads only the rows written since it last read (the dashboard at
// 100,000 trials re-read every row on every commit: 0.7 s; issue 25). Rows from before
// the migration keep mark 0: a reader's first read takes every row anyway.
constexpr std::string_view kMigrateTrialsFrom3 = R"sql(
ALTER TABLE trials ADD COLUMN changed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX trials_by_change ON trials (changed);
)sql";

// What the read commands' queries walk instead of every row (issue 25; trial_sql.cc):
// counts per state and the best objective, the params groups (covering, rows of a
// group by number), and the rare repeats and cluster jobs. Not part of the data: made
// when a run opens the journal, whatever its version, so older journals get them at
// their next run; a reader of a journal without them gets the same answers, slower.
constexpr std::string_view kReadIndexes = R"sql(
CREATE INDEX IF NOT EXISTS trials_by_state ON trials (state, objective);
CREATE INDEX IF NOT EXISTS trials_by_params ON trials (params, number, state, objective);
CREATE INDEX IF NOT EXISTS trials_repeated ON trials (number) WHERE repeat > 0;
)sql";
constexpr std::string_view kJobIndex = R"sql(
CREATE INDEX IF NOT EXISTS trials_with_job ON trials (number) WHERE job_id <> '';
)sql";

Status CreateReadIndexes(sqlite::Database& db) {
  GS_TRY(db.Exec(kReadIndexes, "create the read indexes"));
  return db.Exec(kJobIndex, "create the read indexes");
}

Expected<int> ReadSchemaVersion(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(auto stmt, db.Prepare("PRAGMA user_version", "read schema version"));
  GS_ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  if (!has_row)
    return tl::unexpected(db.MakeError(ErrorCode::kJournal, "read schema version: no result"));
  return stmt.Int(0);
}

Status RefuseUnknownVersion(const sqlite::Database& db, int version) {
  if (version > kSchemaVersion)
    return tl::unexpected(db.MakeError(
        ErrorCode::kJournal,
        fmt::format("journal schema version {} is newer than this gpusweep supports ({}); "
                    "use a newer gpusweep to read this experiment",
                    version, kSchemaVersion)));
  if (version < 1)
    return tl::unexpected(db.MakeError(
        ErrorCode::kJournal, "not a gpusweep journal (schema version 0); was it created "
                             "by another program?"));
  return {};
}

// True if the file has any table, i.e. is some SQLite database we did not create.
Expected<bool> HasTables(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(auto stmt, db.Prepare("SELECT 1 FROM sqlite_schema LIMIT 1",
                                            "inspect schema"));
  return stmt.Step();
}

// Version 0 is fine only for an empty (new) file: tables there belong to someone else.
Status RefuseForeignOrNewer(sqlite::Database& db, int version) {
  if (version != 0) return RefuseUnknownVersion(db, version);
  GS_ASSIGN_OR_RETURN(const bool foreign, HasTables(db));
  if (foreign) return RefuseUnknownVersion(db, 0);
  return {};
}

// journal_mode=WAL is persistent in the file and lets readers run while the sweep
// writes. SQLite answers with the resulting mode instead of failing, e.g. on a file
// system without shared memory support, so check the answer.
Status EnableWal(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(auto stmt, db.Prepare("PRAGMA journal_mode = WAL", "enable WAL mode"));
  GS_ASSIGN_OR_RETURN(const bool has_row, stmt.Step());
  const std::string mode = has_row ? stmt.Text(0) : "";
  if (mode != "wal")
    return tl::unexpected(db.MakeError(
        ErrorCode::kJournal,
        fmt::format("enable WAL mode: the file system allows only journal mode '{}'", mode)));
  return {};
}

}  // namespace

Status PrepareForWriting(sqlite::Database& db) {
  // Refuse a foreign or newer file before changing anything in it.
  GS_ASSIGN_OR_RETURN(const int version, ReadSchemaVersion(db));
  GS_TRY(RefuseForeignOrNewer(db, version));
  GS_TRY(EnableWal(db));
  // Per connection. FULL syncs the WAL on every commit; NORMAL could lose the last
  // committed results on power loss.
  GS_TRY(db.Exec("PRAGMA synchronous = FULL", "set synchronous=FULL"));
  if (version == kSchemaVersion) return CreateReadIndexes(db);

  GS_ASSIGN_OR_RETURN(auto txn, sqlite::Transaction::Begin(db, "create schema"));
  // Re-read under the write lock: another connection may have changed it meanwhile.
  GS_ASSIGN_OR_RETURN(const int locked_version, ReadSchemaVersion(db));
  if (locked_version == kSchemaVersion) {
    GS_TRY(CreateReadIndexes(db));
    return txn.Commit();
  }
  GS_TRY(RefuseForeignOrNewer(db, locked_version));
  if (locked_version == 0) {
    GS_TRY(db.Exec(kCreateTables, "create tables"));
  } else if (locked_version == 1) {
    GS_TRY(db.Exec(kMigrateTrialsFrom1, "migrate the journal from version 1"));
  }
  if (locked_version == 1 || locked_version == 2)
    GS_TRY(db.Exec(kMigrateTrialsFrom2, "migrate the journal's trials to version 3"));
  if (locked_version >= 1 && locked_version <= 3)
    GS_TRY(db.Exec(kMigrateTrialsFrom3, "migrate the journal's trials to version 4"));
  if (locked_version <= 1) GS_TRY(db.Exec(kSchedulerTable, "create scheduler_events"));
  GS_TRY(db.Exec(fmt::format("PRAGMA user_version = {}", kSchemaVersion), "set schema version"));
  GS_TRY(CreateReadIndexes(db));
  return txn.Commit();
}

Expected<int> CheckSchema(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(const int version, ReadSchemaVersion(db));
  GS_TRY(RefuseUnknownVersion(db, version));
  return version;
}

}  // namespace gpusweep::journal
