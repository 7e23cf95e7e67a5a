#include "journal/trial_sql.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/group_rank.h"
#include "journal/records.h"
#include "journal/schema.h"

namespace gpusweep::journal {
namespace {


// The number a JSON value's text `text` is, or nullopt when it is another kind of value
// (a string, true/false, null, an object) or empty (no such member). JSON numbers begin
// with '-' or a digit, nothing else does. Out of double's range it is +-inf, as strtod
// (and so nlohmann's parser) gives.
std::optional<double> JsonNumber(std::string_view text) {
  if (text.empty() || !(text.front() == '-' || (text.front() >= '0' && text.front() <= '9')))
    return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) return std::strtod(std::string(text).c_str(), nullptr);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Whether the journal has the read tallies (schema.h: made when a run opens it).
Expected<bool> HasReadTallies(sqlite::Database& db) {
  GS_ASSIGN_OR_RETURN(auto row, db.Prepare("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND "
                                           "name = 'param_groups_by_tier'",
                                           "look for the read tallies"));
  return row.Step();
}

}  // namespace

Expected<TrialCounts> SqlCountTrials(sqlite::Database& db, int version) {
  // Per state over the index trials_by_state, and two EXISTS that the partial indexes
  // answer at once: one aggregate row of ten sums over every trial took 78 ms at
  // 100,000 trials, this 20 (issue 25).
  // The read tallies when the journal has them (schema.h), else over the index.
  GS_ASSIGN_OR_RETURN(const bool tallied, HasReadTallies(db));
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(tallied ? "SELECT state, trials, with_objective FROM trial_tally"
                                                    : "SELECT state, count(*), count(objective) FROM trials "
                                                      "GROUP BY state",
                                            "count trials"));
  TrialCounts c;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) break;
    const std::optional<TrialState> state = TrialStateFromString(rows.Text(0));
    const int n = rows.Int(1);
    c.recorded += n;
    if (!state) continue;  // ReadTrial refuses the row when it is read
    switch (*state) {
      case TrialState::kCompleted:
        c.completed = n;
        c.ranked = rows.Int(2);  // a NaN objective is stored as NULL
        break;
      case TrialState::kRunning: c.running = n; break;
      case TrialState::kFailed: c.failed = n; break;
      case TrialState::kInterrupted: c.interrupted = n; break;
      case TrialState::kPruned: c.pruned = n; break;
      case TrialState::kPaused: c.paused = n; break;
    }
  }
  GS_ASSIGN_OR_RETURN(
      auto flags,
      db.Prepare(fmt::format("SELECT EXISTS (SELECT 1 FROM trials WHERE repeat > 0), {}",
                             version >= 3 ? "EXISTS (SELECT 1 FROM trials WHERE job_id <> '')" : "0"),
                 "count trials"));
  GS_ASSIGN_OR_RETURN(const bool has_flags, flags.Step());
  if (has_flags) {
    c.repeats = flags.Int(0) != 0;
    c.jobs = flags.Int(1) != 0;
  }
  return c;
}

