// journal.h — the experiment's durable record and its single-writer lock.
//
// Contract: an experiment directory holds
//   gpusweep.db    the journal: SQLite in WAL mode with synchronous=FULL, so a state
//                  change that returned success survives a crash or power loss. Every
//                  state change is one transaction: readers see all of it or none.
//   gpusweep.lock  held (flock) by the one gpusweep process that runs the experiment.
// One process writes (the lock holder); any number of readers (status, export) may open
// the journal read-only while it runs and see each committed change. A Journal object
// is not thread-safe: use it from one thread, or open one per thread.
// Errors: Error{kJournal, "<db path>: <operation>: <sqlite message>"} unless noted.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/experiment_files.h"  // kJournalFileName, the lock's path
#include "gpusweep/json.h"
#include "gpusweep/metric.h"  // Mode
#include "gpusweep/status.h"
#include "gpusweep/trial.h"

namespace gpusweep {

// What an experiment was created from; written once, checked on resume.
struct ExperimentRecord {
  std::string name;
  std::string config_path;  // absolute path of the YAML as given at creation
  std::string config_yaml;  // file content as given
  Json identity;            // ConfigIdentity() at creation (see config.h), for resume checks
  double created_time = 0;  // Unix seconds
};

// One call made to the scheduler (see scheduler.h), journaled so that a resumed
// experiment replays them in order. `kind`: "job_started", "report", "job_finished",
// "job_interrupted"; `detail`: the call's arguments and its decision as JSON (the run
// module defines the fields). `seq` is assigned by the journal (increasing).
struct SchedulerEventRecord {
  std::int64_t seq = 0;
  double time = 0;  // Unix seconds
  int trial = 0;
  std::string kind;
  Json detail = Json::object();
};

// One intermediate result reduced to one reported number, for readers that follow a
// run (the web dashboard's learning curves): LoadMetricPoints.
struct MetricPoint {
  std::int64_t cursor = 0;  // position in the journal's append order (increasing, > 0)
  int trial = 0;
  int attempt = 1;
  std::int64_t step = 0;
  std::optional<double> value;  // nullopt when the result lacks the key or it is no number
};

// The trials written since a reader last read them: Journal::LoadTrialsChangedAfter.
struct ChangedTrials {
  std::vector<TrialRecord> trials;  // by number
  // Pass it as `after` next time. -1 when the journal keeps no marks (then every read is
  // whole).
  std::int64_t mark = -1;
  // `trials` is every trial (the first read, or a journal without marks): the reader
  // replaces what it holds rather than merging.
  bool whole = true;
};

// Which trials QueryTrials reads, in which order, how many.
struct TrialQuery {
  enum class Order {
    kNumber,            // ascending trial number
    kNumberDescending,  // the latest first
    kObjective,         // RanksBefore(mode) on the recorded objective (missing last), ties
                        // to the lower number: report's StatusSort::kObjective
  };
  Order order = Order::kNumber;
  Mode mode = Mode::kMax;           // kObjective's direction
  std::optional<TrialState> state;  // only trials in this state
  bool ranked_only = false;         // only completed trials with an objective (RankTrials)
  int limit = 0;                    // > 0: at most this many rows
};

// One group of trials whose params are equal apart from some ignored top-level names
// (report/groups.h has the rule), as RankTrialGroups reads it.
struct TrialGroupRow {
  std::string key;           // compact JSON text of the params minus the ignored names
  std::vector<int> numbers;  // its trials, ascending
  int completed = 0;         // completed with an objective
  std::optional<double> mean;  // of those objectives; nullopt when none
};
struct TrialGroupRanking {
  int groups = 0;         // how many groups there are
  bool repeats = false;   // some group holds more than one trial
  std::vector<TrialGroupRow> top;  // the best `limit`, ranked as GroupTrials ranks
};

enum class JournalAccess { kReadWrite, kReadOnly };

// When a group commit must be on disk: kNow (fsync before Apply returns, as every
// single call does) or kAtSync (written to the WAL, so a kill -9 of gpusweep loses
// nothing; on disk, safe from a power cut, only after the next Sync()).
enum class Durability { kNow, kAtSync };

// One state change of a group commit (Journal::Apply); the fields each kind uses are
// those of the method of the same name, which is this write as a one-entry batch.
struct JournalWrite {
  enum class Kind { kUpsertTrial, kFinishTrial, kAppendResults, kAppendEvent };
  static JournalWrite Upsert(const TrialRecord& record,
                             const std::vector<SchedulerEventRecord>& events = {});
  static JournalWrite Finish(const TrialRecord& record,
                             const std::vector<IntermediateResult>& results,
                             const std::vector<SchedulerEventRecord>& events = {});
  static JournalWrite Results(const std::vector<IntermediateResult>& results,
                              const std::vector<SchedulerEventRecord>& events = {});
  static JournalWrite Event(double time, std::string_view kind, const Json& detail);

