#include "journal/sqlite.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>

namespace gpusweep::sqlite {
namespace {
constexpr int kBusyTimeoutMs = 5000;
}  // namespace

// --- Database ---------------------------------------------------------------

namespace {

// "file:" URI of `path` with immutable=1; characters URIs reserve are %-escaped.
std::string ImmutableUri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || std::strchr("/-._~", c) != nullptr) uri += static_cast<char>(c);
    else uri += fmt::format("%{:02X}", c);
  }
  return uri + "?immutable=1";
}

// The connection's WAL hook (Database::wal_length): the length after each commit, and
// SQLite's automatic checkpoint at the length set.
int CountWalAndCheckpoint(void* length, sqlite3* handle, const char* schema, int frames) {
  auto* wal = static_cast<WalLength*>(length);
  wal->frames.store(frames);
  // As SQLite's default hook: a failed checkpoint is tried again at a later commit.
  if (frames >= wal->checkpoint_at.load())
    sqlite3_wal_checkpoint_v2(handle, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  return SQLITE_OK;
}

}  // namespace

Expected<Database> Database::Open(const std::filesystem::path& path, OpenMode mode) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  std::string name = path.string();
  if (mode == OpenMode::kReadOnly) flags = SQLITE_OPEN_READONLY;
  if (mode == OpenMode::kReadOnlyImmutable) {
    flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    name = ImmutableUri(path);
  }
  sqlite3* handle = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &handle, flags, nullptr);
  // sqlite3_open_v2 allocates a handle even on failure (except out of memory); own it
  // right away so it is closed on every path.
  Database db(handle, path.string());
  if (handle == nullptr) return tl::unexpected(db.MakeError(ErrorCode::kJournal, "open: out of memory"));
  if (rc != SQLITE_OK) return tl::unexpected(db.LastError("open"));
  sqlite3_extended_result_codes(handle, 1);
  // In place of SQLite's autocheckpoint hook (the same checkpoint), counting the length.
  sqlite3_wal_hook(handle, &CountWalAndCheckpoint, db.wal_length_.get());
  if (sqlite3_busy_timeout(handle, kBusyTimeoutMs) != SQLITE_OK)
    return tl::unexpected(db.LastError("set busy timeout"));
  return db;
}

Database::Database(Database&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      compiled_(std::exchange(other.compiled_, {})),
      wal_length_(other.wal_length_) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    Close();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    compiled_ = std::exchange(other.compiled_, {});
    wal_length_ = other.wal_length_;
  }
  return *this;
}

Database::~Database() { Close(); }

void Database::Close() {
  for (auto& [sql, handle] : compiled_) sqlite3_finalize(handle);
  compiled_.clear();
  // sqlite3_close_v2 defers the close until every statement is finalized, so a
  // destruction order mistake cannot leak the connection.
  if (handle_ != nullptr) sqlite3_close_v2(std::exchange(handle_, nullptr));
}

Expected<int> Database::Checkpoint(std::string_view what) {
  // The PRAGMA, not sqlite3_wal_checkpoint_v2: on a connection that has not read the
  // database yet (3.40) the call opens no WAL and returns SQLITE_OK having copied
  // nothing; the PRAGMA reads the schema first. Its row: busy, WAL frames, copied.
  GS_ASSIGN_OR_RETURN(Statement row, Prepare("PRAGMA wal_checkpoint(PASSIVE)", what));
  GS_ASSIGN_OR_RETURN(const bool has_row, row.Step());
  if (!has_row) return 0;
  return row.Int(2) < 0 ? 0 : row.Int(2);
}

Status Database::Exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  if (sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    return tl::unexpected(LastError(what));
  return {};
}

Expected<Statement> Database::Prepare(std::string_view sql, std::string_view what) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(handle_, sql.data(), static_cast<int>(sql.size()), &stmt,
                                    nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return tl::unexpected(LastError(what));
  }
  return Statement(this, stmt, std::string(what));
}