Expected<std::optional<EarlyStoppingSavings>> SqlSumPrunedProgress(
    sqlite::Database& db, const std::string& resource, double max_resource) {
  if (resource.find('"') != std::string::npos) return std::optional<EarlyStoppingSavings>();
  // Summed here in number order as AddPrunedTrial sums (common/trial.h): one row per
  // pruned trial, its metric cut out by `->` (one JSON parse; JsonNumber tells numbers
  // from true and false). As one SQL aggregate over nested subqueries, which SQLite
  // flattens, the JSON functions ran once per use of `reached` and `saved`: 217 ms over
  // the 33,333 pruned trials of a 100,000-trial ASHA journal, this ~40 (issue 25).
  // `+state` scans the table, cheaper than a lookup per pruned row through trials_by_state.
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare("SELECT json_array_length(gpus), last_metrics -> ?1, budget "
                                            "FROM trials WHERE +state = 'pruned' ORDER BY number",
                                            "sum what early stopping saved"));
  rows.Bind(1, fmt::format("$.\"{}\"", resource));
  EarlyStoppingSavings savings;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) break;
    ++savings.pruned;
    std::optional<double> reached = rows.IsNull(1) ? std::nullopt : JsonNumber(rows.TextView(1));
    if (!reached || *reached <= 0) reached = rows.IsNull(2) || rows.Double(2) <= 0
                                                 ? std::nullopt : std::optional<double>(rows.Double(2));
    if (!reached || max_resource <= *reached) continue;
    const double saved = max_resource - *reached;
    savings.resource_saved += saved;
    const std::int64_t gpus = rows.Int64(0);
    if (gpus == 0) savings.cpu_resource_saved += saved;
    else savings.gpu_resource_saved += saved * static_cast<double>(gpus);
  }
  return std::optional<EarlyStoppingSavings>(savings);
}

namespace {

// One statement of SqlForEachTrial: `where` (ANDed), `order`, at most `limit` rows (-1:
// all); how many rows it visited.
Expected<std::int64_t> VisitTrials(sqlite::Database& db, std::string_view trial_columns,
                                   const std::vector<std::string>& where, const std::string& order,
                                   std::optional<TrialState> state, std::int64_t limit,
                                   const Journal::TrialVisitor& visit) {
  const std::string sql = fmt::format(
      "SELECT {} FROM trials {}{} ORDER BY {} LIMIT ?2", trial_columns,
      where.empty() ? "" : "WHERE ", fmt::join(where, " AND "), order);
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(sql, "query trials"));
  if (state) rows.Bind(1, ToString(*state));
  rows.Bind(2, limit);
  std::int64_t visited = 0;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return visited;
    GS_ASSIGN_OR_RETURN(const TrialRecord trial, ReadTrial(db, rows));
    GS_TRY(visit(trial));
    ++visited;
  }
}

}  // namespace

Status SqlForEachTrial(sqlite::Database& db, std::string_view trial_columns,
                       const TrialQuery& query, const Journal::TrialVisitor& visit) {
  std::vector<std::string> where;
  if (query.state) where.push_back("state = ?1");
  if (query.ranked_only) where.push_back(RankedSql(""));
  const std::int64_t limit = query.limit > 0 ? std::int64_t{query.limit} : -1;
  auto visit_rows = [&](const std::vector<std::string>& conditions, const std::string& order,
                        std::int64_t rows) {
    return VisitTrials(db, trial_columns, conditions, order, query.state, rows, visit);
  };
  // Missing values last, ties by number. Ranked rows have no missing value, and with a
  // limit the rows with a value come first and those without after, each through an
  // index (trials_by_state, trials_by_objective), where one ORDER BY with an IS NULL
  // term sorted every row: `status --top 10` at 100,000 trials, 16 ms of 36 (issue 25).
  const std::string by_objective =
      fmt::format("objective {}, number", query.mode == Mode::kMax ? "DESC" : "ASC");
  std::string order = by_objective;
  if (query.order == TrialQuery::Order::kNumber) order = "number";
  if (query.order == TrialQuery::Order::kNumberDescending) order = "number DESC";
  const bool split = query.order == TrialQuery::Order::kObjective && !query.ranked_only;
  if (split && limit < 0) order = "objective IS NULL, " + by_objective;
  if (!split || limit < 0) return visit_rows(where, order, limit).map([](std::int64_t) {});
  std::vector<std::string> with_value = where, without = where;
  with_value.emplace_back("objective IS NOT NULL");
  without.emplace_back("objective IS NULL");
  GS_ASSIGN_OR_RETURN(const std::int64_t first, visit_rows(with_value, by_objective, limit));
  if (first >= limit) return {};
  return visit_rows(without, "number", limit - first).map([](std::int64_t) {});
}

