// ExportStepsCsv/Json, ParamDistributions and ExportOptuna.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/report.h"
#include "report/report_test_util.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using testing::MakeContext;
using testing::MakeTrial;

IntermediateResult Line(int trial, int attempt, std::int64_t step, Json values) {
  IntermediateResult r;
  r.trial = trial;
  r.attempt = attempt;
  r.step = step;
  r.time = 1700000000.25 + step;
  r.values = std::move(values);
  return r;
}

std::vector<IntermediateResult> Curves() {
  return {Line(0, 1, 1, {{"epoch", 1}, {"val_acc", 0.5}}),
          Line(0, 2, 1, {{"epoch", 1}, {"val_acc", 0.55}}),
          Line(0, 2, 2, {{"epoch", 2}, {"val_acc", 0.6}, {"note", "a,b"}}),
          Line(3, 1, 1, {{"epoch", 1}, {"val_acc", 0.4}})};
}

TEST(ReportStepsTest, OneRowPerTrialAttemptAndStep) {
  const std::string csv = ExportStepsCsv(Curves());
  EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
            "trial,attempt,step,time,time_iso,metric.epoch,metric.val_acc,metric.note");
  EXPECT_THAT(csv, HasSubstr("\r\n0,2,2,1700000002.25,2023-11-14T22:13:22.250Z,2,0.6,\"a,b\"\r\n"));
  EXPECT_THAT(csv, HasSubstr("\r\n3,1,1,1700000001.25,2023-11-14T22:13:21.250Z,1,0.4,\r\n"));
  const Json rows = Json::parse(ExportStepsJson(Curves()));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1]["attempt"], 2);
  EXPECT_EQ(rows[1]["metric.val_acc"], 0.55);
  EXPECT_TRUE(rows[1]["metric.note"].is_null());
  EXPECT_EQ(ExportStepsCsv({}), "trial,attempt,step,time,time_iso\r\n");
}

Json Space() {
  return Json::parse(R"({
    "lr": {"type": "loguniform", "low": 0.0001, "high": 0.1},
    "dropout": {"type": "uniform", "low": 0.0, "high": 0.5},
    "layers": {"type": "int", "low": 1, "high": 9, "step": 2},
    "width": {"type": "int", "low": 16, "high": 1024, "step": 1, "log": true},
    "act": {"type": "choice", "values": ["relu", "gelu"]},
    "net": {"type": "choice", "values": [{"bn": true}, {"bn": false}]},
    "epochs": {"type": "constant", "value": 4}})");
}

TEST(ReportDistributionsTest, EveryKindInOptunasTerms) {
  const Json d = ParamDistributions(Space());
  EXPECT_EQ(d["lr"], Json::parse(R"({"type":"float","low":0.0001,"high":0.1,"log":true})"));
  EXPECT_EQ(d["dropout"], Json::parse(R"({"type":"float","low":0.0,"high":0.5,"log":false})"));
  EXPECT_EQ(d["layers"], Json::parse(R"({"type":"int","low":1,"high":9,"step":2})"));
  EXPECT_EQ(d["width"],
            Json::parse(R"({"type":"int","low":16,"high":1024,"step":1,"log":true})"));
  EXPECT_EQ(d["act"], Json::parse(R"({"type":"categorical","choices":["relu","gelu"]})"));
  EXPECT_EQ(d["epochs"], Json::parse(R"({"type":"constant","value":4})"));
}

