// Multi-objective ASHA (Ranking::kPareto): rungs ranked by constraint-domination front,
// then crowding distance, then trial (rung_table.h, asha_bracket.h).
#include <limits>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "schedule/rung_table.h"
#include "schedule/test_util.h"

namespace gpusweep::schedule_detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Two minimised objectives; the primary value is the first loss.
Evaluation Two(double a, double b, double violation = 0) { return Evaluation{a, {a, b}, violation}; }

std::unique_ptr<Scheduler> MoAsha(double max, double eta, int configurations, TrialStyle style,
                                  bool constrained = false) {
  std::vector<ConstraintSpec> constraints;
  if (constrained) constraints.push_back(ConstraintSpec{"latency", std::nullopt, 1.0});
  const Objective objective({MetricSpec{"a", Mode::kMin}, MetricSpec{"b", Mode::kMin}},
                            constraints);
  auto made = MakeScheduler(RungConfig(SchedulerKind::kAsha, 1, max, eta), objective,
                            configurations, style);
  EXPECT_TRUE(made.has_value()) << (made ? "" : made.error().message);
  return made ? std::move(*made) : nullptr;
}

// Starts every configuration at rung 0, finishes each with its evaluation, then
// launches promotions until there is none: the promoted trials, in promotion order.
std::vector<int> PromotedFromRungZero(Scheduler& asha, const std::vector<Evaluation>& at_rung0) {
  std::vector<Job> jobs;
  for (size_t i = 0; i < at_rung0.size(); ++i) jobs.push_back(Launch(asha));
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(jobs[i].kind, Job::Kind::kStart);
    const Decision d = asha.OnJobEvaluated(jobs[i], at_rung0[static_cast<size_t>(jobs[i].trial)]);
    EXPECT_EQ(d.verdict, Verdict::kPause) << d.reason;
  }
  std::vector<int> promoted;
  for (Job job = Launch(asha); job.kind == Job::Kind::kPromote; job = Launch(asha)) {
    EXPECT_EQ(job.rung, 1);
    promoted.push_back(job.trial);
  }
  return promoted;
}

TEST(MoAshaRungTable, RanksByFrontThenCrowdingThenTrial) {
  RungTable table(Mode::kMin, Ranking::kPareto);
  table.Record(0, Two(1, 9));    // front 0, crowding 1.0
  table.Record(1, Two(6, 6));    // front 1 (dominated by 2)
  table.Record(2, Two(5, 5));    // front 0, crowding 1.8
  table.Record(3, Two(10, 0));   // front 0, an extreme
  table.Record(4, Two(0, 10));   // front 0, an extreme
  table.Record(5, Evaluation{}); // failed: last
  std::vector<int> order;
  for (const RungTable::Entry& e : table.ranked()) order.push_back(e.trial);
  EXPECT_EQ(order, (std::vector<int>{3, 4, 2, 0, 1, 5}));
  EXPECT_EQ(table.RankOf(2), 2);
  EXPECT_EQ(table.ranked()[2].front, 0);
  EXPECT_NEAR(table.ranked()[2].crowding, 1.8, 1e-12);
  EXPECT_NEAR(table.ranked()[3].crowding, 1.0, 1e-12);
  EXPECT_EQ(table.ranked()[4].front, 1);
  EXPECT_EQ(table.ranked()[5].front, -1);
}

TEST(MoAshaBudgeted, PromotesExactlyTheNonDominatedTrials) {
  // Trials 1, 3 and 5 are the front; every other trial is dominated by one of them.
  // Ranking by the first objective alone would promote 1, 5 and 8 instead.
  const std::vector<Evaluation> rung0{Two(3, 6), Two(1, 5), Two(4, 4), Two(5, 1), Two(6, 6),
                                      Two(2, 2), Two(3, 3), Two(7, 2), Two(2, 7)};
  auto asha = MoAsha(9, 3, 9, TrialStyle::kBudgeted);
  // floor(9/3) = 3 promotions: the front's two extremes (crowding +inf, lower trial
  // first), then its middle.
  EXPECT_EQ(PromotedFromRungZero(*asha, rung0), (std::vector<int>{1, 3, 5}));
}