namespace {

// A group's key (its params text) is not kept: 100,000 strings were most of the pass's
// own time; the listed groups' keys are read back by their first trial (GroupKey).
struct ParamGroup {
  std::size_t begin = 0, end = 0;  // its numbers in `numbers`, ascending
  int completed = 0;
  int spoiled = 0;  // SpoilsItsGroup
  double sum = 0;
};

struct ParamGroups {
  std::vector<ParamGroup> groups;
  std::vector<int> numbers;
};

// The grouping key of a trial's params: the params text, or with `ignored` JSON paths
// bound as ?1, ?2, ... the text without those names.
std::string StrippedKeySql(std::size_t ignored) {
  if (ignored == 0) return "params";
  std::vector<std::string> slots;
  for (std::size_t i = 0; i < ignored; ++i) slots.push_back(fmt::format("?{}", i + 1));
  return fmt::format("json_remove(params, {})", fmt::join(slots, ", "));
}

// The grouping key of trial `number`'s params (StrippedKeySql with `paths`).
Expected<std::string> GroupKey(sqlite::Database& db, const std::vector<std::string>& paths, int number) {
  GS_ASSIGN_OR_RETURN(auto row, db.Prepare(fmt::format("SELECT {} FROM trials WHERE number = ?{}",
                                                       StrippedKeySql(paths.size()), paths.size() + 1),
                                           "read a group's params"));
  for (std::size_t i = 0; i < paths.size(); ++i) row.Bind(static_cast<int>(i) + 1, paths[i]);
  row.Bind(static_cast<int>(paths.size()) + 1, std::int64_t{number});
  GS_ASSIGN_OR_RETURN(const bool has_row, row.Step());
  assert(has_row);  // read in the same snapshot as the grouping
  return has_row ? row.Text(0) : std::string();
}

// One pass in key order, grouped here: with the key the params themselves, SQLite walks
// the covering index trials_by_params (no sort) and each group's rows come by number,
// summed in the order the default sums them. SQL aggregates over the 85,034 groups of a
// 100,000-trial sweep (group_concat, a materialized CTE read three times) took 190 ms;
// this pass ~30 (issue 25). `paths` (JSON paths of ignored names, '$."seed"') are
// removed from the key, and SQLite then sorts by the stripped key. With `held` (the
// ignored names as keys in compact JSON, "seed":) the pass stops at the first params
// text that holds one and returns nullopt: the caller strips them in a second pass.
Expected<std::optional<ParamGroups>> GroupByParams(sqlite::Database& db,
                                                   const std::vector<std::string>& paths,
                                                   const std::vector<std::string>& held) {
  assert(paths.empty() || held.empty());
  const std::string sql = fmt::format(
      "SELECT {0} AS key, {1}, objective, number, {2} FROM trials ORDER BY key, number",
      StrippedKeySql(paths.size()), RankedSql(""), SpoilsGroupSql(""));
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(sql, "group trials by params"));
  for (std::size_t i = 0; i < paths.size(); ++i) rows.Bind(static_cast<int>(i) + 1, paths[i]);
  ParamGroups out;
  std::string previous;  // the last group's key
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) break;
    const std::string_view row_key = rows.TextView(0);
    if (out.groups.empty() || previous != row_key) {
      // A string value is never followed by ':' in compact JSON, so this finds keys only.
      // memmem (two-way search), not string_view::find, which stops at every '"'.
      for (const std::string& name : held)
        if (memmem(row_key.data(), row_key.size(), name.data(), name.size()) != nullptr)
          return std::optional<ParamGroups>();
      previous.assign(row_key);
      out.groups.push_back(ParamGroup{out.numbers.size(), out.numbers.size(), 0, 0, 0});
    }
    ParamGroup& group = out.groups.back();
    out.numbers.push_back(rows.Int(3));
    group.end = out.numbers.size();
    if (rows.Int(1) != 0) {
      ++group.completed;
      group.sum += rows.Double(2);
    }
    group.spoiled += rows.Int(4);
  }
  return std::optional<ParamGroups>(std::move(out));
}