  Kind kind = Kind::kAppendResults;
  TrialRecord record;                        // kUpsertTrial, kFinishTrial
  std::vector<IntermediateResult> results;   // kFinishTrial, kAppendResults
  std::vector<SchedulerEventRecord> events;  // kUpsertTrial, kFinishTrial, kAppendResults
  double time = 0;                           // kAppendEvent
  std::string event_kind;                    // kAppendEvent
  Json detail;                               // kAppendEvent
};

class Journal {
 public:
  virtual ~Journal() = default;

  // Writes the experiment row. Error{kJournal} if the journal already has one.
  virtual Status CreateExperiment(const ExperimentRecord& experiment) = 0;
  // nullopt when CreateExperiment was never called on this journal.
  virtual Expected<std::optional<ExperimentRecord>> LoadExperiment() = 0;

  // The single-change writes below are one-entry batches of Apply, durable before they
  // return (as LevelDB's Put is a one-entry WriteBatch): the journal has one write path,
  // and a decorator or a fake overrides Apply alone.
  //
  // Inserts trial `record.number`, or replaces every field of it (a re-run after an
  // interruption or a promotion, with attempt + 1), and appends `events`, in ONE
  // transaction. Intermediate results of older attempts are kept; each carries its
  // attempt.
  Status UpsertTrial(const TrialRecord& record,
                     const std::vector<SchedulerEventRecord>& events = {}) {
    return Apply({JournalWrite::Upsert(record, events)});
  }
  // Records the end state of trial `record.number` (state, end_time, exit_code,
  // term_signal, failure_reason, objective, last_metrics; other fields are left as
  // upserted) and appends `results` and `events`, in ONE transaction. Error{kNotFound}
  // if the trial was never upserted (nothing is written then).
  Status FinishTrial(const TrialRecord& record, const std::vector<IntermediateResult>& results,
                     const std::vector<SchedulerEventRecord>& events = {}) {
    return Apply({JournalWrite::Finish(record, results, events)});
  }
  // Appends intermediate results and scheduler events, all in one transaction. Both
  // empty: does nothing.
  Status AppendResults(const std::vector<IntermediateResult>& results,
                       const std::vector<SchedulerEventRecord>& events = {}) {
    if (results.empty() && events.empty()) return {};
    return Apply({JournalWrite::Results(results, events)});
  }
  // Scheduler events in the order they were appended (seq); only trial `trial`'s when
  // given. A version 1 journal has none.
  virtual Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEvents(
      std::optional<int> trial = std::nullopt) = 0;
  // Scheduler events with seq > `after_seq`, in seq order: what a reader following a
  // run (the dashboard's rung lines) has not seen yet, without re-reading the rest. At
  // most `limit` (< 0: all): a reader of 150,000 events (a 100,000-trial ASHA sweep, a
  // JSON object each) takes them in pieces rather than 200 MB at once.
  // This default filters LoadSchedulerEvents(); the SQLite journal asks SQLite.
  virtual Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEventsAfter(
      std::int64_t after_seq, std::int64_t limit) {
    auto events = LoadSchedulerEvents();
    if (!events) return events;
    std::erase_if(*events, [after_seq](const auto& e) { return e.seq <= after_seq; });
    if (limit >= 0 && events->size() > static_cast<std::size_t>(limit)) events->resize(limit);
    return events;
  }

