#include "journal/trial_sql.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "journal/records.h"

namespace gpusweep::journal {
namespace {

// A completed trial with an objective (a NaN objective is stored as NULL).
constexpr std::string_view kSqlRanked = "(state = 'completed' AND objective IS NOT NULL)";

// "1,5,3" (group_concat, any order) as ascending numbers.
std::vector<int> SqlNumberList(std::string_view text) {
  std::vector<int> numbers;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int n = 0;
    auto [next, error] = std::from_chars(p, end, n);
    if (error != std::errc()) break;
    numbers.push_back(n);
    if (next == end || *next != ',') break;
    p = next + 1;
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

}  // namespace

Expected<TrialCounts> SqlCountTrials(sqlite::Database& db, int version) {
  GS_ASSIGN_OR_RETURN(
      auto row,
      db.Prepare(fmt::format("SELECT count(*), total(state = 'completed'), total(state = 'running'), "
                             "total(state = 'failed'), total(state = 'interrupted'), "
                             "total(state = 'pruned'), total(state = 'paused'), total{}, "
                             "coalesce(max(repeat > 0), 0), {} FROM trials",
                             kSqlRanked, version >= 3 ? "coalesce(max(job_id <> ''), 0)" : "0"),
                 "count trials"));
  GS_ASSIGN_OR_RETURN(const bool has_row, row.Step());
  TrialCounts c;
  if (!has_row) return c;
  c.recorded = row.Int(0);
  c.completed = static_cast<int>(row.Double(1));
  c.running = static_cast<int>(row.Double(2));
  c.failed = static_cast<int>(row.Double(3));
  c.interrupted = static_cast<int>(row.Double(4));
  c.pruned = static_cast<int>(row.Double(5));
  c.paused = static_cast<int>(row.Double(6));
  c.ranked = static_cast<int>(row.Double(7));
  c.repeats = row.Int(8) != 0;
  c.jobs = row.Int(9) != 0;
  return c;
}

Status SqlForEachTrial(sqlite::Database& db, std::string_view trial_columns,
                       const TrialQuery& query, const Journal::TrialVisitor& visit) {
  std::vector<std::string> where;
  if (query.state) where.push_back("state = ?1");
  if (query.ranked_only) where.emplace_back(kSqlRanked);
  std::string order = "number";
  if (query.order == TrialQuery::Order::kNumberDescending) order = "number DESC";
  if (query.order == TrialQuery::Order::kObjective)  // missing values last, ties by number
    order = fmt::format("objective IS NULL, objective {}, number",
                        query.mode == Mode::kMax ? "DESC" : "ASC");
  const std::string sql = fmt::format(
      "SELECT {} FROM trials {}{} ORDER BY {} LIMIT ?2", trial_columns,
      where.empty() ? "" : "WHERE ", fmt::join(where, " AND "), order);
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(sql, "query trials"));
  if (query.state) rows.Bind(1, ToString(*query.state));
  rows.Bind(2, query.limit > 0 ? std::int64_t{query.limit} : std::int64_t{-1});
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return {};
    GS_ASSIGN_OR_RETURN(const TrialRecord trial, ReadTrial(db, rows));
    GS_TRY(visit(trial));
  }
}

Expected<std::optional<TrialGroupRanking>> SqlRankTrialGroups(
    sqlite::Database& db, const std::vector<std::string>& ignored, Mode mode, int limit) {
  // The ignored names as JSON paths bound as ?2, ?3, ...: '$."seed"'.
  std::string key = "params";
  std::vector<std::string> paths, slots;
  for (const std::string& name : ignored) {
    if (name.find('"') != std::string::npos) return std::optional<TrialGroupRanking>();
    // A name no trial's params text holds as a key ("seed": in compact JSON, where a
    // string value is never followed by ':') removes nothing: json_remove would only
    // cost a parse of every row (3x the grouping's time at 100,000 trials).
    GS_ASSIGN_OR_RETURN(auto held, db.Prepare("SELECT EXISTS (SELECT 1 FROM trials WHERE "
                                              "instr(params, ?1) > 0)",
                                              "look for an ignored param"));
    held.Bind(1, DumpJson(Json(name)) + ":");
    GS_ASSIGN_OR_RETURN(const bool has_row, held.Step());
    if (!has_row || held.Int(0) == 0) continue;
    paths.push_back(fmt::format("$.\"{}\"", name));
    slots.push_back(fmt::format("?{}", paths.size() + 1));
  }
  if (!paths.empty()) key = fmt::format("json_remove(params, {})", fmt::join(slots, ", "));
  // MATERIALIZED: the groups are computed once though the query reads them three times.
  const std::string sql = fmt::format(
      "WITH g AS MATERIALIZED (SELECT {0} AS key, count(*) AS n, total{1} AS completed, "
      "avg(CASE WHEN {1} THEN objective END) AS mean, min(number) AS first, "
      "group_concat(number) AS numbers FROM trials GROUP BY key) "
      "SELECT key, numbers, completed, mean, (SELECT count(*) FROM g), "
      "(SELECT coalesce(max(n), 0) FROM g) FROM g "
      "ORDER BY mean IS NULL, completed = (SELECT max(completed) FROM g) DESC, mean {2}, first "
      "LIMIT ?1",
      key, kSqlRanked, mode == Mode::kMax ? "DESC" : "ASC");
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(sql, "group trials by params"));
  rows.Bind(1, limit > 0 ? std::int64_t{limit} : std::int64_t{-1});
  for (size_t i = 0; i < paths.size(); ++i) rows.Bind(static_cast<int>(i) + 2, paths[i]);
  TrialGroupRanking ranking;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) break;
    TrialGroupRow group;
    group.key = rows.Text(0);
    group.numbers = SqlNumberList(rows.Text(1));
    group.completed = static_cast<int>(rows.Double(2));
    group.mean = rows.OptionalDouble(3);
    ranking.groups = rows.Int(4);
    ranking.repeats = rows.Int(5) > 1;
    ranking.top.push_back(std::move(group));
  }
  return std::optional<TrialGroupRanking>(std::move(ranking));
}

Expected<std::optional<bool>> SqlEveryTrialHas(sqlite::Database& db,
                                               const std::vector<std::string>& path,
                                               const Json& value) {
  std::string json_path = "$";
  for (const std::string& name : path) {
    if (name.find('"') != std::string::npos) return std::optional<bool>();
    json_path += fmt::format(".\"{}\"", name);
  }
  GS_ASSIGN_OR_RETURN(
      auto row, db.Prepare("SELECT EXISTS (SELECT 1 FROM trials) AND NOT EXISTS (SELECT 1 FROM "
                           "trials WHERE json_type(params, ?1) IS NOT json_type(?2) OR "
                           "json_extract(params, ?1) IS NOT json_extract(?2, '$'))",
                           "check a constant param"));
  row.Bind(1, json_path).Bind(2, DumpJson(value));
  GS_ASSIGN_OR_RETURN(const bool has_row, row.Step());
  return std::optional<bool>(has_row && row.Int(0) != 0);
}

}  // namespace gpusweep::journal