// A param_groups row (schema.h), as the ranking compares groups.
struct TalliedGroup {
  std::string key;
  int trials = 0, first = 0, spoiled = 0, completed = 0;
  double total = 0;
  double mean() const { return total / completed; }
  GroupStanding standing() const { return {completed, spoiled, mean(), first}; }
};

Expected<std::vector<TalliedGroup>> TalliedGroups(sqlite::Database& db, const std::string& where,
                                                  const std::string& order, std::int64_t limit,
                                                  std::optional<double> mean = std::nullopt) {
  GS_ASSIGN_OR_RETURN(auto rows, db.Prepare(fmt::format("SELECT key, trials, first, spoiled, completed, total "
                                                        "FROM param_groups WHERE {} ORDER BY {} LIMIT ?2",
                                                        where, order),
                                            "rank the params groups"));
  if (mean) rows.Bind(1, *mean);
  rows.Bind(2, limit);
  std::vector<TalliedGroup> groups;
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) return groups;
    // A NULL total is a NaN sum (+inf and -inf objectives in one group).
    groups.push_back({rows.Text(0), rows.Int(1), rows.Int(2), rows.Int(3), rows.Int(4),
                      rows.OptionalDouble(5).value_or(std::numeric_limits<double>::quiet_NaN())});
  }
}

// The best `limit` groups of `tier` (an SQL condition: completed > 0, spoiled or not)
// by mean, ties to the lower first trial, a missing (NaN: +inf and -inf summed) mean
// last: the first `limit` by mean through the index param_groups_by_tier, then every
// group at the last one's mean (the ties the index orders no further), then NaN ones,
// sorted here by `ranks_before`. A few rows read, of 100,000 groups.
template <class Compare>
Expected<std::vector<TalliedGroup>> BestOfTier(sqlite::Database& db, const std::string& tier, Mode mode,
                                               std::int64_t limit, const Compare& ranks_before) {
  const std::string mean = "total / completed";
  GS_ASSIGN_OR_RETURN(std::vector<TalliedGroup> best,
                      TalliedGroups(db, fmt::format("{} AND {} IS NOT NULL", tier, mean),
                                    fmt::format("{} {}", mean, mode == Mode::kMax ? "DESC" : "ASC"), limit));
  if (static_cast<std::int64_t>(best.size()) == limit) {
    GS_ASSIGN_OR_RETURN(std::vector<TalliedGroup> ties,
                        TalliedGroups(db, fmt::format("{} AND {} = ?1", tier, mean), "first", -1,
                                      best.back().mean()));
    for (TalliedGroup& g : ties)
      if (std::none_of(best.begin(), best.end(), [&](const TalliedGroup& b) { return b.key == g.key; }))
        best.push_back(std::move(g));
  } else {
    GS_ASSIGN_OR_RETURN(std::vector<TalliedGroup> missing,
                        TalliedGroups(db, fmt::format("{} AND {} IS NULL", tier, mean), "first",
                                      limit - static_cast<std::int64_t>(best.size())));
    std::move(missing.begin(), missing.end(), std::back_inserter(best));
  }
  std::sort(best.begin(), best.end(), ranks_before);
  if (static_cast<std::int64_t>(best.size()) > limit) best.resize(static_cast<std::size_t>(limit));
  return best;
}

