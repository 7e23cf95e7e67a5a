// Read-only access, concurrent readers and schema-version checks of the journal.
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "gpusweep/journal.h"
#include "journal/sqlite.h"
#include "journal/test_util.h"

namespace gpusweep {
namespace {

using testing_util::ScratchDir;

TrialRecord SimpleTrial(int number, TrialState state) {
  TrialRecord trial;
  trial.number = number;
  trial.params = {{"lr", 0.1}};
  trial.state = state;
  return trial;
}

class JournalAccessTest : public ::testing::Test {
 protected:
  std::unique_ptr<Journal> MustOpen(JournalAccess access) {
    auto journal = OpenJournal(db_path_, access);
    EXPECT_TRUE(journal) << journal.error().message;
    return journal ? std::move(*journal) : nullptr;
  }

  void SetUserVersion(int version) {
    auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadWriteCreate);
    ASSERT_TRUE(raw) << raw.error().message;
    ASSERT_TRUE(raw->Exec("PRAGMA user_version = " + std::to_string(version), "set version"));
  }

  // A journal of one completed trial, then `downgrade` (SQL) run on it: an older version.
  void WriteOldJournal(const std::string& downgrade) {
    {
      auto writer = MustOpen(JournalAccess::kReadWrite);
      ASSERT_NE(writer, nullptr);
      ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(0, TrialState::kCompleted)));
    }
    auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadWriteCreate);
    ASSERT_TRUE(raw);
    ASSERT_TRUE(raw->Exec(downgrade, "make an older version"));
  }

  ScratchDir dir_;
  std::filesystem::path db_path_ = dir_.path() / kJournalFileName;
};

TEST_F(JournalAccessTest, ReadOnlyOnMissingFileIsNotFoundAndCreatesNothing) {
  auto journal = OpenJournal(db_path_, JournalAccess::kReadOnly);
  ASSERT_FALSE(journal);
  EXPECT_EQ(journal.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(journal.error().message, "no experiment at " + dir_.path().string() + ": " +
                                         db_path_.string() + " does not exist");
  EXPECT_FALSE(std::filesystem::exists(db_path_));
}

TEST_F(JournalAccessTest, ReaderSeesCommitsOfAnOpenWriter) {
  auto writer = MustOpen(JournalAccess::kReadWrite);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(0, TrialState::kRunning)));

  auto reader = MustOpen(JournalAccess::kReadOnly);
  ASSERT_NE(reader, nullptr);
  auto first = reader->LoadTrial(0);
  ASSERT_TRUE(first && first->has_value());
  EXPECT_EQ((*first)->state, TrialState::kRunning);

  // Both stay open; the writer's next commit is visible to the reader's next read.
  ASSERT_TRUE(writer->FinishTrial(SimpleTrial(0, TrialState::kCompleted),
                                  {IntermediateResult{0, 1, 3, 10.0, {{"acc", 0.5}}}}));
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(1, TrialState::kRunning)));
  auto trials = reader->LoadTrials();
  ASSERT_TRUE(trials) << trials.error().message;
  ASSERT_EQ(trials->size(), 2u);
  EXPECT_EQ((*trials)[0].state, TrialState::kCompleted);
  auto results = reader->LoadResults(0);
  ASSERT_TRUE(results);
  EXPECT_EQ(results->size(), 1u);
}

TEST_F(JournalAccessTest, ReaderCannotWrite) {
  {
    auto writer = MustOpen(JournalAccess::kReadWrite);
    ASSERT_NE(writer, nullptr);
  }
  auto reader = MustOpen(JournalAccess::kReadOnly);
  ASSERT_NE(reader, nullptr);
  const Status status = reader->UpsertTrial(SimpleTrial(0, TrialState::kRunning));
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kJournal);
  EXPECT_NE(status.error().message.find("read-only"), std::string::npos);
  EXPECT_FALSE(reader->AppendEvent(1, "x", Json::object()));
  EXPECT_FALSE(reader->AppendResults({IntermediateResult{}}));
  EXPECT_FALSE(reader->CreateExperiment(ExperimentRecord{}));
  auto trials = reader->LoadTrials();
  ASSERT_TRUE(trials);
  EXPECT_TRUE(trials->empty());
}

