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
// counts per state and the best objective, every objective in order (a listing by
// objective past the trials without one), the params groups (covering, rows of a
// group by number), and the rare repeats and cluster jobs. Not part of the data: made
// when a run opens the journal, whatever its version, so older journals get them at
// their next run; a reader of a journal without them gets the same answers, slower.
constexpr std::string_view kReadIndexes = R"sql(
CREATE INDEX IF NOT EXISTS trials_by_state ON trials (state, objective);
CREATE INDEX IF NOT EXISTS trials_by_params ON trials (params, number, state, objective);
CREATE INDEX IF NOT EXISTS trials_repeated ON trials (number) WHERE repeat > 0;
CREATE INDEX IF NOT EXISTS trials_by_objective ON trials (objective, number) WHERE objective IS NOT NULL;
)sql";
constexpr std::string_view kJobIndex = R"sql(
CREATE INDEX IF NOT EXISTS trials_with_job ON trials (number) WHERE job_id <> '';
)sql";

Status CreateReadIndexes(sqlite::Database& db) {
  GS_TRY(db.Exec(kReadIndexes, "create the read indexes"));
  return db.Exec(kJobIndex, "create the read indexes");
}

// The read tallies (schema.h): their tables, indexes and triggers, then their rows
// from the trials already there, all in the caller's transaction.
//
// What a run writes costs little: a new trial joins its group by one upsert; its
// finish adds its objective to the group's sum by one update, in number order when no
// higher-numbered trial of the group was summed yet (a sweep's trials finish nearly in
// order); only then, and when a ranked trial changes, moves or goes, is the group summed
// again from its trials. With a rebuild at every finish, and an INSERT OR REPLACE for a
// process recorded, a run's journal time was 0.43 ms a trial at 95,000 trials against
// 0.25 without the tallies (issue 25: the launch rate fell to 0.60 of its start); with
// this and the changes of journal.cc, ~0.28 (bench/README.md). Writers that REPLACE a
// row (older gpusweep builds; the run now updates) are still followed, at a rebuild.
std::string ReadTalliesSql() {
  const std::string key = GroupKeySql("params");
  const std::string new_key = GroupKeySql("NEW.params"), old_key = GroupKeySql("OLD.params");
  const std::string ranked = RankedSql("");
  // One more (sign 1) or one fewer (-1) trial like `row` in the per-state counts.
  auto count = [](std::string_view row, int sign) {
    return fmt::format(
        "INSERT INTO trial_tally VALUES ({0}.state, {1}, {1} * ({0}.objective IS NOT NULL)) "
        "ON CONFLICT (state) DO UPDATE SET trials = trials + excluded.trials, "
        "with_objective = with_objective + excluded.with_objective;\n",
        row, sign);
  };
  // Group `k`'s row from its trials (through trials_by_group_key, in number order: the
  // order the grouping scan sums in), without trial `except` (NULL: none), when it has
  // no row; none when it has no trial.
  auto rebuild_if_missing = [&](const std::string& k, std::string_view except) {
    return fmt::format(
        "INSERT INTO param_groups SELECT {0}, count(*), min(number), sum({1}), sum({2}), "
        "total(CASE WHEN {2} THEN objective END), max(CASE WHEN {2} THEN number END) FROM trials "
        "WHERE {3} = {0} AND number IS NOT {4} AND NOT EXISTS (SELECT 1 FROM param_groups WHERE key = {0}) "
        "HAVING count(*) > 0;\n",
        k, SpoilsGroupSql(""), ranked, key, except);
  };
  auto rebuild = [&](const std::string& k, std::string_view except) {
    return fmt::format("DELETE FROM param_groups WHERE key = {};\n", k) + rebuild_if_missing(k, except);
  };
  // After the in-order sum of NEW was skipped because a higher-numbered trial of its
  // group was summed already: the group summed again.
  const std::string resum_out_of_order =
      fmt::format("DELETE FROM param_groups WHERE key = {} AND {} AND last > NEW.number;\n", new_key,
                  RankedSql("NEW.")) +
      rebuild_if_missing(new_key, "NULL");
  // NEW's objective, when it is ranked, as the sum's next term (0.0 + : never -0.0, as
  // the scan's sum from 0 is never).
  const std::string new_term = fmt::format("CASE WHEN {} THEN 0.0 + NEW.objective ELSE 0.0 END", RankedSql("NEW."));
  const std::string new_last = fmt::format("CASE WHEN {} THEN NEW.number END", RankedSql("NEW."));
  const std::string changed =
      "(OLD.state IS NOT NEW.state OR OLD.objective IS NOT NEW.objective OR OLD.params IS NOT NEW.params)";
  const std::string replaced_key = fmt::format("(SELECT {} FROM trials WHERE number = NEW.number)", key);
  return fmt::format(
      "CREATE INDEX trials_by_group_key ON trials ({key}, number);\n"
      "CREATE TABLE trial_tally (state TEXT PRIMARY KEY, trials INTEGER NOT NULL, "
      "with_objective INTEGER NOT NULL) WITHOUT ROWID;\n"
      // last: the highest number of the trials summed in total (NULL: none).
      "CREATE TABLE param_groups (key TEXT PRIMARY KEY, trials INTEGER NOT NULL, "
      "first INTEGER NOT NULL, spoiled INTEGER NOT NULL, completed INTEGER NOT NULL, total REAL, "
      "last INTEGER) WITHOUT ROWID;\n"
      // The ranking's tiers (report/groups.h), each by mean: unspoiled, spoiled; then
      // the groups without a completed trial by first.
      "CREATE INDEX param_groups_by_tier ON param_groups (spoiled > 0, total / completed, first) "
      "WHERE completed > 0;\n"
      "CREATE INDEX param_groups_unranked ON param_groups (first) WHERE completed = 0;\n"
      "CREATE INDEX param_groups_repeated ON param_groups (key) WHERE trials > 1;\n"
      // INSERT OR REPLACE of a trial deletes the old row without a DELETE trigger (no
      // recursive_triggers): its old counts and group go before the new row comes.
      "CREATE TRIGGER trials_tally_replaced BEFORE INSERT ON trials "
      "WHEN EXISTS (SELECT 1 FROM trials WHERE number = NEW.number) BEGIN\n"
      "UPDATE trial_tally SET trials = trials - 1, with_objective = with_objective - "
      "(SELECT objective IS NOT NULL FROM trials WHERE number = NEW.number) "
      "WHERE state = (SELECT state FROM trials WHERE number = NEW.number);\n{replaced_group}END;\n"
      "CREATE TRIGGER trials_tally_inserted AFTER INSERT ON trials BEGIN\n{add_new}"
      "INSERT INTO param_groups VALUES ({new_key}, 1, NEW.number, {new_spoils}, {new_ranked}, {new_term}, "
      "{new_last}) ON CONFLICT (key) DO UPDATE SET trials = trials + 1, first = min(first, excluded.first), "
      "spoiled = spoiled + excluded.spoiled, completed = completed + excluded.completed, "
      "total = total + excluded.total, last = coalesce(excluded.last, last) "
      "WHERE excluded.last IS NULL OR last IS NULL OR last < excluded.last;\n{resum}END;\n"
      "CREATE TRIGGER trials_tally_updated AFTER UPDATE OF state, objective, params ON trials "
      "WHEN {changed} BEGIN\n{remove_old}{add_new}END;\n"
      // A trial that finishes (or fails, or is pruned) in its group: its objective added.
      "CREATE TRIGGER trials_tally_progressed AFTER UPDATE OF state, objective, params ON trials "
      "WHEN {changed} AND OLD.params IS NEW.params AND NOT {old_ranked} BEGIN\n"
      "UPDATE param_groups SET spoiled = spoiled - {old_spoils} + {new_spoils}, "
      "completed = completed + {new_ranked}, total = total + {new_term}, last = coalesce({new_last}, last) "
      "WHERE key = {new_key} AND NOT ({new_ranked} AND coalesce(last, -1) > NEW.number);\n{resum}END;\n"
      // A summed objective that changes or goes, or a trial that moves: summed again.
      "CREATE TRIGGER trials_tally_regrouped AFTER UPDATE OF state, objective, params ON trials "
      "WHEN {changed} AND (OLD.params IS NOT NEW.params OR {old_ranked}) BEGIN\n"
      "DELETE FROM param_groups WHERE key IN ({old_key}, {new_key});\n{old_missing}{new_missing}END;\n"
      "CREATE TRIGGER trials_tally_deleted AFTER DELETE ON trials BEGIN\n{remove_old}{old_group}END;\n"
      "INSERT INTO trial_tally SELECT state, count(*), count(objective) FROM trials GROUP BY state;\n"
      "INSERT INTO param_groups SELECT {key}, count(*), min(number), sum({spoils}), sum({ranked}), "
      "total(CASE WHEN {ranked} THEN objective END), max(CASE WHEN {ranked} THEN number END) "
      "FROM trials INDEXED BY trials_by_group_key GROUP BY {key};\n",
      fmt::arg("key", key), fmt::arg("spoils", SpoilsGroupSql("")), fmt::arg("ranked", ranked),
      fmt::arg("replaced_group", rebuild(replaced_key, "NEW.number")), fmt::arg("add_new", count("NEW", 1)),
      fmt::arg("remove_old", count("OLD", -1)), fmt::arg("new_key", new_key),
      fmt::arg("new_spoils", SpoilsGroupSql("NEW.")), fmt::arg("old_spoils", SpoilsGroupSql("OLD.")),
      fmt::arg("new_ranked", RankedSql("NEW.")), fmt::arg("old_ranked", RankedSql("OLD.")),
      fmt::arg("new_term", new_term), fmt::arg("new_last", new_last), fmt::arg("resum", resum_out_of_order),
      fmt::arg("changed", changed), fmt::arg("old_group", rebuild(old_key, "NULL")),
      fmt::arg("old_key", old_key), fmt::arg("old_missing", rebuild_if_missing(old_key, "NULL")),
      fmt::arg("new_missing", rebuild_if_missing(new_key, "NULL")));
}