Expected<Statement> Database::PrepareCached(std::string_view sql, std::string_view what) {
  if (auto idle = compiled_.find(sql); idle != compiled_.end()) {
    sqlite3_stmt* handle = idle->second;
    compiled_.erase(idle);
    return Statement(this, handle, std::string(what), std::string(sql));
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(handle_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return tl::unexpected(LastError(what));
  }
  return Statement(this, stmt, std::string(what), std::string(sql));
}

void Database::KeepCompiled(std::string sql, sqlite3_stmt* handle) {
  sqlite3_reset(handle);
  sqlite3_clear_bindings(handle);
  if (handle_ == nullptr || !compiled_.emplace(std::move(sql), handle).second)
    sqlite3_finalize(handle);  // closed meanwhile, or a second copy of the same SQL
}

Status Database::Run(std::string_view sql, std::string_view what) {
  GS_ASSIGN_OR_RETURN(Statement statement, PrepareCached(sql, what));
  return statement.Run();
}

std::int64_t Database::ChangedRows() const { return sqlite3_changes64(handle_); }

Error Database::LastError(std::string_view what) const {
  const char* message = handle_ != nullptr ? sqlite3_errmsg(handle_) : "no connection";
  return Error{ErrorCode::kJournal, fmt::format("{}: {}: {}", path_, what, message)};
}

Error Database::MakeError(ErrorCode code, std::string_view what) const {
  return Error{code, fmt::format("{}: {}", path_, what)};
}

// --- Statement --------------------------------------------------------------

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      handle_(std::exchange(other.handle_, nullptr)),
      what_(std::move(other.what_)),
      cached_sql_(std::exchange(other.cached_sql_, {})),
      bind_error_(std::move(other.bind_error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Release();
    db_ = other.db_;
    handle_ = std::exchange(other.handle_, nullptr);
    what_ = std::move(other.what_);
    cached_sql_ = std::exchange(other.cached_sql_, {});
    bind_error_ = std::move(other.bind_error_);
  }
  return *this;
}

Statement::~Statement() { Release(); }

void Statement::Release() {
  sqlite3_stmt* handle = std::exchange(handle_, nullptr);
  if (handle == nullptr) return;
  if (cached_sql_.empty()) sqlite3_finalize(handle);
  else db_->KeepCompiled(std::exchange(cached_sql_, {}), handle);
}

Statement& Statement::RecordBindResult(int rc) {
  if (rc != SQLITE_OK && !bind_error_) bind_error_ = db_->LastError(what_);
  return *this;
}

Statement& Statement::Bind(int index, std::int64_t value) {
  return RecordBindResult(sqlite3_bind_int64(handle_, index, value));
}

Statement& Statement::Bind(int index, double value) {
  if (std::isnan(value)) return BindNull(index);
  return RecordBindResult(sqlite3_bind_double(handle_, index, value));
}

Statement& Statement::Bind(int index, std::string_view text) {
  return RecordBindResult(sqlite3_bind_text64(handle_, index, text.data(), text.size(),
                                              SQLITE_TRANSIENT, SQLITE_UTF8));
}

Statement& Statement::BindNull(int index) {
  return RecordBindResult(sqlite3_bind_null(handle_, index));
}

Statement& Statement::BindColumn(int index, const Statement& row, int column) {
  return RecordBindResult(sqlite3_bind_value(handle_, index, sqlite3_column_value(row.handle_, column)));
}

Expected<bool> Statement::Step() {
  if (bind_error_) return tl::unexpected(*std::exchange(bind_error_, std::nullopt));
  const int rc = sqlite3_step(handle_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The connection's error message describes this failure; reset afterwards so the
  // statement can be reused (reset would not change the message, but read it first).
  Error error = db_->LastError(what_);
  sqlite3_reset(handle_);
  return tl::unexpected(std::move(error));
}

Status Statement::Run() {
  GS_ASSIGN_OR_RETURN(const bool has_row, Step());
  sqlite3_reset(handle_);
  sqlite3_clear_bindings(handle_);
  if (has_row)
    return tl::unexpected(db_->MakeError(ErrorCode::kJournal, what_ + ": unexpected result row"));
  return {};
}

bool Statement::IsNull(int column) const {
  return sqlite3_column_type(handle_, column) == SQLITE_NULL;
}

std::int64_t Statement::Int64(int column) const { return sqlite3_column_int64(handle_, column); }

double Statement::Double(int column) const { return sqlite3_column_double(handle_, column); }

std::string Statement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(handle_, column));
  if (text == nullptr) return {};
  return std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(handle_, column)));
}

std::string_view Statement::TextView(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(handle_, column));
  if (text == nullptr) return {};
  return std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(handle_, column)));
}

std::optional<std::int64_t> Statement::OptionalInt64(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Int64(column);
}

std::optional<double> Statement::OptionalDouble(int column) const {
  if (IsNull(column)) return std::nullopt;
  return Double(column);
}

// --- Transaction ------------------------------------------------------------

Expected<Transaction> Transaction::Begin(Database& db, std::string_view what, Kind kind) {
  GS_TRY(db.Run(kind == Kind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED",
                fmt::format("{}: begin transaction", what)));
  return Transaction(&db, std::string(what));
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), what_(std::move(other.what_)) {}

Transaction::~Transaction() {
  // Best effort: if ROLLBACK itself fails, SQLite has already rolled back (that is
  // the only way it fails outside a transaction), so there is nothing left to undo.
  if (db_ != nullptr) (void)db_->Run("ROLLBACK", "rollback");
}

Status Transaction::Commit() {
  if (db_ == nullptr)
    return Fail(ErrorCode::kJournal, what_ + ": commit without an open transaction");
  GS_TRY(db_->Run("COMMIT", fmt::format("{}: commit", what_)));
  db_ = nullptr;
  return {};
}

}  // namespace gpusweep::sqlite