// SqlRankTrialGroups for the default grouping (only "seed" ignored) from the read
// tallies; nullopt without them, or for every group (limit 0: the scan lists them).
Expected<std::optional<TrialGroupRanking>> RankTalliedGroups(sqlite::Database& db, Mode mode, int limit) {
  GS_ASSIGN_OR_RETURN(const bool tallied, HasReadTallies(db));
  if (!tallied || limit <= 0) return std::optional<TrialGroupRanking>();
  GS_ASSIGN_OR_RETURN(auto summary, db.Prepare("SELECT count(*), EXISTS (SELECT 1 FROM param_groups WHERE "
                                               "trials > 1) FROM param_groups",
                                               "count the params groups"));
  GS_ASSIGN_OR_RETURN(const bool has_summary, summary.Step());
  assert(has_summary);
  TrialGroupRanking ranking;
  ranking.groups = has_summary ? summary.Int(0) : 0;
  ranking.repeats = has_summary && summary.Int(1) != 0;
  auto ranks_before = [&](const TalliedGroup& a, const TalliedGroup& b) {
    return GroupRanksBefore(mode, a.standing(), b.standing());
  };
  std::vector<TalliedGroup> top;
  // As written in the index param_groups_by_tier, so that SQLite walks it.
  const std::vector<std::string> tiers{"completed > 0 AND (spoiled > 0) = 0",
                                       "completed > 0 AND (spoiled > 0) = 1"};
  for (const std::string& tier : tiers) {
    if (static_cast<int>(top.size()) >= limit) break;
    GS_ASSIGN_OR_RETURN(std::vector<TalliedGroup> some,
                        BestOfTier(db, tier, mode, limit - static_cast<std::int64_t>(top.size()), ranks_before));
    std::move(some.begin(), some.end(), std::back_inserter(top));
  }
  if (static_cast<int>(top.size()) < limit) {
    GS_ASSIGN_OR_RETURN(std::vector<TalliedGroup> unranked,
                        TalliedGroups(db, "completed = 0", "first", limit - static_cast<std::int64_t>(top.size())));
    std::move(unranked.begin(), unranked.end(), std::back_inserter(top));
  }
  const std::string members_sql =
      fmt::format("SELECT number FROM trials WHERE {} = ?1 ORDER BY number", GroupKeySql("params"));
  for (TalliedGroup& g : top) {
    TrialGroupRow row;
    GS_ASSIGN_OR_RETURN(auto members, db.PrepareCached(members_sql, "read a params group's trials"));
    members.Bind(1, g.key);
    while (true) {
      GS_ASSIGN_OR_RETURN(const bool has_row, members.Step());
      if (!has_row) break;
      row.numbers.push_back(members.Int(0));
    }
    assert(static_cast<int>(row.numbers.size()) == g.trials);
    row.key = std::move(g.key);
    row.completed = g.completed;
    if (g.completed > 0) row.mean = g.mean();
    ranking.top.push_back(std::move(row));
  }
  return std::optional<TrialGroupRanking>(std::move(ranking));
}

}  // namespace

