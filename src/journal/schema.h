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

#include "gpusweep/status.h"
#include "journal/sqlite.h"

namespace gpusweep::journal {

inline constexpr int kSchemaVersion = 4;

// Read-write connections: switches the file to WAL mode, sets synchronous=FULL, and
// creates the tables if the file is new (one transaction). Errors as CheckSchema.
Status PrepareForWriting(sqlite::Database& db);

// Read-only connections: the file's schema version (1..kSchemaVersion); Error{kJournal}
// for any other.
Expected<int> CheckSchema(sqlite::Database& db);

}  // namespace gpusweep::journal