TEST_F(JournalAccessTest, ReaderOpensAfterWriterClosed) {
  // Closing the last connection checkpoints and removes the -wal/-shm files; a
  // read-only connection must still open the journal then.
  {
    auto writer = MustOpen(JournalAccess::kReadWrite);
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(2, TrialState::kFailed)));
  }
  auto reader = MustOpen(JournalAccess::kReadOnly);
  ASSERT_NE(reader, nullptr);
  auto trial = reader->LoadTrial(2);
  ASSERT_TRUE(trial) << trial.error().message;
  ASSERT_TRUE(trial->has_value());
  EXPECT_EQ((*trial)->state, TrialState::kFailed);
}

TEST_F(JournalAccessTest, NewerSchemaVersionIsRefused) {
  { ASSERT_NE(MustOpen(JournalAccess::kReadWrite), nullptr); }
  SetUserVersion(5);
  for (JournalAccess access : {JournalAccess::kReadWrite, JournalAccess::kReadOnly}) {
    auto journal = OpenJournal(db_path_, access);
    ASSERT_FALSE(journal);
    EXPECT_EQ(journal.error().code, ErrorCode::kJournal);
    EXPECT_NE(journal.error().message.find("schema version 5 is newer"), std::string::npos)
        << journal.error().message;
  }
}

// What version 4 added; older versions are made by removing it too.
constexpr const char* kDropChangeMarks =
    "DROP INDEX trials_by_change; ALTER TABLE trials DROP COLUMN changed; ";

// A version 1 journal (before schedulers): made here by removing what version 2 added.
TEST_F(JournalAccessTest, VersionOneJournalIsReadAndMigratedWithItsTrials) {
  WriteOldJournal(std::string(kDropChangeMarks) +
                  "DROP TABLE scheduler_events; DROP INDEX trials_with_job; "
                  "ALTER TABLE trials DROP COLUMN job_id; "
                  "ALTER TABLE trials DROP COLUMN budget; "
                  "ALTER TABLE trials DROP COLUMN rung; ALTER TABLE trials DROP COLUMN "
                  "bracket; PRAGMA user_version = 1");
  if (HasFatalFailure()) return;
  {
    auto reader = MustOpen(JournalAccess::kReadOnly);
    ASSERT_NE(reader, nullptr);
    auto trials = reader->LoadTrials();
    ASSERT_TRUE(trials) << trials.error().message;
    ASSERT_EQ(trials->size(), 1u);
    EXPECT_EQ(trials->front().state, TrialState::kCompleted);
    EXPECT_FALSE(trials->front().budget.has_value());
    auto events = reader->LoadSchedulerEvents();
    ASSERT_TRUE(events);
    EXPECT_TRUE(events->empty());
  }
  auto writer = MustOpen(JournalAccess::kReadWrite);  // migrates
  ASSERT_NE(writer, nullptr);
  TrialRecord promoted = SimpleTrial(0, TrialState::kRunning);
  promoted.rung = 2;
  promoted.budget = 9;
  SchedulerEventRecord event{0, 5.0, 0, "job_started", Json{{"rung", 2}}};
  ASSERT_TRUE(writer->UpsertTrial(promoted, {event}));
  auto trial = writer->LoadTrial(0);
  ASSERT_TRUE(trial && trial->has_value());
  EXPECT_EQ((*trial)->rung, 2);
  EXPECT_EQ((*trial)->budget, 9.0);
  auto events = writer->LoadSchedulerEvents(0);
  ASSERT_TRUE(events) << events.error().message;
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ(events->front().kind, "job_started");
  EXPECT_EQ(events->front().detail, (Json{{"rung", 2}}));
}

