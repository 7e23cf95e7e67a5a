// schema.h — the journal's tables and their version (PRAGMA user_version).
//
// Version 1: experiment (one row), trials, results, events.
// Version 2: trials gain bracket, rung and budget; scheduler_events (every call made to
// the scheduler, replayed on resume). A read-write open migrates a version 1 file in one
// transaction; read-only opens read version 1 as it is (no scheduler data).
// Version 3: trials gain job_id (the SLURM job of the attempt; '' for local processes),
// migrated the same way; read-only opens read older files with job_id ''.
// Version 4: trials gain `changed`, the mark of the row's last write (records.h), and
// an index on it; read-only opens of older files read every row as changed. A journal
// whose version is newer than kSchemaVersion was written by a newer gpusweep and is
// refused rather than misread.
#pragma once

#include <string>
#include <string_view>

#include "gpusweep/status.h"
#include "journal/sqlite.h"

namespace gpusweep::journal {

inline constexpr int kSchemaVersion = 4;

// Read-write connections: switches the file to WAL mode, sets synchronous=FULL, and
// creates the tables if the file is new (one transaction). Errors as CheckSchema.
Status PrepareForWriting(sqlite::Database& db);

// The read tallies, kept by triggers beside the trials (not part of the data: like the
// read indexes they are made when a run opens a journal without them, from the rows
// there, in one transaction, so older journals get them at their next run):
// - trial_tally: per state, how many trials and how many of them have an objective;
// - param_groups: per group of trials whose params are equal but for a top-level
//   "seed" (report/groups.h's default grouping; the key is GroupKeySql's text), how
//   many trials, the lowest number, how many spoil its mean (SpoilsGroupSql), how many
//   completed with an objective (RankedSql) and the sum of those objectives (summed in
//   number order, as the grouping scan sums; NULL when it is NaN: +inf and -inf
//   objectives in one group), and `last`, the highest number in that sum: a finish
//   with a higher number is added to it, one with a lower number sums the group again.
//   SQLite's total() sums naively up to 3.42, as the scan does (Debian 12 has 3.40);
//   from 3.43 it compensates, so two groups whose means differ in the last bit could
//   then order differently here and in the scan (`--ignore` other names, a journal
//   without tallies).
// `status`, `best` and the run's summary read them instead of every trial (issue 25:
// at 100,000 trials the count and the grouping were 15 and 60 of `best`'s 60 ms past
// start-up). The triggers need recursive_triggers off, SQLite's default: an INSERT OR
// REPLACE of a trial is then one BEFORE INSERT and one AFTER INSERT, no DELETE.
//
// The grouping key SQL of a params text `params` (an SQL expression): the text with a
// top-level "seed" removed when it holds one, else the text itself.
std::string GroupKeySql(std::string_view params);
// SpoilsItsGroup (gpusweep/trial.h) in SQL, of the row whose columns `row` prefixes
// ("" for the table's, "NEW." or "OLD." in a trigger): 1 or 0.
std::string SpoilsGroupSql(std::string_view row);
// Whether that row is ranked: completed with an objective (a NaN one is stored as
// NULL). 1 or 0.
std::string RankedSql(std::string_view row);

// Read-only connections: the file's schema version (1..kSchemaVersion); Error{kJournal}
// for any other.
Expected<int> CheckSchema(sqlite::Database& db);

}  // namespace gpusweep::journal
