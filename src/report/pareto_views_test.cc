#include "report/pareto_views.h"

#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TrialRecord ParetoTrialRecord(int number, TrialState state, Json metrics) {
  TrialRecord t;
  t.number = number;
  t.state = state;
  t.params = Json{{"lr", 0.1 * number}};
  t.last_metrics = std::move(metrics);
  if (t.last_metrics.contains("acc")) t.objective = t.last_metrics["acc"].get<double>();
  return t;
}

const Objective kAccAndSize({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"ms", std::nullopt, 10.0}});

std::vector<TrialRecord> ParetoTrials() {
  return {
      ParetoTrialRecord(0, TrialState::kCompleted, {{"acc", 0.9}, {"size", 10}, {"ms", 5}}),  // front
      ParetoTrialRecord(1, TrialState::kCompleted, {{"acc", 0.8}, {"size", 2}, {"ms", 5}}),   // front
      ParetoTrialRecord(2, TrialState::kCompleted, {{"acc", 0.7}, {"size", 5}, {"ms", 5}}),   // dominated by 1
      ParetoTrialRecord(3, TrialState::kCompleted, {{"acc", 0.99}, {"size", 1}, {"ms", 12}}), // infeasible
      ParetoTrialRecord(4, TrialState::kFailed, {{"acc", 1.0}, {"size", 0}, {"ms", 0}}),      // not ranked
  };
}

TEST(ParetoViewsTest, RanksByFeasibleFrontThenCrowdingThenViolation) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, kAccAndSize);
  ASSERT_EQ(ranked.size(), 4u);
  EXPECT_EQ(ranked[0].trial->number, 0);
  EXPECT_EQ(ranked[1].trial->number, 1);
  EXPECT_EQ(ranked[0].rank, 0);
  EXPECT_EQ(ranked[1].rank, 0);
  EXPECT_EQ(ranked[2].trial->number, 2);
  EXPECT_EQ(ranked[2].rank, 1);
  EXPECT_EQ(ranked[3].trial->number, 3);  // best objectives, but infeasible: last
  EXPECT_EQ(ranked[3].violation, 2);
}

void ExpectSameRanking(const std::vector<ParetoTrial>& rows, const std::vector<ParetoTrial>& records) {
  ASSERT_EQ(rows.size(), records.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].trial, nullptr) << i;
    EXPECT_EQ(rows[i].number, records[i].trial->number) << i;
    EXPECT_EQ(rows[i].number, records[i].number) << i;
    ASSERT_EQ(rows[i].values.size(), records[i].values.size()) << i;
    for (std::size_t k = 0; k < rows[i].values.size(); ++k)
      EXPECT_TRUE(rows[i].values[k] == records[i].values[k] ||
                  (std::isnan(rows[i].values[k]) && std::isnan(records[i].values[k])))
          << i << " " << k;
    EXPECT_EQ(rows[i].rank, records[i].rank) << i;
    EXPECT_EQ(rows[i].crowding, records[i].crowding) << i;
    EXPECT_EQ(rows[i].violation, records[i].violation) << i;
  }
}

// Ranking rows (what status and best read at 100,000 trials) gives the ranking whole
// records give, through long permutation cycles, with missing and non-number values
// (a bool, a constraint's metric never reported) and a constraint-only metric.
TEST(ParetoViewsTest, RankingRowsRanksAsWholeRecordsDo) {
  std::vector<TrialRecord> trials;
  for (int k = 0; k < 300; ++k) {
    Json metrics{{"acc", ((k * 37) % 101) / 101.0}, {"size", (k * 53) % 97}, {"ms", (k * 7) % 13}};
    if (k % 17 == 3) metrics.erase("ms");      // never reported: violates by +inf
    if (k % 23 == 6) metrics.erase("size");
    trials.push_back(ParetoTrialRecord(k, k % 13 == 5 ? TrialState::kFailed : TrialState::kCompleted, metrics));
    if (k % 19 == 4) trials.back().last_metrics["acc"] = true;  // not a number: missing
  }
  ExpectSameRanking(RankParetoRows(RankingRowsOf(trials, kAccAndSize.MetricNames()), kAccAndSize),
                    RankParetoTrials(trials, kAccAndSize));
  // One constrained objective: the recorded objective is its value, as for records.
  const Objective acc_under_10ms({"acc", Mode::kMax}, {{"ms", std::nullopt, 10.0}});
  for (TrialRecord& t : trials)
    if (t.objective) *t.objective += 0.5;  // differs from last_metrics' acc
  const std::vector<ParetoTrial> single = RankParetoRows(RankingRowsOf(trials, acc_under_10ms.MetricNames()), acc_under_10ms);
  ExpectSameRanking(single, RankParetoTrials(trials, acc_under_10ms));
  ASSERT_FALSE(single.empty());
  EXPECT_GE(single.front().values[0], 1.0);
}

