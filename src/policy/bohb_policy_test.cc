// BOHB as a policy: which budget it models from, which results it models, how often it
// draws at random, what it observes in each trial style, and that the same calls give
// the same suggestions (a resumed run replays them).
#include "policy/bohb_policy.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "gpusweep/scheduler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using test_support::Real;

const SearchSpace kSpace{{Real("x", ParamKind::kUniform, 0, 1), Real("y", ParamKind::kUniform, 0, 1)}};
constexpr int kTrials = 60;
constexpr std::uint64_t kSeed = 11;

// tpe as config/bohb_check.cc sets it up under bohb.
SamplerConfig BohbTpe() {
  SamplerConfig config;
  config.kind = SamplerKind::kTpe;
  config.trials = kTrials;
  config.seed = kSeed;
  config.tpe.n_startup_trials = 1;
  config.tpe.multivariate = true;
  return config;
}

std::unique_ptr<Sampler> Tpe() {
  auto sampler = MakeSampler(BohbTpe(), kSpace, Mode::kMax);
  EXPECT_TRUE(sampler.has_value());
  return std::move(*sampler);
}

SchedulerConfig Bohb(double random_fraction, int min_points = 0) {
  SchedulerConfig config;
  config.kind = SchedulerKind::kBohb;
  config.resource = "epoch";
  config.min_resource = 1;
  config.max_resource = 9;
  config.reduction_factor = 3;
  config.bohb.random_fraction = random_fraction;
  config.bohb.min_points_in_model = min_points;
  return config;
}

std::unique_ptr<BohbPolicy> Make(const SchedulerConfig& config, TrialStyle style) {
  auto scheduler = MakeScheduler(config, Mode::kMax, kTrials, style);
  EXPECT_TRUE(scheduler.has_value()) << scheduler.error().message;
  return std::make_unique<BohbPolicy>(Tpe(), std::move(*scheduler), style, config.max_resource,
                                      config.bohb, BohbMinPoints(config.bohb, kSpace), kSeed);
}

double Score(const Params& params) {
  const double x = params["x"].get<double>(), y = params["y"].get<double>();
  return -(x - 0.2) * (x - 0.2) - (y - 0.7) * (y - 0.7);
}

// Runs a budgeted policy one job at a time, each scoring Score(params) + budget / 100
// (results improve with the budget), keeping the trials as the journal would hold them.
class Runner {
 public:
  explicit Runner(BohbPolicy& policy) : policy_(policy) {}

  // Runs up to `jobs` more jobs; returns the history after them.
  std::vector<TrialRecord> Run(int jobs) {
    for (int done = 0; done < jobs; ++done) {
      const Job job = policy_.NextJob({});
      if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) break;
      if (job.kind == Job::Kind::kStart) {
        TrialRecord record;
        record.number = job.trial;
        record.params = policy_.Suggest(job.trial, History()).params;
        trials_[job.trial] = record;
      }
      policy_.JobStarted(job);
      TrialRecord& record = trials_.at(job.trial);
      const double value = Score(record.params) + job.budget / 100;
      policy_.OnJobFinished(job, value);
      record.state = TrialState::kCompleted;
      record.objective = value;
      record.budget = job.budget;
      ++results_[job.budget];
      values_[job.budget][job.trial] = value;
    }
    return History();
  }

  std::vector<TrialRecord> History() const {
    std::vector<TrialRecord> history;
    for (const auto& [number, record] : trials_) history.push_back(record);
    return history;
  }
  // The trials with a result at `budget`, in number order, each completed with its
  // value there as its objective: what tpe should model at that budget.
  std::vector<TrialRecord> AtBudget(double budget) const {
    std::vector<TrialRecord> at;
    for (const auto& [number, value] : values_.at(budget)) {
      TrialRecord record = trials_.at(number);
      record.objective = value;
      at.push_back(record);
    }
    return at;
  }
  // The most results any one budget has.
  int MostAtOneBudget() const {
    int most = 0;
    for (const auto& [budget, count] : results_) most = std::max(most, count);
    return most;
  }

 private:
  BohbPolicy& policy_;
  std::map<int, TrialRecord> trials_;
  std::map<double, int> results_;  // budget -> results there
  std::map<double, std::map<int, double>> values_;  // budget -> trial -> value there
};