// The read tallies of an earlier layout (before param_groups.last; before `spoiled`),
// dropped to be made again: they are derived, never data.
constexpr std::string_view kDropReadTallies = R"sql(
DROP TRIGGER IF EXISTS trials_tally_kept;
DROP TRIGGER IF EXISTS trials_tally_replaced;
DROP TRIGGER IF EXISTS trials_tally_inserted;
DROP TRIGGER IF EXISTS trials_tally_updated;
DROP TRIGGER IF EXISTS trials_tally_moved;
DROP TRIGGER IF EXISTS trials_tally_progressed;
DROP TRIGGER IF EXISTS trials_tally_regrouped;
DROP TRIGGER IF EXISTS trials_tally_deleted;
DROP TABLE IF EXISTS tally_unchanged;
DROP TABLE IF EXISTS param_groups;
DROP TABLE IF EXISTS trial_tally;
DROP INDEX IF EXISTS trials_by_group_key;
)sql";

// Made once, when a run opens a journal that lacks them (one transaction: they are
// there and whole, or not there).
Status CreateReadTallies(sqlite::Database& db) {
  auto present = [&db]() -> Expected<bool> {
    // Of this layout: the trigger that sums a finished trial into its group.
    GS_ASSIGN_OR_RETURN(auto stmt, db.Prepare("SELECT 1 FROM sqlite_schema WHERE type = 'trigger' "
                                              "AND name = 'trials_tally_progressed'",
                                              "look for the read tallies"));
    return stmt.Step();
  };
  GS_ASSIGN_OR_RETURN(const bool there, present());
  if (there) return {};
  GS_ASSIGN_OR_RETURN(auto txn, sqlite::Transaction::Begin(db, "create the read tallies"));
  GS_ASSIGN_OR_RETURN(const bool there_now, present());  // another writer may have made them
  if (there_now) return txn.Commit();
  GS_TRY(db.Exec(kDropReadTallies, "drop read tallies of an earlier layout"));
  GS_TRY(db.Exec(ReadTalliesSql(), "create the read tallies"));
  return txn.Commit();
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

std::string SpoilsGroupSql(std::string_view row) {
  return fmt::format("({0}state IN ('failed', 'pruned') OR ({0}state = 'completed' AND {0}objective IS NULL))",
                     row);
}

std::string RankedSql(std::string_view row) {
  return fmt::format("({0}state = 'completed' AND {0}objective IS NOT NULL)", row);
}

std::string GroupKeySql(std::string_view params) {
  return fmt::format("(CASE WHEN instr({0}, '\"seed\":') > 0 THEN json_remove({0}, '$.\"seed\"') ELSE {0} END)",
                     params);
}

Status PrepareForWriting(sqlite::Database& db) {
  // Refuse a foreign or newer file before changing anything in it.
  GS_ASSIGN_OR_RETURN(const int version, ReadSchemaVersion(db));
  GS_TRY(RefuseForeignOrNewer(db, version));
  GS_TRY(EnableWal(db));
  // Per connection. FULL syncs the WAL on every commit; NORMAL could lose the last
  // committed results on power loss.
  GS_TRY(db.Exec("PRAGMA synchronous = FULL", "set synchronous=FULL"));
  if (version == kSchemaVersion) {
    GS_TRY(CreateReadIndexes(db));
    return CreateReadTallies(db);
  }

  GS_ASSIGN_OR_RETURN(auto txn, sqlite::Transaction::Begin(db, "create schema"));
  // Re-read under the write lock: another connection may have changed it meanwhile.
  GS_ASSIGN_OR_RETURN(const int locked_version, ReadSchemaVersion(db));
  if (locked_version == kSchemaVersion) {
    GS_TRY(CreateReadIndexes(db));
    GS_TRY(txn.Commit());
    return CreateReadTallies(db);
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
  GS_TRY(txn.Commit());
  return CreateReadTallies(db);
}

Expected<int> CheckSchema(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(const int version, ReadSchemaVersion(db));
  GS_TRY(RefuseUnknownVersion(db, version));
  return version;
}

}  // namespace gpusweep::journal