  // Every trial, ordered by number.
  virtual Expected<std::vector<TrialRecord>> LoadTrials() = 0;
  virtual Expected<std::optional<TrialRecord>> LoadTrial(int number) = 0;
  // The trials upserted or finished after mark `after` (< 0: every trial, `whole`), each
  // whole, by number, and the mark to pass next time: a reader following a run (the
  // dashboard) reads what a commit wrote, not 100,000 rows per commit (issue 25). Rows
  // are never deleted, so a merge by number is the journal's state. The SQLite journal
  // keeps a mark per row from schema version 4 on (journal/schema.h); this default, and
  // an older file, answer every trial, whole.
  virtual Expected<ChangedTrials> LoadTrialsChangedAfter(std::int64_t after);
  // Intermediate results of one trial (all attempts), ordered by attempt, step, then
  // the order they were appended.
  virtual Expected<std::vector<IntermediateResult>> LoadResults(int trial) = 0;
  // Every trial's intermediate results appended after `after_cursor` (0: from the
  // first), in append order, each reduced to the number under its top-level `key`.
  // The key is extracted inside SQLite (its JSON functions), so a reader polling a
  // 200,000-row journal with the last cursor it saw reads only the new rows. At most
  // `limit` rows: a reader of 2,000,000 takes them in pieces (each the cursor of the last
  // it got), never holding them all at once.
  virtual Expected<std::vector<MetricPoint>> LoadMetricPoints(std::string_view key,
                                                              std::int64_t after_cursor,
                                                              std::int64_t limit) = 0;

  // Reads that cost what they return (issue 25: status and best on 100,000 trials).
  // The defaults compute them from LoadTrials(); the SQLite journal asks SQLite (an
  // aggregate, ORDER BY ... LIMIT, GROUP BY), and journal_test checks both agree.
  virtual Expected<TrialCounts> CountTrials();
  // What early stopping saved over every trial (AddPrunedTrial's rule, gpusweep/trial.h;
  // `status`'s Stopped line) as one aggregate: an ASHA experiment's status of 100,000
  // trials read them all. The default adds up LoadTrials(); the SQLite journal asks
  // SQLite, and slice_test holds the two to the same text.
  virtual Expected<EarlyStoppingSavings> SumPrunedProgress(const std::string& resource,
                                                           double max_resource);
  virtual Expected<std::vector<TrialRecord>> QueryTrials(const TrialQuery& query);
  // Groups of trials with equal params minus the top-level names `ignored`, ranked: groups
  // with a mean first; among them those whose completed count is the largest any group
  // has; then by mean (mode); ties to the group whose first trial is lower. The best
  // `limit` are returned (<= 0: all). Grouping compares the params' compact JSON text, as
  // report's GroupTrials does. A mean that ties to the last bit may rank differently
  // here and there (SQLite sums in its own order).
  virtual Expected<TrialGroupRanking> RankTrialGroups(const std::vector<std::string>& ignored,
                                                      Mode mode, int limit);

  // Streamed reads (issue 25: an export of 100,000 trials in constant memory): the rows
  // QueryTrials(query) returns, and every trial's intermediate results (by trial, then
  // LoadResults' order), handed to `visit` one at a time as they are read, none kept.
  // A visit's error stops the walk and is returned. The defaults walk what
  // QueryTrials/LoadResults return; the SQLite journal steps one statement.
  using TrialVisitor = std::function<Status(const TrialRecord&)>;
  using ResultVisitor = std::function<Status(const IntermediateResult&)>;
  virtual Status ForEachTrial(const TrialQuery& query, const TrialVisitor& visit);
  // The numbers of the trials in `state`, ascending, without reading the trials (the
  // SQLite journal walks its index on state): what a resumed run need not check again.
  virtual Expected<std::vector<int>> TrialNumbers(TrialState state);
  // The completed trials as a Pareto ranking reads them (RankingRows): `metrics` are
  // top-level names in last_metrics (issue 25: the front of 100,000 trials without
  // parsing every trial's JSON or holding its record).
  virtual Expected<RankingRows> LoadRankingRows(const std::vector<std::string>& metrics);
  virtual Status ForEachResult(const ResultVisitor& visit);
  // Runs `reads` in one read snapshot, so several passes over the journal see the same
  // rows although a live run commits between them (SQLite: a deferred BEGIN ... COMMIT
  // on this connection; the default just runs them). Not nested.
  virtual Status InSnapshot(const std::function<Status()>& reads) { return reads(); }