// A version 2 journal (before cluster backends): its trials read with no job id, and a
// read-write open adds the column and keeps the rows.
TEST_F(JournalAccessTest, VersionTwoJournalIsReadAndMigratedToKeepJobIds) {
  WriteOldJournal(std::string(kDropChangeMarks) +
                  "DROP INDEX trials_with_job; ALTER TABLE trials DROP COLUMN job_id; "
                  "PRAGMA user_version = 2");
  if (HasFatalFailure()) return;
  {
    auto reader = MustOpen(JournalAccess::kReadOnly);
    ASSERT_NE(reader, nullptr);
    auto trials = reader->LoadTrials();
    ASSERT_TRUE(trials) << trials.error().message;
    ASSERT_EQ(trials->size(), 1u);
    EXPECT_EQ(trials->front().job_id, "");
  }
  auto writer = MustOpen(JournalAccess::kReadWrite);  // migrates
  ASSERT_NE(writer, nullptr);
  TrialRecord on_cluster = SimpleTrial(1, TrialState::kRunning);
  on_cluster.job_id = "4711";
  ASSERT_TRUE(writer->UpsertTrial(on_cluster));
  auto trials = writer->LoadTrials();
  ASSERT_TRUE(trials) << trials.error().message;
  ASSERT_EQ(trials->size(), 2u);
  EXPECT_EQ((*trials)[0].state, TrialState::kCompleted);
  EXPECT_EQ((*trials)[0].job_id, "");
  EXPECT_EQ((*trials)[1].job_id, "4711");
}

// A version 3 journal (before change marks): read whole at every read by a follower,
// and a read-write open adds the marks; rows from before it count as changed at mark 0.
TEST_F(JournalAccessTest, VersionThreeJournalIsReadWholeAndMigratedToChangeMarks) {
  WriteOldJournal(std::string(kDropChangeMarks) + "PRAGMA user_version = 3");
  if (HasFatalFailure()) return;
  {
    auto reader = MustOpen(JournalAccess::kReadOnly);
    ASSERT_NE(reader, nullptr);
    auto read = reader->LoadTrialsChangedAfter(7);
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_TRUE(read->whole);
    EXPECT_EQ(read->mark, -1);
    ASSERT_EQ(read->trials.size(), 1u);
  }
  auto writer = MustOpen(JournalAccess::kReadWrite);  // migrates
  ASSERT_NE(writer, nullptr);
  auto first = writer->LoadTrialsChangedAfter(-1);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->whole);
  EXPECT_EQ(first->mark, 0);
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(1, TrialState::kRunning)));
  auto next = writer->LoadTrialsChangedAfter(first->mark);
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(next->whole);
  ASSERT_EQ(next->trials.size(), 1u);
  EXPECT_EQ(next->trials[0].number, 1);
  EXPECT_EQ(next->mark, 1);
}

TEST_F(JournalAccessTest, SchedulerEventsKeepTheirOrderAndCommitWithResults) {
  auto writer = MustOpen(JournalAccess::kReadWrite);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(0, TrialState::kRunning)));
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(1, TrialState::kRunning)));
  std::vector<SchedulerEventRecord> events;
  for (int i = 0; i < 4; ++i)
    events.push_back(SchedulerEventRecord{0, 1.0 + i, i % 2, "report", Json{{"i", i}}});
  ASSERT_TRUE(writer->AppendResults({}, events));
  auto all = writer->LoadSchedulerEvents();
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*all)[i].detail["i"], i);
  EXPECT_LT((*all)[0].seq, (*all)[1].seq);
  auto of_one = writer->LoadSchedulerEvents(1);
  ASSERT_TRUE(of_one);
  ASSERT_EQ(of_one->size(), 2u);
  EXPECT_EQ((*of_one)[1].detail["i"], 3);
  auto newer = writer->LoadSchedulerEventsAfter((*all)[1].seq, -1);  // a reader's cursor
  ASSERT_TRUE(newer);
  ASSERT_EQ(newer->size(), 2u);
  EXPECT_EQ((*newer)[0].detail["i"], 2);
  EXPECT_TRUE(writer->LoadSchedulerEventsAfter((*all)[3].seq, -1)->empty());
  auto piece = writer->LoadSchedulerEventsAfter(0, 3);  // at most 3, from the first
  ASSERT_TRUE(piece);
  ASSERT_EQ(piece->size(), 3u);
  EXPECT_EQ(piece->back().detail["i"], 2);
}