// Normal, log-normal and q-rounded parameters: the support their values lie in, so
// Optuna's add_trial accepts each value (Optuna has no normal or rounded float).
TEST(ReportDistributionsTest, NewShapesAsTheSupportOfTheirValues) {
  const Json d = ParamDistributions(Json::parse(R"({
    "b": {"type": "uniform", "low": 1, "high": 10, "q": 3.0},
    "c": {"type": "uniform", "low": 1, "high": 10, "q": 3.0, "clip": true},
    "f": {"type": "uniform", "low": 0, "high": 1, "q": 0.25},
    "x": {"type": "normal", "mu": 0, "sigma": 1, "low": -1, "high": 2},
    "y": {"type": "normal", "mu": 0, "sigma": 1, "low": null, "high": null}})"));
  EXPECT_EQ(d["b"], Json::parse(R"({"type":"int","low":0,"high":9,"step":3})"));
  EXPECT_EQ(d["c"], Json::parse(R"({"type":"int","low":1,"high":10,"step":1})"));
  EXPECT_EQ(d["f"], Json::parse(R"({"type":"float","low":0.0,"high":1.0,"log":false})"));
  EXPECT_EQ(d["x"], Json::parse(R"({"type":"float","low":-1,"high":2,"log":false})"));
  // Unbounded: the export fills the range the trials drew.
  const Json study = Json::parse(ExportOptuna(
      {MakeTrial(0, TrialState::kCompleted, 0.5, Json{{"y", -0.5}}),
       MakeTrial(1, TrialState::kCompleted, 0.6, Json{{"y", 1.5}})},
      {}, Json::parse(R"({"y": {"type": "normal", "mu": 0, "sigma": 1, "low": null, "high": null}})"),
      MakeContext()));
  EXPECT_EQ(study["distributions"]["y"],
            Json::parse(R"({"type":"float","low":-0.5,"high":1.5,"log":false})"));
}

TEST(ReportOptunaTest, FinishedTrialsWithParamsStatesAndCurves) {
  const Json p0 = Json::parse(
      R"({"lr":0.01,"dropout":0.1,"layers":3,"act":"relu","net":{"bn":true},"epochs":4})");
  TrialRecord done = MakeTrial(0, TrialState::kCompleted, 0.6, p0);
  done.attempt = 2;
  TrialRecord pruned = MakeTrial(3, TrialState::kPruned, 0.4, p0);
  pruned.failure_reason = "pruned: rank 2 of 2 at rung 0 (epoch 1): only the top 1 continue";
  TrialRecord running = MakeTrial(5, TrialState::kRunning, std::nullopt, p0);
  const Json study =
      Json::parse(ExportOptuna({done, pruned, running}, Curves(), Space(), MakeContext()));
  EXPECT_EQ(study["direction"], "maximize");
  EXPECT_EQ(study["metric"], "val_acc");
  EXPECT_FALSE(study["distributions"].contains("epochs"));  // constants apart
  EXPECT_EQ(study["constants"]["epochs"], 4);
  // A categorical of maps becomes one of JSON texts, in the trials too.
  EXPECT_EQ(study["distributions"]["net"]["choices"],
            Json::parse(R"(["{\"bn\":true}","{\"bn\":false}"])"));
  ASSERT_EQ(study["trials"].size(), 2u);  // running trials are not finished
  const Json& t0 = study["trials"][0];
  EXPECT_EQ(t0["state"], "COMPLETE");
  EXPECT_EQ(t0["value"], 0.6);
  EXPECT_EQ(t0["params"]["net"], "{\"bn\":true}");
  EXPECT_FALSE(t0["params"].contains("epochs"));
  // The last attempt's curve only.
  EXPECT_EQ(t0["intermediate_values"], Json::parse(R"({"1":0.55,"2":0.6})"));
  const Json& t3 = study["trials"][1];
  EXPECT_EQ(t3["state"], "PRUNED");
  EXPECT_TRUE(t3["value"].is_null());
  EXPECT_EQ(t3["intermediate_values"], Json::parse(R"({"1":0.4})"));
  EXPECT_THAT(t3["user_attrs"]["failure_reason"].get<std::string>(), HasSubstr("rung 0"));
}

// A conditional space's identity (nested_space.h): clf.C is two leaves, one per branch.
TEST(ReportOptunaTest, ConditionalTrialsHaveOnlyTheirParamsAndTheirOwnDistributions) {
  const Json space = Json::parse(R"({
    "clf": {"type": "choice", "values": [{"name": "svm"}, {"name": "lr"}, "none"]},
    "clf.C": [{"type": "loguniform", "low": 0.1, "high": 10,
               "when": [{"param": "clf", "values": [{"name": "svm"}]}]},
              {"type": "loguniform", "low": 0.01, "high": 1,
               "when": [{"param": "clf", "values": [{"name": "lr"}]}]}]})");
  const std::vector<TrialRecord> trials{
      MakeTrial(0, TrialState::kCompleted, 0.5, Json::parse(R"({"clf":{"name":"svm"},"clf.C":2})")),
      MakeTrial(1, TrialState::kCompleted, 0.6, Json::parse(R"({"clf":{"name":"lr"},"clf.C":0.5})")),
      MakeTrial(2, TrialState::kCompleted, 0.7, Json::parse(R"({"clf":"none"})"))};
  const Json study = Json::parse(ExportOptuna(trials, {}, space, MakeContext()));
  EXPECT_EQ(study["distributions"]["clf.C"]["low"], 0.1);  // the first leaf's
  const Json& t = study["trials"];
  EXPECT_FALSE(t[0].contains("distributions"));
  EXPECT_EQ(t[1]["distributions"]["clf.C"]["low"], 0.01);
  EXPECT_EQ(t[1]["params"]["clf.C"], 0.5);
  EXPECT_FALSE(t[2]["params"].contains("clf.C"));
  EXPECT_FALSE(t[2].contains("distributions"));
}