TEST(BohbPolicyTest, MinPointsDefaultsToVaryingParamsPlusOne) {
  SearchSpace space = kSpace;
  ParamSpec constant;
  constant.name = "c";
  constant.kind = ParamKind::kConstant;
  constant.constant = 4;
  space.params.push_back(constant);
  EXPECT_EQ(BohbMinPoints(BohbConfig{}, space), 3);  // x, y: the constant does not count
  EXPECT_EQ(BohbMinPoints(BohbConfig{.random_fraction = 0.3, .min_points_in_model = 7}, space), 7);
}

TEST(BohbPolicyTest, DrawsAtRandomUntilABudgetHasMinPointsPlusTwoResults) {
  auto policy = Make(Bohb(0), TrialStyle::kBudgeted);  // N_min = 3: a model needs 5 results
  EXPECT_FALSE(policy->ModelBudget({}));
  Runner runner(*policy);
  std::vector<TrialRecord> history;
  while (runner.MostAtOneBudget() < 5) {
    EXPECT_FALSE(policy->ModelBudget(history)) << runner.MostAtOneBudget() << " results";
    // Without a model, trial k is tpe's prior draw for k, whatever the history says.
    EXPECT_EQ(policy->Suggest(40, history).params, policy->Suggest(40, {}).params);
    history = runner.Run(1);
  }
  EXPECT_TRUE(policy->ModelBudget(history)) << "five results at one budget";
}

TEST(BohbPolicyTest, ModelsTheLargestBudgetWithEnoughResults) {
  auto policy = Make(Bohb(0, /*min_points=*/1), TrialStyle::kBudgeted);  // 3 results suffice
  Runner runner(*policy);
  std::optional<double> largest;
  // Play the brackets out: budget 1 fills first, then 3 (promotions), then 9.
  for (int step = 0; step < 60; ++step) {
    const std::vector<TrialRecord> history = runner.Run(1);
    const auto budget = policy->ModelBudget(history);
    if (budget) {
      EXPECT_GE(*budget, largest.value_or(0)) << "the model budget never goes back down";
      largest = budget;
    }
  }
  ASSERT_TRUE(largest);
  EXPECT_DOUBLE_EQ(*largest, 9);
}

// Runs `policy` until one budget has at least `results` results.
std::vector<TrialRecord> RunUntil(Runner& runner, int results) {
  std::vector<TrialRecord> history;
  while (runner.MostAtOneBudget() < results) history = runner.Run(1);
  return history;
}

TEST(BohbPolicyTest, ModelsOnlyTheResultsAtItsBudget) {
  auto policy = Make(Bohb(0), TrialStyle::kBudgeted);
  Runner runner(*policy);
  const std::vector<TrialRecord> history = RunUntil(runner, 5);
  const std::optional<double> budget = policy->ModelBudget(history);
  ASSERT_TRUE(budget);
  // The journal's objective is each trial's last value; BOHB must model each trial's
  // value at the model budget instead. Give the records misleading objectives: the
  // suggestion must be tpe's on the values at that budget.
  std::vector<TrialRecord> misleading = history;
  for (TrialRecord& record : misleading) record.objective = -*record.objective;
  const Suggestion got = policy->Suggest(30, misleading);
  EXPECT_EQ(got.params, Tpe()->Suggest(30, runner.AtBudget(*budget)).params);
  EXPECT_NE(got.params, Tpe()->Suggest(30, misleading).params);
  EXPECT_NE(got.params, policy->Suggest(30, {}).params) << "a model draw, not the prior's";
}

