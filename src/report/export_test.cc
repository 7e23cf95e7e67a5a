// FlattenParams, ExportCsv and ExportJson.
#include <algorithm>
#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::MakeTrial;

TEST(ReportFlattenTest, NestedMapsBecomeDottedNames) {
  const Json params = Json::parse(
      R"({"lr":0.1,"net":{"bn":true,"activation":["relu","gelu"],"head":{"dim":64}},
          "empty":{},"opt":"adam"})");
  const auto flat = FlattenParams(params);
  std::vector<std::string> names;
  for (const auto& [name, value] : flat) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("lr", "net.bn", "net.activation", "net.head.dim", "empty", "opt"));
  EXPECT_EQ(flat[1].second, Json(true));
  EXPECT_EQ(flat[2].second, Json::parse(R"(["relu","gelu"])"));
  EXPECT_EQ(flat[3].second, Json(64));
  EXPECT_EQ(flat[4].second, Json::object());
  EXPECT_TRUE(FlattenParams(Json(3)).empty());
}

std::vector<TrialRecord> ExportTrials() {
  TrialRecord a = MakeTrial(0, TrialState::kCompleted, 0.875,
                            Json::parse(R"({"lr":0.001,"net":{"bn":true,"act":["relu",1]}})"));
  a.gpus = {0, 1};
  a.exit_code = 0;
  a.last_metrics = Json::parse(R"({"loss":0.25,"val_acc":0.875})");
  TrialRecord b = MakeTrial(1, TrialState::kFailed, std::nullopt,
                            Json::parse(R"({"lr":0.01,"note":"a, \"quoted\"\nline","seed":7})"));
  b.term_signal = 9;
  b.failure_reason = "timeout, killed";
  b.last_metrics = Json::parse(R"({"loss":0.5,"epoch":3})");
  TrialRecord c = MakeTrial(2, TrialState::kRunning, std::nullopt, Json::parse(R"({"lr":1})"));
  return {a, b, c};
}

// Minimal RFC 4180 reader for the test: records of fields.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string& field = records.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      if (i + 1 < text.size()) records.emplace_back(1);
    } else {
      field += c;
    }
  }
  return records;
}

TEST(ReportCsvTest, HeaderIsTheUnionInOrderOfFirstAppearance) {
  const auto records = ParseCsv(ExportCsv(ExportTrials()));
  ASSERT_EQ(records.size(), 4u);
  EXPECT_THAT(records[0],
              ElementsAre("trial", "state", "attempt", "repeat", "objective", "start_time", "end_time",
                          "start_time_iso", "end_time_iso", "duration_s", "gpus", "gpu_count", "job_id", "exit_code", "term_signal", "failure_reason",
                          "budget", "rung", "bracket", "param.lr", "param.net.bn", "param.net.act", "param.note",
                          "param.seed", "metric.loss", "metric.val_acc", "metric.epoch"));
  for (const auto& record : records) EXPECT_EQ(record.size(), records[0].size());
}

// A SLURM trial's record holds gpusweep's slot numbers, not devices: only the count
// and the job id are exported.
TEST(ReportJsonTest, SlurmTrialsGiveTheirJobIdAndGpuCountNotSlots) {
  std::vector<TrialRecord> trials = ExportTrials();
  trials[0].job_id = "4242";
  const Json rows = Json::parse(ExportJson(trials));
  EXPECT_EQ(rows[0]["job_id"], Json("4242"));
  EXPECT_TRUE(rows[0]["gpus"].is_null()) << rows[0]["gpus"];
  EXPECT_EQ(rows[0]["gpu_count"], Json(2));
  EXPECT_THAT(ExportCsv(trials), HasSubstr(",,2,4242,"));
}

