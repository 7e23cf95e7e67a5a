// trial_sql.h — module-internal: the SQLite journal's counting, ranking and grouping
// reads (Journal::CountTrials, QueryTrials, RankTrialGroups in gpusweep/journal.h) as
// queries that return only what they are asked for: an aggregate row, ORDER BY ...
// LIMIT, GROUP BY. `version` is the file's schema version (1 and 2 have no job ids);
// `trial_columns` the column list that reads a TrialRecord of it (records.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpusweep/journal.h"
#include "journal/sqlite.h"

namespace gpusweep::journal {

Expected<TrialCounts> SqlCountTrials(sqlite::Database& db, int version);
// Journal::SumPrunedProgress; nullopt when `resource` holds a '"' (as below).
Expected<std::optional<EarlyStoppingSavings>> SqlSumPrunedProgress(
    sqlite::Database& db, const std::string& resource, double max_resource);
// The rows of `query`, each handed to `visit` as it is stepped (ForEachTrial).
Status SqlForEachTrial(sqlite::Database& db, std::string_view trial_columns,
                       const TrialQuery& query, const Journal::TrialVisitor& visit);
// nullopt when some ignored name cannot be written as an SQLite JSON path (it holds a
// '"'): the caller computes the groups another way.
Expected<std::optional<TrialGroupRanking>> SqlRankTrialGroups(sqlite::Database& db,
                                                              const std::vector<std::string>& ignored,
                                                              Mode mode, int limit);

// Journal::LoadRankingRows; nullopt when a metric name holds a '"' (as above).
Expected<std::optional<RankingRows>> SqlLoadRankingRows(
    sqlite::Database& db, const std::vector<std::string>& metrics);

// nullopt when a name of `path` holds a '"' (as above).
Expected<std::optional<bool>> SqlEveryTrialHas(sqlite::Database& db,
                                               const std::vector<std::string>& path,
                                               const Json& value);

}  // namespace gpusweep::journal