  // Whether every trial's params hold `value` under `path` (a top-level name, then the
  // names of the nested objects it leads through); false without trials. What tells a
  // param constant (report's Constants) without reading every trial. The SQLite journal
  // compares JSON types too: 2 and 2.0 differ there, not here.
  virtual Expected<bool> EveryTrialHas(const std::vector<std::string>& path, const Json& value);

  // A number that changes whenever another connection commits to the journal (SQLite's
  // PRAGMA data_version): a reader polling a running experiment re-reads only then.
  virtual Expected<std::int64_t> DataVersion() = 0;

  // Group commit: every write, in order, in ONE transaction (one fsync), with the same
  // meaning as the single calls; all of them or none are durable. Empty: does nothing.
  // Errors as the single calls; on error nothing is written.
  virtual Status Apply(const std::vector<JournalWrite>& writes,
                       Durability durability = Durability::kNow) = 0;
  // Makes every kAtSync commit so far durable (fdatasync of the WAL: what
  // synchronous=FULL does at commit). No-op when there is none.
  virtual Status Sync() = 0;
  // The same, as a call that may run on another thread while this journal goes on
  // (it syncs a duplicate of the WAL's descriptor); the commits it covers are those
  // made before SyncLater returned. A journal may do more of its upkeep there (the
  // SQLite journal checkpoints its WAL).
  virtual Expected<std::function<Status()>> SyncLater() = 0;

  // Appends a free-form event (kind e.g. "resumed", "interrupted"; time in Unix
  // seconds; detail any JSON) to the experiment's log (a one-entry Apply).
  Status AppendEvent(double time, std::string_view kind, const Json& detail) {
    return Apply({JournalWrite::Event(time, kind, detail)});
  }
  // The details of the events of `kind`, in the order they were appended.
  virtual Expected<std::vector<Json>> LoadEvents(std::string_view kind) = 0;
};

// Opens the journal at `db_path` (normally <experiment dir>/gpusweep.db).
// kReadWrite creates the file and schema if missing (the directory must exist).
// kReadOnly never writes; every write method fails with Error{kJournal}.
// kReadWrite migrates a journal of an older schema version in place (one transaction).
// Errors: kReadOnly on a missing file: Error{kNotFound, "no experiment at <dir>: <db>
// does not exist"}; a journal written by a newer gpusweep (schema version > 2) or a
// file that is not a gpusweep journal: Error{kJournal} saying so.
Expected<std::unique_ptr<Journal>> OpenJournal(const std::filesystem::path& db_path,
                                               JournalAccess access);

// For torture tests: `journal` with every write and fsync delayed by `seconds`, as on
// a slow disk, so that a kill lands mid-commit more often. seconds <= 0: unchanged.
std::unique_ptr<Journal> WithSlowDisk(std::unique_ptr<Journal> journal, double seconds);

// Exclusive lock on an experiment directory, held while a sweep runs it:
// flock(LOCK_EX|LOCK_NB) on <dir>/gpusweep.lock, whose content is the holder's pid.
// The fd is O_CLOEXEC, so trial processes never inherit it, and the kernel releases
// the lock when the holder dies in any way (kill -9 included): there are no stale
// locks to clean up. (A fork() child that does not exec would share the lock.)
// Move-only; the destructor releases the lock.
class ExperimentLock {
 public:
  // Creates <experiment_dir>/gpusweep.lock if missing (the directory must exist).
  // Errors: Error{kAlreadyRunning, "experiment <dir> is already running (pid N); wait
  // for it or stop it"} when another holder has it (also another ExperimentLock in this
  // process); Error{kIo} when the file cannot be opened, locked or written.
  static Expected<ExperimentLock> Acquire(const std::filesystem::path& experiment_dir);

  ExperimentLock(ExperimentLock&& other) noexcept;
  ExperimentLock& operator=(ExperimentLock&& other) noexcept;
  ExperimentLock(const ExperimentLock&) = delete;
  ExperimentLock& operator=(const ExperimentLock&) = delete;
  ~ExperimentLock();

  const std::filesystem::path& path() const { return path_; }  // <dir>/gpusweep.lock

  // Whether some process holds the experiment's lock now (a run is live). Probes with a
  // non-blocking shared flock that it drops at once; a run starting in that instant
  // sees "already running (pid unknown)", so use it for reports, not in loops.
  static bool IsHeld(const std::filesystem::path& experiment_dir);

 private:
  ExperimentLock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  void Release();

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace gpusweep