Expected<std::optional<TrialGroupRanking>> SqlRankTrialGroups(
    sqlite::Database& db, const std::vector<std::string>& ignored, Mode mode, int limit) {
  if (ignored == std::vector<std::string>{"seed"}) {  // the default grouping, tallied
    GS_ASSIGN_OR_RETURN(std::optional<TrialGroupRanking> tallied, RankTalliedGroups(db, mode, limit));
    if (tallied) return tallied;
  }
  // The ignored names as JSON paths ('$."seed"') and as compact JSON keys ("seed":).
  std::vector<std::string> paths, held;
  for (const std::string& name : ignored) {
    if (name.find('"') != std::string::npos) return std::optional<TrialGroupRanking>();
    paths.push_back(fmt::format("$.\"{}\"", name));
    held.push_back(DumpJson(Json(name)) + ":");
  }
  // A name no trial's params text holds removes nothing, and json_remove would only cost
  // a parse of every row (3x the grouping's time at 100,000 trials): first the params as
  // they are, watched for the names (a separate EXISTS scan for them was a third of the
  // time of an ASHA experiment's Best line), stripped only when one is there.
  GS_ASSIGN_OR_RETURN(std::optional<ParamGroups> grouped, GroupByParams(db, {}, held));
  const bool stripped = !grouped;
  if (stripped) {
    GS_ASSIGN_OR_RETURN(grouped, GroupByParams(db, paths, {}));
    assert(grouped);
  }
  std::vector<ParamGroup>& groups = grouped->groups;
  const std::vector<int>& numbers = grouped->numbers;
  TrialGroupRanking ranking;
  ranking.groups = static_cast<int>(groups.size());
  for (const ParamGroup& g : groups) ranking.repeats = ranking.repeats || g.end - g.begin > 1;
  auto standing = [&](const ParamGroup& g) {
    return GroupStanding{g.completed, g.spoiled, g.completed > 0 ? g.sum / g.completed : 0, numbers[g.begin]};
  };
  auto ranks_before = [&](const ParamGroup& a, const ParamGroup& b) {
    return GroupRanksBefore(mode, standing(a), standing(b));
  };
  const std::size_t shown =
      limit > 0 ? std::min<std::size_t>(static_cast<std::size_t>(limit), groups.size()) : groups.size();
  std::partial_sort(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(shown), groups.end(),
                    ranks_before);
  for (std::size_t i = 0; i < shown; ++i) {
    ParamGroup& g = groups[i];
    TrialGroupRow row;
    GS_ASSIGN_OR_RETURN(row.key, GroupKey(db, stripped ? paths : std::vector<std::string>{},
                                          numbers[g.begin]));
    row.numbers.assign(numbers.begin() + static_cast<std::ptrdiff_t>(g.begin),
                       numbers.begin() + static_cast<std::ptrdiff_t>(g.end));
    row.completed = g.completed;
    if (g.completed > 0) row.mean = g.sum / g.completed;
    ranking.top.push_back(std::move(row));
  }
  return std::optional<TrialGroupRanking>(std::move(ranking));
}

Expected<std::optional<RankingRows>> SqlLoadRankingRows(sqlite::Database& db,
                                                        const std::vector<std::string>& metrics) {
  // Each metric as its JSON text, cut out inside SQLite with `->` and read here as a
  // number only when it is one (JsonNumber): one parse of last_metrics per metric, where
  // json_type and json_extract were two (89 against 234 ms for two metrics at 100,000).
  // '+state': a scan in number order; through trials_by_state most rows would be looked
  // up one by one and then sorted, twice the time (482 ms against 242 at 100,000).
  std::vector<std::string> columns;
  for (const std::string& name : metrics) {
    if (name.find('"') != std::string::npos) return std::optional<RankingRows>();
    columns.push_back(fmt::format("last_metrics -> '$.\"{}\"'", name));
  }
  GS_ASSIGN_OR_RETURN(
      auto rows,
      db.Prepare(fmt::format("SELECT number, objective{}{} FROM trials WHERE +state = 'completed' "
                             "ORDER BY number",
                             columns.empty() ? "" : ", ", fmt::join(columns, ", ")),
                 "load the completed trials' objectives"));
  // Reserved for every trial (an upper bound, counted from an index): no regrowth.
  GS_ASSIGN_OR_RETURN(auto count, db.Prepare("SELECT count(*) FROM trials", "count the trials"));
  GS_ASSIGN_OR_RETURN(const bool counted, count.Step());
  RankingRows out;
  out.metrics = metrics;
  if (counted) {
    const auto n = static_cast<std::size_t>(count.Int(0));
    out.numbers.reserve(n);
    out.objectives.reserve(n);
    out.values.reserve(n * metrics.size());
  }
  while (true) {
    GS_ASSIGN_OR_RETURN(const bool has_row, rows.Step());
    if (!has_row) break;
    out.numbers.push_back(rows.Int(0));
    out.objectives.push_back(rows.OptionalDouble(1));
    for (std::size_t i = 0; i < metrics.size(); ++i)
      out.values.push_back(JsonNumber(rows.TextView(static_cast<int>(i) + 2))
                               .value_or(std::numeric_limits<double>::quiet_NaN()));
  }
  return std::optional<RankingRows>(std::move(out));
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