TEST_F(JournalAccessTest, ForeignSqliteFileIsRefusedAndLeftAlone) {
  {
    auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadWriteCreate);
    ASSERT_TRUE(raw);
    ASSERT_TRUE(raw->Exec("CREATE TABLE notes (text TEXT)", "create"));
  }
  auto journal = OpenJournal(db_path_, JournalAccess::kReadWrite);
  ASSERT_FALSE(journal);
  EXPECT_NE(journal.error().message.find("not a gpusweep journal"), std::string::npos)
      << journal.error().message;
  auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadOnly);
  ASSERT_TRUE(raw);
  auto mode = raw->Prepare("PRAGMA journal_mode", "mode");
  ASSERT_TRUE(mode);
  ASSERT_EQ(mode->Step(), true);
  EXPECT_EQ(mode->Text(0), "delete");  // not switched to WAL
}

TEST_F(JournalAccessTest, OpeningInMissingDirectoryFails) {
  auto journal = OpenJournal(dir_.path() / "no-such-dir" / kJournalFileName,
                             JournalAccess::kReadWrite);
  ASSERT_FALSE(journal);
  EXPECT_EQ(journal.error().code, ErrorCode::kJournal);
  EXPECT_NE(journal.error().message.find("no-such-dir"), std::string::npos);
}

// A user who may not write the experiment directory (a read-only copy, another user's
// run): as root the test drops to "nobody" in a child, since root writes anywhere.
// Returns how many trials the child could load, or -1 on any failure.
int TrialsSeenByAnotherUser(const std::filesystem::path& db_path) {
  const pid_t child = ::fork();
  if (child == 0) {
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      _exit(200);
    auto journal = OpenJournal(db_path, JournalAccess::kReadOnly);
    if (!journal) {
      fprintf(stderr, "%s\n", journal.error().message.c_str());
      _exit(201);
    }
    auto trials = (*journal)->LoadTrials();
    if (!trials) {
      fprintf(stderr, "%s\n", trials.error().message.c_str());
      _exit(202);
    }
    _exit(static_cast<int>(trials->size()));
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) < 200 ? WEXITSTATUS(status) : -1;
}

// The error another user gets opening `db_path` with TMPDIR=`tmpdir`; "" when it opens,
// "crashed" when the reader died instead of answering.
std::string ErrorSeenByAnotherUser(const std::filesystem::path& db_path, const char* tmpdir) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "no pipe";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::setenv("TMPDIR", tmpdir, 1);
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0))
      _exit(200);
    auto journal = OpenJournal(db_path, JournalAccess::kReadOnly);
    const std::string message = journal ? "" : journal.error().message;
    if (::write(pipe_fds[1], message.data(), message.size()) < 0) _exit(201);
    _exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? message : "crashed";
}

std::vector<std::string> FilesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(JournalAccessTest, ReadOnlyCopyIsReadableByAUserWhoCannotWriteIt) {
  {
    auto writer = MustOpen(JournalAccess::kReadWrite);
    ASSERT_NE(writer, nullptr);
    ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(0, TrialState::kCompleted)));
    ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(1, TrialState::kFailed)));
  }  // closed: SQLite checkpoints and removes the WAL
  ::chmod(db_path_.c_str(), 0444);
  ::chmod(dir_.path().c_str(), 0555);
  const std::vector<std::string> before = FilesIn(dir_.path());
  EXPECT_EQ(TrialsSeenByAnotherUser(db_path_), 2);
  EXPECT_EQ(FilesIn(dir_.path()), before);  // nothing written beside it
  ::chmod(dir_.path().c_str(), 0755);
}

