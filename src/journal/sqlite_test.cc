#include "journal/sqlite.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "journal/test_util.h"

namespace gpusweep::sqlite {
namespace {

using testing_util::ScratchDir;

class JournalSqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(path_, OpenMode::kReadWriteCreate);
    ASSERT_TRUE(db) << db.error().message;
    db_.emplace(std::move(*db));
    ASSERT_TRUE(db_->Exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT)", "create"));
  }

  Expected<std::int64_t> Count() {
    GS_ASSIGN_OR_RETURN(auto stmt, db_->Prepare("SELECT count(*) FROM t", "count"));
    GS_TRY(stmt.Step());
    return stmt.Int64(0);
  }

  ScratchDir dir_;
  std::filesystem::path path_ = dir_.path() / "test.db";
  std::optional<Database> db_;
};

TEST_F(JournalSqliteTest, BindsAndReadsEveryType) {
  auto insert = db_->Prepare("INSERT INTO t VALUES (?1, ?2, ?3)", "insert");
  ASSERT_TRUE(insert);
  insert->Bind(1, std::int64_t{1} << 40).Bind(2, 2.5).Bind(3, std::string_view("a\0b", 3));
  ASSERT_TRUE(insert->Run());
  // Run() reset the statement and cleared bindings: a second row of NULLs.
  ASSERT_TRUE(insert->Run());

  auto select = db_->Prepare("SELECT i, d, s FROM t ORDER BY rowid", "select");
  ASSERT_TRUE(select);
  ASSERT_EQ(select->Step(), true);
  EXPECT_EQ(select->Int64(0), std::int64_t{1} << 40);
  EXPECT_EQ(select->Double(1), 2.5);
  EXPECT_EQ(select->Text(2), std::string("a\0b", 3));
  ASSERT_EQ(select->Step(), true);
  EXPECT_TRUE(select->IsNull(0));
  EXPECT_EQ(select->OptionalInt64(0), std::nullopt);
  EXPECT_EQ(select->OptionalDouble(1), std::nullopt);
  ASSERT_EQ(select->Step(), false);
}

TEST_F(JournalSqliteTest, NanIsStoredAsNullAndOptionalsBindNull) {
  auto insert = db_->Prepare("INSERT INTO t (i, d) VALUES (?1, ?2)", "insert");
  ASSERT_TRUE(insert);
  insert->Bind(1, std::optional<int>()).Bind(2, std::numeric_limits<double>::quiet_NaN());
  ASSERT_TRUE(insert->Run());
  auto select = db_->Prepare("SELECT typeof(i), typeof(d) FROM t", "select");
  ASSERT_TRUE(select);
  ASSERT_EQ(select->Step(), true);
  EXPECT_EQ(select->Text(0), "null");
  EXPECT_EQ(select->Text(1), "null");
}

TEST_F(JournalSqliteTest, ErrorsNamePathOperationAndSqliteMessage) {
  auto bad = db_->Prepare("SELECT nope FROM t", "load things");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kJournal);
  EXPECT_EQ(bad.error().message, path_.string() + ": load things: no such column: nope");
}

TEST_F(JournalSqliteTest, BindErrorIsReportedByStep) {
  auto insert = db_->Prepare("INSERT INTO t (i) VALUES (?1)", "insert row");
  ASSERT_TRUE(insert);
  insert->Bind(7, 1);  // out of range
  const Status status = insert->Run();
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("insert row: column index out of range"),
            std::string::npos)
      << status.error().message;
  EXPECT_EQ(Count(), std::int64_t{0});
}