TEST(ParetoViewsTest, HypervolumeUsesTheGivenReferenceOrDerivesOne) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, kAccAndSize);
  // Reference acc 0.5 (max), size 12 (min): boxes (0.4 x 2) and (0.3 x 10), overlap 0.3 x 2.
  const auto given = ComputeFrontHypervolume(ranked, kAccAndSize, std::vector<double>{0.5, 12});
  ASSERT_TRUE(given);
  EXPECT_NEAR(given->value, 0.4 * 2 + 0.3 * 10 - 0.3 * 2, 1e-12);
  EXPECT_FALSE(given->derived);
  const auto derived = ComputeFrontHypervolume(ranked, kAccAndSize);
  ASSERT_TRUE(derived);
  EXPECT_TRUE(derived->derived);
  // Worst feasible acc 0.7 (range 0.2) -> 0.68; worst size 10 (range 8) -> 10.8.
  EXPECT_NEAR(derived->reference[0], 0.68, 1e-12);
  EXPECT_NEAR(derived->reference[1], 10.8, 1e-12);
  EXPECT_GT(derived->value, 0);
}

TEST(ParetoViewsTest, BestListsTheFrontWithObjectivesAndParamsAsTextAndJson) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  ReportContext ctx;
  ctx.experiment_dir = "/runs/e";
  const std::optional<std::string> text = FormatParetoBest(trials, ctx, kAccAndSize);
  ASSERT_TRUE(text);
  EXPECT_THAT(*text, HasSubstr("Pareto front: 2 of 4 completed trials"));
  EXPECT_THAT(*text, HasSubstr("trial 0\n  acc (max): 0.9\n  size (min): 10\n  violation: 0\n  ms: 5 (constraint <= 10)\n  lr = 0"));
  EXPECT_THAT(*text, HasSubstr("trial 1\n"));
  EXPECT_THAT(*text, HasSubstr("dir: /runs/e/trials/0001"));
  EXPECT_THAT(*text, Not(HasSubstr("trial 3")));
  const Json json = ParetoBestJson(trials, kAccAndSize);
  ASSERT_EQ(json["front"].size(), 2u);
  EXPECT_EQ(json["front"][1]["trial"], 1);
  EXPECT_EQ(json["front"][1]["values"]["size"], 2.0);
  EXPECT_EQ(json["front"][1]["feasible"], true);
  EXPECT_EQ(json["objectives"][1]["mode"], "min");
  EXPECT_EQ(json["constraints"][0]["max"], 10.0);
  EXPECT_EQ(json["hypervolume"]["derived"], true);
  // As the text lists them: each constrained metric's value, and the directory.
  EXPECT_EQ(json["front"][1]["constraint_values"], (Json{{"ms", 5}}));
  EXPECT_FALSE(json["front"][1].contains("dir"));
  const Json located = ParetoBestJson(trials, kAccAndSize, std::nullopt, {}, "/runs/e");
  EXPECT_EQ(located["front"][1]["dir"], "/runs/e/trials/0001");
}

TEST(ParetoViewsTest, StatusNamesTheFrontTheInfeasibleAndTheHypervolume) {
  const std::string status = FormatParetoStatus(ParetoTrials(), kAccAndSize);
  EXPECT_THAT(status, HasSubstr("Pareto front: 2 of 4 completed trials: 0, 1\n"));
  EXPECT_THAT(status, HasSubstr("Infeasible: 1 of 4 completed trials break a constraint\n"));
  EXPECT_THAT(status, HasSubstr("Hypervolume: "));
  EXPECT_THAT(status, HasSubstr("(reference acc=0.68, size=10.8; derived"));
}