TEST(BohbPolicyTest, RandomFractionIsTheShareOfPriorDraws) {
  auto all_random = Make(Bohb(1), TrialStyle::kBudgeted);
  Runner first(*all_random);
  const std::vector<TrialRecord> history = RunUntil(first, 5);
  ASSERT_TRUE(all_random->ModelBudget(history));
  for (int k = 20; k < 30; ++k)
    EXPECT_EQ(all_random->Suggest(k, history).params, all_random->Suggest(k, {}).params);

  auto third = Make(Bohb(1.0 / 3), TrialStyle::kBudgeted);
  Runner second(*third);
  const std::vector<TrialRecord> same = RunUntil(second, 5);
  ASSERT_TRUE(third->ModelBudget(same));
  int prior = 0;
  for (int k = 100; k < 400; ++k)
    prior += third->Suggest(k, same).params == third->Suggest(k, {}).params ? 1 : 0;
  // 300 draws at p = 1/3: 100 expected, sd 8.2; the draws are a fixed function of the seed.
  EXPECT_GT(prior, 70);
  EXPECT_LT(prior, 130);
}

TEST(BohbPolicyTest, FailedEvaluationsAreNotModelled) {
  auto policy = Make(Bohb(0), TrialStyle::kBudgeted);
  int succeeded = 0;
  for (int i = 0; i < 12; ++i) {
    const Job job = policy->NextJob({});
    if (job.kind != Job::Kind::kStart && job.kind != Job::Kind::kPromote) break;
    policy->JobStarted(job);
    const bool ok = job.kind == Job::Kind::kStart && succeeded < 4;
    succeeded += ok ? 1 : 0;
    policy->OnJobFinished(job, ok ? std::optional<double>(0.5) : std::nullopt);
  }
  EXPECT_EQ(succeeded, 4);
  EXPECT_FALSE(policy->ModelBudget({})) << "4 results and failures: no model yet";
}

TEST(BohbPolicyTest, IterativeTrialsAreObservedAtTheirRungsAndAtMaxResource) {
  auto policy = Make(Bohb(0, /*min_points=*/1), TrialStyle::kIterative);
  // Three trials of the bracket with rungs 1, 3, 9 report every epoch up to 9.
  std::vector<int> started;
  while (started.size() < 3) {
    const Job job = policy->NextJob({});
    ASSERT_EQ(job.kind, Job::Kind::kStart);
    policy->JobStarted(job);
    if (policy->StopPoints(job.trial) == std::vector<double>{1, 3}) started.push_back(job.trial);
    else policy->OnJobFinished(job, std::nullopt);  // another bracket's: failed, unmodelled
  }
  for (int trial : started) {
    for (double epoch = 1; epoch <= 2; ++epoch) policy->OnReport(trial, epoch, 0.1 * epoch);
  }
  EXPECT_EQ(policy->ModelBudget({}), 1.0) << "three results at rung 1";
  for (int trial : started) {
    for (double epoch = 3; epoch <= 9; ++epoch) policy->OnReport(trial, epoch, 0.1 * epoch);
  }
  EXPECT_EQ(policy->ModelBudget({}), 9.0) << "three results at max_resource";
}

TEST(BohbPolicyTest, WarmStartTrialsCountAtTheirBudgetOrMaxResource) {
  auto policy = Make(Bohb(0, /*min_points=*/1), TrialStyle::kBudgeted);
  std::vector<TrialRecord> warm;
  for (int i = 1; i <= 3; ++i) {
    TrialRecord record;
    record.number = -i;
    record.state = TrialState::kCompleted;
    record.params = Json{{"x", 0.1 * i}, {"y", 0.5}};
    record.objective = 0.1 * i;
    if (i == 3) record.budget = 9;
    warm.push_back(record);
  }
  EXPECT_EQ(policy->ModelBudget(warm), 9.0);
  warm.pop_back();
  EXPECT_FALSE(policy->ModelBudget(warm)) << "two at max_resource, one short";
}

TEST(BohbPolicyTest, TheSameCallsGiveTheSameSuggestions) {
  auto first = Make(Bohb(1.0 / 3), TrialStyle::kBudgeted);
  auto second = Make(Bohb(1.0 / 3), TrialStyle::kBudgeted);
  const std::vector<TrialRecord> a = Runner(*first).Run(25);
  const std::vector<TrialRecord> b = Runner(*second).Run(25);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].params, b[i].params);
  for (int k = 40; k < 50; ++k) EXPECT_EQ(first->Suggest(k, a).params, second->Suggest(k, b).params);
}

}  // namespace
}  // namespace gpusweep