TEST(ReportCsvTest, ValuesAndQuoting) {
  const std::string csv = ExportCsv(ExportTrials());
  // Quotes doubled, field wrapped, embedded newline kept inside the quotes.
  EXPECT_THAT(csv, HasSubstr(R"("a, ""quoted"")" "\nline\""));
  EXPECT_THAT(csv, HasSubstr("\"timeout, killed\""));
  EXPECT_THAT(csv, HasSubstr("\"0,1\""));
  EXPECT_THAT(csv, HasSubstr(R"("[""relu"",1]")"));

  const auto records = ParseCsv(csv);
  ASSERT_EQ(records.size(), 4u);
  const auto& a = records[1];
  // Times both as Unix seconds and as ISO 8601 (UTC).
  EXPECT_THAT(std::vector<std::string>(a.begin(), a.begin() + 11),
              ElementsAre("0", "completed", "1", "0", "0.875", "1000.0", "1083.0",
                          "1970-01-01T00:16:40.000Z", "1970-01-01T00:18:03.000Z", "83.0", "0,1"));
  EXPECT_EQ(a[16], "");  // no scheduler: no budget, rung, bracket
  EXPECT_EQ(a[18], "");
  EXPECT_EQ(a[20], "true");
  EXPECT_EQ(a[21], R"(["relu",1])");
  EXPECT_EQ(a[22], "");  // no note param
  const auto& b = records[2];
  EXPECT_EQ(b[4], "");  // no objective
  EXPECT_EQ(b[14], "9");
  EXPECT_EQ(b[15], "timeout, killed");
  EXPECT_EQ(b[22], "a, \"quoted\"\nline");
  const auto& c = records[3];
  EXPECT_EQ(c[1], "running");
  EXPECT_EQ(c[6], "");  // no end time while running
  EXPECT_EQ(c[7], "1970-01-01T00:17:00.000Z");
  EXPECT_EQ(c[8], "");
  EXPECT_EQ(c[9], "");
  EXPECT_EQ(c[10], "");  // CPU trial
}

TEST(ReportCsvTest, NoTrialsStillHasHeader) {
  EXPECT_EQ(ExportCsv({}).substr(0, 18), "trial,state,attemp");
}

TEST(ReportJsonTest, ParsesBackWithTypedValues) {
  const Json rows = Json::parse(ExportJson(ExportTrials()));
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 3u);
  const Json& a = rows[0];
  EXPECT_TRUE(a["trial"].is_number_integer());
  EXPECT_TRUE(a["objective"].is_number_float());
  EXPECT_DOUBLE_EQ(a["objective"].get<double>(), 0.875);
  EXPECT_DOUBLE_EQ(a["param.lr"].get<double>(), 0.001);
  EXPECT_EQ(a["param.net.bn"], Json(true));
  EXPECT_EQ(a["param.net.act"], Json::parse(R"(["relu",1])"));
  EXPECT_EQ(a["gpus"], Json::parse("[0,1]"));
  EXPECT_DOUBLE_EQ(a["metric.loss"].get<double>(), 0.25);
  // A parameter the trial does not have (conditional, inactive in it) has no key, not
  // null; the CSV gives it an empty cell.
  EXPECT_FALSE(a.contains("param.note"));
  EXPECT_EQ(rows[1]["param.seed"], Json(7));
  EXPECT_EQ(rows[1]["term_signal"], Json(9));
  EXPECT_TRUE(rows[1]["objective"].is_null());
  EXPECT_TRUE(rows[2]["end_time"].is_null());
  EXPECT_EQ(a["gpu_count"], Json(2));
  EXPECT_TRUE(a["job_id"].is_null());
  // Same keys, same order, in every object, except the params a trial does not have.
  std::vector<std::string> keys0, keys2;
  for (const auto& [k, v] : rows[0].items()) keys0.push_back(k);
  for (const auto& [k, v] : rows[2].items()) keys2.push_back(k);
  const auto is_param = [](const std::string& k) { return k.rfind("param.", 0) == 0; };
  std::erase_if(keys0, is_param);
  std::erase_if(keys2, is_param);
  EXPECT_EQ(keys0, keys2);
  EXPECT_EQ(keys0.size(), 22u);
  EXPECT_EQ(rows[0].size(), 25u);  // lr, net.bn, net.act of the 5 params trials have
  EXPECT_TRUE(rows[0]["budget"].is_null());
}

TEST(ReportJsonTest, ScheduledTrialsCarryBudgetRungAndBracket) {
  TrialRecord t;
  t.state = TrialState::kPaused;
  t.budget = 9;
  t.rung = 2;
  t.bracket = 1;
  const Json row = Json::parse(ExportJson({t}))[0];
  EXPECT_TRUE(row["budget"].is_number_integer());  // whole budgets as integers
  EXPECT_EQ(row["budget"], Json(9));
  t.budget = 2.5;
  EXPECT_EQ(Json::parse(ExportJson({t}))[0]["budget"], Json(2.5));
  EXPECT_EQ(row["rung"], Json(2));
  EXPECT_EQ(row["bracket"], Json(1));
  EXPECT_EQ(row["state"], "paused");
}