// The run's summary with several objectives ranks in Pareto order, not by the first
// objective alone: trial 3 has the best acc and size, but breaks the constraint.
TEST(ParetoViewsTest, RunSummaryListsTrialsInParetoOrderWithEachObjective) {
  ReportContext ctx;
  ctx.experiment_name = "mo";
  ctx.metric = {"acc", Mode::kMax};
  ctx.pareto = kAccAndSize;
  ctx.total_trials = 5;
  const std::string summary = FormatSummary(ParetoTrials(), ctx, 3);
  EXPECT_THAT(summary, HasSubstr("Top 3 of 4 completed trials in Pareto order (acc max, size min; "
                                 "feasible first):\n"));
  EXPECT_THAT(summary, HasSubstr("RANK  TRIAL  acc  size  PARETO"));
  const auto row = [&](int rank) {
    const auto at = summary.find("\n   " + std::to_string(rank) + "  ");
    return at == std::string::npos ? std::string() : summary.substr(at + 1, summary.find('\n', at + 1) - at - 1);
  };
  EXPECT_THAT(row(1), HasSubstr("      0  0.9    10  front"));
  EXPECT_THAT(row(2), HasSubstr("      1  0.8     2  front"));
  EXPECT_THAT(row(3), HasSubstr("      2  0.7     5  2"));
  EXPECT_THAT(summary, Not(HasSubstr("   4  ")));  // 3 rows: the infeasible trial 3 is 4th
  EXPECT_THAT(summary, HasSubstr("Pareto front: 2 of 4 completed trials: 0, 1\n"));
  EXPECT_THAT(summary, HasSubstr("Infeasible: 1 of 4 completed trials break a constraint\n"));
  EXPECT_THAT(summary, HasSubstr("Hypervolume: "));
}

TEST(ParetoViewsTest, NothingFeasibleListsTheLeastViolatingAndNoHypervolume) {
  std::vector<TrialRecord> trials{
      ParetoTrialRecord(0, TrialState::kCompleted, {{"acc", 0.9}, {"size", 10}, {"ms", 15}}),
      ParetoTrialRecord(1, TrialState::kCompleted, {{"acc", 0.8}, {"size", 2}, {"ms", 11}})};
  ReportContext ctx;
  const std::optional<std::string> text = FormatParetoBest(trials, ctx, kAccAndSize);
  ASSERT_TRUE(text);
  EXPECT_THAT(*text, HasSubstr("No feasible trial: the 1 least violating of 2 completed trials"));
  EXPECT_THAT(*text, HasSubstr("trial 1\n"));
  // The constrained metric's own value beside the violation it gives.
  EXPECT_THAT(*text, HasSubstr("  violation: 1\n  ms: 11 (constraint <= 10)\n"));
  EXPECT_TRUE(ParetoBestJson(trials, kAccAndSize)["hypervolume"].is_null());
  EXPECT_THAT(FormatParetoStatus(trials, kAccAndSize), Not(HasSubstr("Hypervolume")));
  EXPECT_FALSE(FormatParetoBest({}, ctx, kAccAndSize));
}

// One feasible trial: its range is 0 in every objective, so the derived reference is 1
// past it and the volume 1, in no unit: the line says so instead of "10% of the range".
TEST(ParetoViewsTest, ADerivedReferenceOverEqualValuesSaysItsVolumeIsArbitrary) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  const std::string one = FormatParetoStatus({trials[0], trials[3]}, kAccAndSize);
  EXPECT_THAT(one, HasSubstr("Hypervolume: 1 (reference acc=-0.1, size=11; derived: 1 past the feasible "
                             "value of acc, size (all equal): a volume in arbitrary units; set "
                             "hypervolume_reference to compare runs)\n"));
  // Only some objectives flat: the rest keep the 10% rule, and the line says which.
  std::vector<TrialRecord> same_acc{trials[0], trials[1]};
  same_acc[1].last_metrics["acc"] = 0.9;
  EXPECT_THAT(FormatParetoStatus(same_acc, kAccAndSize),
              HasSubstr("derived: 1 past the feasible value of acc (all equal), 10% of the range past "
                        "the worst feasible value for the rest: a volume in arbitrary units"));
  EXPECT_EQ(ComputeFrontHypervolume(RankParetoTrials(trials, kAccAndSize), kAccAndSize)->flat.size(), 0u);
  // A reference given in the config is used as it is.
  EXPECT_THAT(FormatParetoStatus({trials[0]}, kAccAndSize, std::vector<double>{0.5, 12}),
              Not(HasSubstr("arbitrary")));
}