TEST_F(JournalSqliteTest, CachedStatementsAreReusedResetAndNameTheirCaller) {
  const std::string sql = "INSERT INTO t (i) VALUES (?1)";
  for (int i = 0; i < 3; ++i) {
    auto insert = db_->PrepareCached(sql, "insert");
    ASSERT_TRUE(insert) << insert.error().message;
    insert->Bind(1, i);
    ASSERT_TRUE(insert->Run());
  }
  {
    // A step left half-done is reset when the statement goes back; bindings are cleared.
    auto select = db_->PrepareCached("SELECT i FROM t ORDER BY i", "select");
    ASSERT_TRUE(select);
    auto row = select->Step();
    ASSERT_TRUE(row && *row);
  }
  auto select = db_->PrepareCached("SELECT i FROM t ORDER BY i", "select again");
  ASSERT_TRUE(select);
  auto row = select->Step();
  ASSERT_TRUE(row && *row);
  EXPECT_EQ(select->Int64(0), 0);  // from the first row again
  // Two of the same SQL at once are two statements; both work.
  auto first = db_->PrepareCached(sql, "first");
  auto second = db_->PrepareCached(sql, "second");
  ASSERT_TRUE(first && second);
  first->Bind(1, 10);
  second->Bind(1, 11);
  ASSERT_TRUE(first->Run());
  ASSERT_TRUE(second->Run());
  auto count = Count();
  ASSERT_TRUE(count);
  EXPECT_EQ(*count, 5);
  // Errors name the caller of this use, not of the first.
  ASSERT_TRUE(db_->Exec("CREATE UNIQUE INDEX u ON t (i)", "index"));
  auto duplicate = db_->PrepareCached(sql, "insert trial 7");
  ASSERT_TRUE(duplicate);
  duplicate->Bind(1, 10);
  const Status run = duplicate->Run();
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message.find("insert trial 7"), std::string::npos) << run.error().message;
  EXPECT_TRUE(db_->Run("PRAGMA synchronous = NORMAL", "pragma"));
}

TEST_F(JournalSqliteTest, TransactionRollsBackUnlessCommitted) {
  {
    auto txn = Transaction::Begin(*db_, "first");
    ASSERT_TRUE(txn);
    ASSERT_TRUE(db_->Exec("INSERT INTO t (i) VALUES (1)", "insert"));
  }
  EXPECT_EQ(Count(), std::int64_t{0});
  {
    auto txn = Transaction::Begin(*db_, "second");
    ASSERT_TRUE(txn);
    ASSERT_TRUE(db_->Exec("INSERT INTO t (i) VALUES (1)", "insert"));
    ASSERT_TRUE(txn->Commit());
  }
  EXPECT_EQ(Count(), std::int64_t{1});
}

TEST_F(JournalSqliteTest, ReadOnlyConnectionCannotWrite) {
  auto reader = Database::Open(path_, OpenMode::kReadOnly);
  ASSERT_TRUE(reader) << reader.error().message;
  const Status status = reader->Exec("INSERT INTO t (i) VALUES (1)", "insert");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("readonly"), std::string::npos) << status.error().message;
  EXPECT_EQ(Count(), std::int64_t{0});
}

TEST_F(JournalSqliteTest, ReadOnlyOpenOfMissingFileFails) {
  auto reader = Database::Open(dir_.path() / "missing.db", OpenMode::kReadOnly);
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code, ErrorCode::kJournal);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "missing.db"));
}

// A connection counts its WAL's length after each commit and checkpoints it itself from
// `checkpoint_at`; another connection, fresh, checkpoints what is there (a fresh one that
// had not read the database copied nothing, the first time this was written).
TEST_F(JournalSqliteTest, TheWalIsCountedAndAnotherConnectionCheckpointsIt) {
  ASSERT_TRUE(db_->Exec("PRAGMA journal_mode = WAL", "wal"));
  db_->wal_length()->checkpoint_at.store(1000000);  // never by the writer
  const std::string page(3000, 'x');  // about a page a row
  for (int i = 0; i < 50; ++i) {
    auto insert = db_->Prepare("INSERT INTO t (s) VALUES (?1)", "insert");
    ASSERT_TRUE(insert);
    insert->Bind(1, page);
    ASSERT_TRUE(insert->Run());
  }
  EXPECT_GE(db_->wal_length()->frames.load(), 50);
  const auto before = std::filesystem::file_size(path_);
  auto other = Database::Open(path_, OpenMode::kReadWriteCreate);
  ASSERT_TRUE(other) << other.error().message;
  auto copied = other->Checkpoint("checkpoint");
  ASSERT_TRUE(copied) << copied.error().message;
  EXPECT_GE(*copied, 50);
  EXPECT_GT(std::filesystem::file_size(path_), before + 50 * 3000);
  EXPECT_EQ(other->wal_length()->frames.load(), 0);  // it committed nothing
}

}  // namespace
}  // namespace gpusweep::sqlite
