// sqlite.h — small RAII wrappers over SQLite's C API, used only by the journal.
//
// Contract: every failure becomes Error{kJournal, "<db path>: <what>: <sqlite errmsg>"},
// where <what> is the caller's description of the operation ("insert trial 3").
// Database owns one sqlite3 connection, Statement one prepared statement, Transaction
// one open transaction (rolled back by its destructor unless committed). None of them
// is thread-safe; use one connection per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gpusweep/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpusweep::sqlite {

enum class OpenMode {
  kReadWriteCreate,  // creates the file if missing
  kReadOnly,         // fails if the file is missing; every write fails
  // Read-only for a file nobody may change while it is open (a read-only copy): no
  // locks, no -shm file (SQLite's immutable=1). Never use it while a WAL file exists:
  // its commits would be invisible.
  kReadOnlyImmutable,
};

class Statement;

// The write-ahead log of a connection that writes: its length after the connection's
// last commit (frames, one per page), and the length from which a commit checkpoints it
// before returning (SQLite's autocheckpoint: 1000 unless changed). Shared, so that
// another thread can read the length and checkpoint through its own connection.
struct WalLength {
  std::atomic<int> frames{0};
  std::atomic<int> checkpoint_at{1000};
};

class Database {
 public:
  // Opens `path` with a 5 s busy timeout (waits that long for another connection's lock).
  static Expected<Database> Open(const std::filesystem::path& path, OpenMode mode);

  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Runs one or more statements that return no rows the caller needs.
  Status Exec(std::string_view sql, std::string_view what);
  Expected<Statement> Prepare(std::string_view sql, std::string_view what);
  // Prepare for the statements a run repeats for every trial: compiled once per
  // connection and kept; the Statement hands it back (reset, bindings cleared) when it is
  // destroyed. Two Statements of the same `sql` alive at once get two compilations.
  Expected<Statement> PrepareCached(std::string_view sql, std::string_view what);
  // One statement that returns no rows (BEGIN, COMMIT, a PRAGMA), through PrepareCached.
  Status Run(std::string_view sql, std::string_view what);
  // Rows changed by the last INSERT/UPDATE/DELETE on this connection.
  std::int64_t ChangedRows() const;

  // Error{kJournal, "<path>: <what>: <errmsg>"} from the connection's last error.
  Error LastError(std::string_view what) const;
  // Error{code, "<path>: <what>"}, for failures SQLite did not report.
  Error MakeError(ErrorCode code, std::string_view what) const;
  const std::string& path() const { return path_; }

  // This connection's WAL (WalLength); a read-only connection's stays 0.
  const std::shared_ptr<WalLength>& wal_length() const { return wal_length_; }
  // Copies the WAL's committed pages into the database file as far as no reader still
  // needs them (a PASSIVE checkpoint: waits for nobody); how many pages of the WAL are
  // in the database file now (0 without a WAL). Busy (another connection is
  // checkpointing) is no error.
  Expected<int> Checkpoint(std::string_view what);

 private:
  friend class Statement;
  Database(sqlite3* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void Close();
  void KeepCompiled(std::string sql, sqlite3_stmt* handle);

  sqlite3* handle_ = nullptr;
  std::string path_;
  std::map<std::string, sqlite3_stmt*, std::less<>> compiled_;  // PrepareCached's, idle
  std::shared_ptr<WalLength> wal_length_ = std::make_shared<WalLength>();
};

// A prepared statement. Parameter indices and column indices follow SQLite: parameters
// are 1-based (?1, ?2, ...), columns 0-based. Bind() errors are kept and reported by
// the next Step()/Run(), so call sites can bind a row without checking each call.
// A Statement (and a Transaction) points to its Database: the Database must outlive it
// and must not be moved meanwhile.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& Bind(int index, std::int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, std::int64_t{value}); }
  Statement& Bind(int index, double value);  // NaN is stored as NULL
  Statement& Bind(int index, std::string_view text);
  Statement& BindNull(int index);
  // Column `column` of `row`'s current row, as it is (type and value; copied).
  Statement& BindColumn(int index, const Statement& row, int column);
  template <class T>
  Statement& Bind(int index, const std::optional<T>& value) {
    return value ? Bind(index, *value) : BindNull(index);
  }

  // Advances to the next row: true = a row is available, false = done.
  Expected<bool> Step();
  // Steps a statement that returns no rows, then resets it (bindings are cleared)
  // so it can be bound and run again.
  Status Run();

  bool IsNull(int column) const;
  std::int64_t Int64(int column) const;
  int Int(int column) const { return static_cast<int>(Int64(column)); }
  double Double(int column) const;
  std::string Text(int column) const;
  // The same text without a copy: valid until the next Step, Reset or destruction.
  std::string_view TextView(int column) const;
  std::optional<std::int64_t> OptionalInt64(int column) const;
  std::optional<double> OptionalDouble(int column) const;

 private:
  friend class Database;
  Statement(Database* db, sqlite3_stmt* handle, std::string what, std::string cached_sql = {})
      : db_(db), handle_(handle), what_(std::move(what)), cached_sql_(std::move(cached_sql)) {}
  Statement& RecordBindResult(int rc);
  void Release();  // finalizes, or hands a cached statement back to db_

  Database* db_ = nullptr;
  sqlite3_stmt* handle_ = nullptr;
  std::string what_;
  std::string cached_sql_;  // from PrepareCached: its key there; else empty
  std::optional<Error> bind_error_;
};

// BEGIN IMMEDIATE ... COMMIT. IMMEDIATE takes the write lock up front, so a writer never
// fails halfway with SQLITE_BUSY when upgrading from a read. kRead: BEGIN DEFERRED, one
// read snapshot (from the first read to COMMIT; in WAL writers go on meanwhile) that a
// read-only connection can take.
class Transaction {
 public:
  enum class Kind { kWrite, kRead };
  static Expected<Transaction> Begin(Database& db, std::string_view what, Kind kind = Kind::kWrite);

  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();  // rolls back unless Commit() succeeded

  Status Commit();

 private:
  Transaction(Database* db, std::string what) : db_(db), what_(std::move(what)) {}

  Database* db_ = nullptr;  // null once committed or moved from
  std::string what_;
};

}  // namespace gpusweep::sqlite