// A constraint on a metric the trials never report makes every trial infeasible by an
// infinite violation; the status says which name to check.
TEST(ParetoViewsTest, StatusSaysWhenTrialsReportedNoValueForAConstraint) {
  const Objective misspelt({{"acc", Mode::kMax}, {"size", Mode::kMin}}, {{"latency", std::nullopt, 10.0}});
  const std::string all = FormatParetoStatus(ParetoTrials(), misspelt);
  EXPECT_THAT(all, HasSubstr("Infeasible: 4 of 4 completed trials break a constraint\n"
                             "  all of them reported no number for 'latency' (constraints:): a missing "
                             "value breaks its constraint; check that each name is a metric the trials "
                             "write\n"));
  std::vector<TrialRecord> some = ParetoTrials();
  some[1].last_metrics.erase("ms");
  const std::string one = FormatParetoStatus(some, kAccAndSize);
  EXPECT_THAT(one, HasSubstr("Infeasible: 2 of 4 completed trials break a constraint\n  1 of them "
                             "reported no number for 'ms'"));
  EXPECT_THAT(FormatParetoStatus(ParetoTrials(), kAccAndSize), Not(HasSubstr("reported no number")));
}

TEST(ParetoViewsTest, RankTextNamesTheFrontLaterFrontsAndTheViolation) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, kAccAndSize);
  EXPECT_EQ(ParetoRankText(ranked[0]), "front");
  EXPECT_EQ(ParetoRankText(ranked[2]), "2");
  EXPECT_EQ(ParetoRankText(ranked[3]), "infeasible +2");
}

TEST(ParetoViewsTest, BestHeaderCountsTheFrontOrGivesTheBestFeasibleValue) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  EXPECT_EQ(ParetoBestHeader(trials, kAccAndSize),
            "Pareto front of 2 trials (acc max, size min); `gpusweep best` lists them");
  // One constrained metric: trial 3 has the best acc but breaks ms <= 10.
  const Objective acc_only(MetricSpec{"acc", Mode::kMax}, {{"ms", std::nullopt, 10.0}});
  EXPECT_EQ(ParetoBestHeader(trials, acc_only), "acc=0.9 (trial #0, the best of the feasible trials)");
  const std::vector<TrialRecord> infeasible{trials[3]};
  EXPECT_EQ(ParetoBestHeader(infeasible, acc_only),
            "no feasible trial yet: the 1 completed trial breaks a constraint");
  EXPECT_EQ(ParetoBestHeader({trials[0]}, kAccAndSize),
            "Pareto front of 1 trial (acc max, size min); `gpusweep best` lists it");
  EXPECT_EQ(ParetoBestHeader({}, acc_only), "no completed trial yet");
}

TEST(ParetoViewsTest, StatusLinesUseTheConfiguredReference) {
  const std::vector<TrialRecord> trials = ParetoTrials();
  const std::string given = FormatParetoStatus(trials, kAccAndSize, std::vector<double>{0.5, 12});
  EXPECT_THAT(given, HasSubstr("Hypervolume: 3.2 (reference acc=0.5, size=12)\n"));
  EXPECT_THAT(FormatParetoStatus(trials, kAccAndSize), HasSubstr("derived"));
  EXPECT_EQ(ParetoBestJson(trials, kAccAndSize, std::vector<double>{0.5, 12})["hypervolume"]["derived"], false);
}

}  // namespace
}  // namespace gpusweep