TEST(MoAshaBudgeted, CrowdingBreaksTiesInsideTheFront) {
  // Four non-dominated trials and two dominated; floor(6/2) = 3 are promoted: the
  // extremes and the front's sparsest middle (5, 5), not (1, 9), which is better in
  // the first objective but crowded by (0, 10).
  const std::vector<Evaluation> rung0{Two(1, 9), Two(6, 6), Two(5, 5),
                                      Two(10, 0), Two(0, 10), Two(11, 11)};
  auto asha = MoAsha(4, 2, 6, TrialStyle::kBudgeted);
  EXPECT_EQ(PromotedFromRungZero(*asha, rung0), (std::vector<int>{3, 4, 2}));
}

TEST(MoAshaBudgeted, InfeasibleIsNeverPromotedOverFeasible) {
  // Trials 0 and 2 dominate trial 1 in both objectives but break the constraint.
  const std::vector<Evaluation> rung0{Two(0, 0, 0.5), Two(5, 5), Two(0, 0, 0.1)};
  auto asha = MoAsha(9, 3, 3, TrialStyle::kBudgeted, /*constrained=*/true);
  EXPECT_EQ(PromotedFromRungZero(*asha, rung0), (std::vector<int>{1}));
}

TEST(MoAshaBudgeted, InfeasibleRankByViolationAndFailedNeverPromoted) {
  // Nothing feasible: the smaller violation first; +inf (a constraint metric missing)
  // after it; the failed job (no value) is never promoted even at the tail.
  const std::vector<Evaluation> rung0{Two(0, 0, kInf), Two(9, 9, 0.2), Evaluation{},
                                      Two(1, 1, 0.7)};
  auto asha = MoAsha(9, 3, 4, TrialStyle::kBudgeted, /*constrained=*/true);
  std::vector<Job> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back(Launch(*asha));
  for (const Job& job : jobs) asha->OnJobEvaluated(job, rung0[static_cast<size_t>(job.trial)]);
  Job first = Launch(*asha);  // floor(4/3) = 1
  ASSERT_EQ(first.kind, Job::Kind::kPromote);
  EXPECT_EQ(first.trial, 1);
  asha->OnJobEvaluated(first, Two(9, 9, 0.2));  // rung 1 of 1, 3, 9: paused there
  // Nothing running and no configuration left: the tail promotion takes rung 1's best.
  Job tail = Launch(*asha);
  ASSERT_EQ(tail.kind, Job::Kind::kPromote);
  EXPECT_EQ(tail.trial, 1);
  EXPECT_EQ(tail.rung, 2);
}

TEST(MoAshaIterative, StopsWhatIsOutsideTheTopByParetoRank) {
  auto asha = MoAsha(9, 3, 10, TrialStyle::kIterative, /*constrained=*/true);
  ASSERT_TRUE(asha);
  auto first = asha->OnEvaluatedReport(0, 1, Two(5, 5));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->verdict, Verdict::kContinue);
  EXPECT_EQ(first->reason,
            "rank 1 (front 1, crowding inf) of 1 at rung 0 (epoch 1): in the top 1, continues");
  // Better in both objectives but infeasible: ranks 2nd of 2, ceil(2/3) = 1 continues.
  auto infeasible = asha->OnEvaluatedReport(1, 1, Two(0, 0, 0.3));
  ASSERT_TRUE(infeasible);
  EXPECT_EQ(infeasible->verdict, Verdict::kStop);
  EXPECT_EQ(infeasible->reason,
            "rank 2 (infeasible, violation 0.3) of 2 at rung 0 (epoch 1): only the top 1 continue");
  // Non-dominated with trial 0: both on the front, both extremes; the tie goes to the
  // lower trial, so 2 ranks 2nd of 3 and ceil(3/3) = 1 continues.
  auto incomparable = asha->OnEvaluatedReport(2, 1, Two(1, 9));
  ASSERT_TRUE(incomparable);
  EXPECT_EQ(incomparable->verdict, Verdict::kStop);
  // Dominates trial 0 and is incomparable with trial 2: front {2, 3}, rank 2 of 4,
  // ceil(4/3) = 2 continue.
  auto dominating = asha->OnEvaluatedReport(3, 1, Two(4, 4));
  ASSERT_TRUE(dominating);
  EXPECT_EQ(dominating->verdict, Verdict::kContinue);
}