TEST(ReportJsonTest, SeveralObjectivesAddParetoRankFeasibleAndViolation) {
  auto trial = [](int number, TrialState state, Json metrics) {
    TrialRecord t = MakeTrial(number, state, std::nullopt);
    t.last_metrics = std::move(metrics);
    return t;
  };
  const std::vector<TrialRecord> trials{
      trial(0, TrialState::kCompleted, {{"acc", 0.9}, {"size", 10}, {"ms", 5}}),
      trial(1, TrialState::kCompleted, {{"acc", 0.7}, {"size", 12}, {"ms", 5}}),
      trial(2, TrialState::kCompleted, {{"acc", 0.99}, {"size", 1}, {"ms", 12.5}}),
      trial(3, TrialState::kRunning, {{"acc", 1.0}})};
  const Objective objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  const Json rows = Json::parse(ExportJson(trials, {}, objective));
  EXPECT_EQ(rows[0]["pareto_rank"], Json(1));
  EXPECT_EQ(rows[1]["pareto_rank"], Json(2));
  EXPECT_EQ(rows[2]["pareto_rank"], Json(3));  // the best values, but infeasible
  EXPECT_EQ(rows[2]["feasible"], Json(false));
  EXPECT_EQ(rows[2]["violation"], Json(2.5));
  EXPECT_EQ(rows[0]["feasible"], Json(true));
  EXPECT_TRUE(rows[3]["pareto_rank"].is_null());
  std::vector<std::string> keys;
  for (const auto& [k, v] : rows[0].items()) keys.push_back(k);
  EXPECT_EQ(std::vector<std::string>(keys.begin() + 4, keys.begin() + 8),
            (std::vector<std::string>{"objective", "pareto_rank", "feasible", "violation"}));
  EXPECT_THAT(ExportCsv(trials, {}, objective), HasSubstr("objective,pareto_rank,feasible,violation,"));
  EXPECT_THAT(ExportCsv(trials), Not(HasSubstr("pareto_rank")));
}

// Under cv the ranking is of configurations by their folds' means: each fold row carries
// its configuration's rank, feasibility and violation (of the means), whatever the
// fold's own values say.
TEST(ReportJsonTest, CrossValidatedRowsCarryTheirConfigurationsParetoRank) {
  auto fold = [](int number, Json metrics) {
    TrialRecord t = MakeTrial(number, TrialState::kCompleted, metrics["acc"].get<double>());
    t.last_metrics = std::move(metrics);
    return t;
  };
  // Configuration 0: means acc 0.8, size 10, ms 9 (feasible, though fold 1 breaks ms <= 10).
  // Configuration 1: means acc 0.7, size 12, ms 5: dominated by 0, though its fold 0
  // alone (acc 0.95, size 4) would dominate every fold of configuration 0.
  const std::vector<TrialRecord> trials{fold(0, {{"acc", 0.9}, {"size", 10}, {"ms", 6}}),
                                        fold(1, {{"acc", 0.7}, {"size", 10}, {"ms", 12}}),
                                        fold(2, {{"acc", 0.95}, {"size", 4}, {"ms", 5}}),
                                        fold(3, {{"acc", 0.45}, {"size", 20}, {"ms", 5}})};
  const Objective objective({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});
  const Json rows = Json::parse(ExportJson(trials, CvConfig{2, 0, 1}, objective));
  for (int r : {0, 1}) {
    EXPECT_EQ(rows[r]["pareto_rank"], Json(1)) << r;
    EXPECT_EQ(rows[r]["feasible"], Json(true)) << r;
    EXPECT_EQ(rows[r]["violation"], Json(0.0)) << r;
  }
  EXPECT_EQ(rows[2]["pareto_rank"], Json(2));
  EXPECT_EQ(rows[3]["pareto_rank"], Json(2));
}

// The JSON export streams its rows; the bytes are still nlohmann's dump(2) of the whole
// array (nested params, lists, escaped newlines, invalid UTF-8 replaced alike).
TEST(ReportJsonTest, StreamedRowsAreTheWholeArraysDump) {
  std::vector<TrialRecord> trials = ExportTrials();
  trials[2].params = Json::parse(R"({"lr":1,"empty":{},"list":[],"deep":{"a":{"b":[1,{"c":2}]}}})");
  trials[2].failure_reason = std::string("bad \xff byte");
  const std::string text = ExportJson(trials);
  EXPECT_EQ(text, Json::parse(text).dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  EXPECT_EQ(ExportJson({}), "[]\n");
  EXPECT_EQ(ExportStepsJson({}), "[]\n");
}

// Under cv a warm-start trial (number < 0) has no configuration: the header is still
// the union of the rows' keys in order of first appearance, as if every row were held.
TEST(ReportCsvTest, CvHeaderWithWarmStartHistoryFirstIsTheUnionOfTheRows) {
  std::vector<TrialRecord> trials{MakeTrial(-1, TrialState::kCompleted, 0.5, Json{{"lr", 0.1}}),
                                  MakeTrial(0, TrialState::kCompleted, 0.6, Json{{"lr", 0.2}}),
                                  MakeTrial(1, TrialState::kCompleted, 0.7, Json{{"lr", 0.2}})};
  const CvConfig cv{2, 0, 1};
  std::vector<std::string> union_of_rows;
  for (const Json& row : Json::parse(ExportJson(trials, cv)))
    for (const auto& [key, value] : row.items())
      if (std::find(union_of_rows.begin(), union_of_rows.end(), key) == union_of_rows.end())
        union_of_rows.push_back(key);
  const auto records = ParseCsv(ExportCsv(trials, cv));
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0], union_of_rows);
  EXPECT_EQ(records[0].back(), "cv_std");  // the cv columns come after the first row's
}