// A live (or killed) run leaves commits in the WAL: a reader who cannot create the -shm
// file must still see them, not just the main file.
TEST_F(JournalAccessTest, ReaderWhoCannotWriteSeesCommitsStillInTheWal) {
  auto raw = sqlite::Database::Open(db_path_, sqlite::OpenMode::kReadWriteCreate);
  ASSERT_TRUE(raw);
  auto writer = MustOpen(JournalAccess::kReadWrite);
  ASSERT_NE(writer, nullptr);
  // The extra connection keeps the WAL from being checkpointed away on close.
  ASSERT_TRUE(raw->Exec("PRAGMA wal_autocheckpoint = 0", "no checkpoints"));
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(0, TrialState::kRunning)));
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(1, TrialState::kRunning)));
  ASSERT_TRUE(writer->UpsertTrial(SimpleTrial(2, TrialState::kRunning)));
  std::filesystem::path wal = db_path_;
  wal += "-wal";
  ASSERT_GT(std::filesystem::file_size(wal), 0u);
  ::chmod(dir_.path().c_str(), 0555);
  EXPECT_EQ(TrialsSeenByAnotherUser(db_path_), 3);
  ::chmod(dir_.path().c_str(), 0755);

  // A copy of it without the -shm file needs a private copy in TMPDIR; a TMPDIR that
  // does not exist is an error that says what to do, not an uncaught exception.
  const std::filesystem::path copy = dir_.path() / "copy";
  std::filesystem::create_directory(copy);
  for (const char* suffix : {"", "-wal"})
    std::filesystem::copy_file(db_path_.string() + suffix,
                               (copy / kJournalFileName).string() + suffix);
  ::chmod(copy.c_str(), 0555);
  const std::string error = ErrorSeenByAnotherUser(copy / kJournalFileName, "/nonexistent-tmp");
  EXPECT_NE(error.find("cannot make a private copy to read"), std::string::npos) << error;
  EXPECT_NE(error.find("set TMPDIR to a directory you can write"), std::string::npos) << error;
  const std::filesystem::path writable_tmp = dir_.path() / "tmp";
  std::filesystem::create_directory(writable_tmp);
  ::chmod(writable_tmp.c_str(), 0777);
  EXPECT_EQ(ErrorSeenByAnotherUser(copy / kJournalFileName, writable_tmp.c_str()), "");
  ::chmod(copy.c_str(), 0755);
}

JournalWrite Write(JournalWrite::Kind kind, const TrialRecord& record) {
  JournalWrite write;
  write.kind = kind;
  write.record = record;
  return write;
}

// A group commit is one transaction: a failing write leaves none of the others.
TEST_F(JournalAccessTest, GroupCommitIsAllOrNothing) {
  auto writer = MustOpen(JournalAccess::kReadWrite);
  ASSERT_NE(writer, nullptr);
  Status applied = writer->Apply({Write(JournalWrite::Kind::kUpsertTrial,
                                        SimpleTrial(0, TrialState::kRunning)),
                                  Write(JournalWrite::Kind::kFinishTrial,
                                        SimpleTrial(7, TrialState::kCompleted))});
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(writer->LoadTrials().value().empty());
}

// kAtSync: visible to readers (and safe from a kill -9) at once; SyncLater's call,
// made on another thread, is the fsync.
TEST_F(JournalAccessTest, DeferredSyncCommitIsVisibleAtOnceAndSyncsLater) {
  auto writer = MustOpen(JournalAccess::kReadWrite);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Apply({Write(JournalWrite::Kind::kUpsertTrial,
                                   SimpleTrial(0, TrialState::kRunning)),
                             Write(JournalWrite::Kind::kFinishTrial,
                                   SimpleTrial(0, TrialState::kCompleted))},
                            Durability::kAtSync));
  auto reader = MustOpen(JournalAccess::kReadOnly);
  auto trial = reader->LoadTrial(0);
  ASSERT_TRUE(trial && *trial);
  EXPECT_EQ((*trial)->state, TrialState::kCompleted);
  auto sync = writer->SyncLater();
  ASSERT_TRUE(sync);
  Status synced;
  std::thread([&] { synced = (*sync)(); }).join();
  EXPECT_TRUE(synced) << synced.error().message;
  EXPECT_TRUE(writer->Sync());  // nothing left: a no-op
}

}  // namespace
}  // namespace gpusweep