TEST(ReportOptunaTest, UnderCvEachOptunaTrialIsAConfigurationValuedByItsMean) {
  const Json p0 = Json::parse(R"({"lr":0.01,"dropout":0.1,"layers":3,"act":"relu","net":{"bn":true},"epochs":4})");
  const Json p1 = Json::parse(R"({"lr":0.02,"dropout":0.2,"layers":5,"act":"relu","net":{"bn":true},"epochs":4})");
  // 2 folds: configuration 0 = trials 0 (0.6) and 1 (0.8); configuration 1 failed.
  std::vector<TrialRecord> trials = {MakeTrial(0, TrialState::kCompleted, 0.6, p0),
                                     MakeTrial(1, TrialState::kCompleted, 0.8, p0),
                                     MakeTrial(2, TrialState::kFailed, std::nullopt, p1),
                                     MakeTrial(3, TrialState::kPruned, std::nullopt, p1)};
  trials[2].failure_reason = "exit code 1";
  const std::vector<IntermediateResult> curves = {
      Line(0, 1, 1, {{"val_acc", 0.5}}), Line(0, 1, 2, {{"val_acc", 0.6}}),
      Line(1, 1, 1, {{"val_acc", 0.7}}), Line(1, 1, 2, {{"val_acc", 0.8}}),
      Line(1, 1, 3, {{"val_acc", 0.9}})};  // only one fold got to step 3
  ReportContext ctx = MakeContext();
  ctx.cv = CvConfig{2, 0, 1};
  const Json study = Json::parse(ExportOptuna(trials, curves, Space(), ctx));
  ASSERT_EQ(study["trials"].size(), 2u);
  const Json& c0 = study["trials"][0];
  EXPECT_EQ(c0["number"], 0);
  EXPECT_EQ(c0["state"], "COMPLETE");
  EXPECT_NEAR(c0["value"].get<double>(), 0.7, 1e-12);
  EXPECT_EQ(c0["params"]["layers"], 3);
  EXPECT_EQ(c0["user_attrs"]["fold_values"], Json::parse("[0.6, 0.8]"));
  EXPECT_EQ(c0["user_attrs"]["fold_trials"], Json::parse("[0, 1]"));
  EXPECT_NEAR(c0["user_attrs"]["cv_std"].get<double>(), 0.141421, 1e-6);
  ASSERT_EQ(c0["intermediate_values"].size(), 2u);  // steps every fold reported
  EXPECT_NEAR(c0["intermediate_values"]["2"].get<double>(), 0.7, 1e-12);
  const Json& c1 = study["trials"][1];
  EXPECT_EQ(c1["number"], 1);
  EXPECT_EQ(c1["state"], "FAIL");
  EXPECT_TRUE(c1["value"].is_null());
  EXPECT_EQ(c1["user_attrs"]["fold_states"], Json::parse(R"(["failed", "pruned"])"));
  EXPECT_THAT(c1["user_attrs"]["failure_reason"].get<std::string>(),
              HasSubstr("fold 0 failed (exit code 1)"));
}

}  // namespace
}  // namespace gpusweep