// The streamed export of `trials` with `options`, as the CLI writes it.
std::string Streamed(ExportText format, const std::vector<TrialRecord>& trials,
                     const TrialExportOptions& options) {
  const TrialWalk walk = [&](const std::function<Status(const TrialRecord&)>& visit) -> Status {
    for (const TrialRecord& t : trials) GS_TRY(visit(t));
    return {};
  };
  std::string text;
  const Status status = WriteTrialExport(format, walk, [&](std::string_view piece) -> Status {
    text += piece;
    return {};
  }, options);
  EXPECT_TRUE(status);
  return text;
}

// Two runs of one conditional space whose first trials took different branches get the
// same header: the param columns follow the declared parameters ("classifier.type" at
// its choice's place), a name outside them (a warm-start source's) after them.
TEST(ReportCsvTest, ParamColumnsFollowTheDeclaredSpace) {
  const std::vector<TrialRecord> trials = {
      MakeTrial(0, TrialState::kCompleted, 1.0,
                Json::parse(R"({"classifier":{"type":"knn"},"classifier.k":3,"old":1})")),
      MakeTrial(1, TrialState::kCompleted, 0.5,
                Json::parse(R"({"classifier":{"type":"svm"},"classifier.C":2,"gamma":0.1})"))};
  const std::string text = Streamed(ExportText::kCsv, trials,
                                    {{}, std::nullopt, {"classifier", "classifier.C", "classifier.k", "gamma"}, {}});
  const auto records = ParseCsv(text);
  std::vector<std::string> params;
  for (const std::string& column : records.at(0))
    if (column.rfind("param.", 0) == 0) params.push_back(column);
  EXPECT_THAT(params, ElementsAre("param.classifier.type", "param.classifier.C", "param.classifier.k",
                                  "param.gamma", "param.old"));
  // Without a declared space: order of first appearance.
  const auto first_seen = ParseCsv(ExportCsv(trials)).at(0);
  EXPECT_LT(std::find(first_seen.begin(), first_seen.end(), "param.classifier.k"),
            std::find(first_seen.begin(), first_seen.end(), "param.classifier.C"));
}

// Population-based training: trial k is member k % population's segment k / population;
// parent_trial is the checkpoint it continued (empty for a first segment).
TEST(ReportCsvTest, PbtSegmentsCarryMemberSegmentAndParent) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 4; ++k)
    trials.push_back(MakeTrial(k, TrialState::kCompleted, k, Json::parse(R"({"lr":0.1})")));
  TrialExportOptions options;
  options.pbt = {2, {{2, 1}, {3, 1}}};  // segment 1: member 0 exploited member 1
  const Json rows = Json::parse(Streamed(ExportText::kJson, trials, options));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2]["member"], 0);
  EXPECT_EQ(rows[2]["segment"], 1);
  EXPECT_EQ(rows[2]["parent_trial"], 1);
  EXPECT_EQ(rows[1]["member"], 1);
  EXPECT_TRUE(rows[1]["parent_trial"].is_null());
  // Right after repeat, in the CSV header too; absent from an export of no PBT run.
  const std::string text = Streamed(ExportText::kCsv, trials, options);
  EXPECT_THAT(text, HasSubstr("attempt,repeat,member,segment,parent_trial,objective"));
  EXPECT_THAT(ExportCsv(trials), Not(HasSubstr("member")));
}

// A sink that fails (stdout closed, disk full) ends the export with its error.
TEST(ReportCsvTest, TheSinksErrorStopsTheExport) {
  const std::vector<TrialRecord> trials = ExportTrials();
  int pieces = 0;
  const TrialWalk walk = [&](const std::function<Status(const TrialRecord&)>& visit) -> Status {
    for (const TrialRecord& t : trials) GS_TRY(visit(t));
    return {};
  };
  const Status status = WriteTrialExport(ExportText::kCsv, walk, [&](std::string_view) -> Status {
    if (++pieces == 2) return Fail(ErrorCode::kOutputClosed, "closed");
    return {};
  });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ErrorCode::kOutputClosed);
  EXPECT_EQ(pieces, 2);  // the header and the first row; nothing after the error
}

}  // namespace
}  // namespace gpusweep
