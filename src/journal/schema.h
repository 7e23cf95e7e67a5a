// schema.h — the journal's tables and their version (PRAGMA user_version).
//
// Version 1: experiment (one row), trials, results, events. A journal whose version is
// newer than kSchemaVersion was written by a newer gpusweep and is refused rather than
// misread; older versions would be migrated here.
#pragma once

#include "gpusweep/status.h"
#include "journal/sqlite.h"

namespace gpusweep::journal {

inline constexpr int kSchemaVersion = 1;

// Read-write connections: switches the file to WAL mode, sets synchronous=FULL, and
// creates the tables if the file is new (one transaction). Errors as CheckSchema.
Status PrepareForWriting(sqlite::Database& db);

// Read-only connections: Error{kJournal} unless the file holds schema kSchemaVersion.
Status CheckSchema(sqlite::Database& db);

}  // namespace gpusweep::journal