TEST(MoAshaHyperbandAndHalving, RankRoundsAndBracketsByParetoToo) {
  const Objective objective({MetricSpec{"a", Mode::kMin}, MetricSpec{"b", Mode::kMin}});
  // Successive halving: 3 configurations, eta 3 -> ceil(3/3) = 1 survives the round.
  const Objective constrained(objective.metrics(), {ConstraintSpec{"c", std::nullopt, 1.0}});
  auto halving = MakeScheduler(RungConfig(SchedulerKind::kSuccessiveHalving, 1, 9, 3),
                               constrained, 3, TrialStyle::kBudgeted);
  ASSERT_TRUE(halving) << halving.error().message;
  std::vector<Job> jobs;
  for (int i = 0; i < 3; ++i) jobs.push_back(Launch(**halving));
  // Trial 0 is infeasible, and trial 2 dominates trial 1; primary-only ranking would
  // keep trial 0.
  const std::vector<Evaluation> round0{Two(1, 9, 0.5), Two(3, 8), Two(2, 2)};
  for (const Job& job : jobs) (*halving)->OnJobEvaluated(job, round0[static_cast<size_t>(job.trial)]);
  const Job survivor = Launch(**halving);
  ASSERT_EQ(survivor.kind, Job::Kind::kPromote);
  EXPECT_EQ(survivor.trial, 2);
  // Hyperband's brackets are ASHA brackets: they take the ranking. With brackets: 1,
  // only the most aggressive (rungs 1, 3, 9), so every trial shares rung 0.
  SchedulerConfig one_bracket = RungConfig(SchedulerKind::kHyperband, 1, 9, 3);
  one_bracket.brackets = 1;
  auto hyperband = MakeScheduler(one_bracket, objective, 30, TrialStyle::kIterative);
  ASSERT_TRUE(hyperband) << hyperband.error().message;
  EXPECT_EQ((*hyperband)->OnEvaluatedReport(0, 1, Two(5, 5))->verdict, Verdict::kContinue);
  // Incomparable with trial 0, the tie goes to trial 0 (by the first objective alone
  // trial 1 would rank first and continue).
  EXPECT_EQ((*hyperband)->OnEvaluatedReport(1, 1, Two(4, 6))->verdict, Verdict::kStop);
  EXPECT_EQ((*hyperband)->OnEvaluatedReport(2, 1, Two(4, 4))->verdict, Verdict::kContinue);
}

TEST(MoAshaMedian, RefusesSeveralObjectivesAndConstraints) {
  const Objective two({MetricSpec{"a", Mode::kMin}, MetricSpec{"b", Mode::kMax}});
  const Objective constrained(MetricSpec{"a", Mode::kMin}, {ConstraintSpec{"c", std::nullopt, 1.0}});
  for (const Objective* objective : {&two, &constrained}) {
    auto median = MakeScheduler(RungConfig(SchedulerKind::kMedian, 1, 9, 3), *objective, 4,
                                TrialStyle::kIterative);
    ASSERT_FALSE(median);
    EXPECT_EQ(median.error().code, ErrorCode::kInvalidConfig);
    EXPECT_NE(median.error().message.find("median ranks trials by one metric"), std::string::npos);
    EXPECT_NE(median.error().message.find("use asha"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpusweep::schedule_detail
