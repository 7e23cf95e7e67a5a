// The fold policy's params: every fold of a configuration gets its params, and TPE learns from
// the configurations' cross-validated means, never from single folds.
#include "policy/fold_policy.h"
#include "policy/sweep_policy.h"

#include <gtest/gtest.h>

#include "gpusweep/cv.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep {
namespace {

using test_support::Real;

const SearchSpace kSpace{{Real("x", ParamKind::kUniform, -5, 5), Real("y", ParamKind::kUniform, 0, 3)}};

std::unique_ptr<Sampler> Tpe(int trials) {
  SamplerConfig config;
  config.kind = SamplerKind::kTpe;
  config.trials = trials;
  config.seed = 7;
  config.tpe.n_startup_trials = 3;
  auto sampler = MakeSampler(config, kSpace, Mode::kMin);
  EXPECT_TRUE(sampler.has_value());
  return std::move(*sampler);
}

TrialRecord Fold(int number, const Params& params, double objective) {
  TrialRecord t;
  t.number = number;
  t.params = params;
  t.state = TrialState::kCompleted;
  t.objective = objective;
  return t;
}

// Fold f's value: x^2 + y plus a fold-dependent offset, so single folds disagree.
double FoldValue(const Params& p, int fold) {
  const double x = p["x"].get<double>();
  return x * x + p["y"].get<double>() + (fold == 0 ? -3.0 : 1.5);
}

TEST(FoldPolicySamplingTest, CountsFoldTrialsAndGivesEveryFoldItsConfigurationsParams) {
  const CvConfig cv{3, 0, 1};
  FoldPolicy folds(std::make_unique<SweepPolicy>(Tpe(8)), cv);
  EXPECT_EQ(folds.total_trials(), 24);
  EXPECT_EQ(folds.configurations(), 8);
  const Suggestion first = folds.Suggest(3, {});  // configuration 1, fold 0
  EXPECT_EQ(first.number, 3);
  EXPECT_EQ(first.params, Tpe(8)->Suggest(1, {}).params);
  // Fold 2 of configuration 1 takes fold 0's params even if the sampler moved on.
  TrialRecord running = Fold(3, first.params, 0);
  running.state = TrialState::kRunning;
  running.objective.reset();
  std::vector<TrialRecord> history{running, Fold(0, Params{{"x", 4.0}, {"y", 1.0}}, 9.0)};
  EXPECT_EQ(folds.Suggest(5, history).params, first.params);
}

TEST(FoldPolicySamplingTest, TpeLearnsFromConfigurationMeans) {
  const CvConfig cv{3, 0, 1};
  FoldPolicy folds(std::make_unique<SweepPolicy>(Tpe(12)), cv);
  auto plain = Tpe(12);
  std::vector<TrialRecord> history;        // what the run records: fold trials
  std::vector<TrialRecord> configurations; // what TPE must have seen: means
  for (int c = 0; c < 6; ++c) {
    const Suggestion s = folds.Suggest(FoldTrialNumber(c, 0, 3), history);
    double sum = 0;
    for (int f = 0; f < 3; ++f) {
      const Suggestion fold = folds.Suggest(FoldTrialNumber(c, f, 3), history);
      ASSERT_EQ(fold.params, s.params);
      const double value = FoldValue(fold.params, f);
      history.push_back(Fold(FoldTrialNumber(c, f, 3), fold.params, value));
      sum += value;
    }
    // The configuration the same sampler suggests from a history of configurations.
    EXPECT_EQ(s.params, plain->Suggest(c, configurations).params) << "configuration " << c;
    configurations.push_back(Fold(c, s.params, sum / 3));
  }
  const Suggestion next = folds.Suggest(FoldTrialNumber(6, 0, 3), history);
  EXPECT_EQ(next.params, plain->Suggest(6, configurations).params);
}

TEST(FoldPolicySamplingTest, FailedConfigurationsAreLeftOutAndWarmStartsPassThrough) {
  const CvConfig cv{2, 0, 1};
  FoldPolicy folds(std::make_unique<SweepPolicy>(Tpe(12)), cv);
  auto plain = Tpe(12);
  const Params a{{"x", 1.0}, {"y", 1.0}}, b{{"x", -2.0}, {"y", 0.5}}, w{{"x", 0.0}, {"y", 0.0}};
  TrialRecord failed = Fold(3, b, 0);
  failed.state = TrialState::kFailed;
  failed.objective.reset();
  const std::vector<TrialRecord> history{Fold(-1, w, 0.1), Fold(0, a, 2.0), Fold(1, a, 4.0),
                                         Fold(2, b, 1.0), failed};
  // Configuration 1 failed (a fold failed, none allowed): TPE ignores failed trials.
  TrialRecord failed_configuration = Fold(1, b, 1.0);
  failed_configuration.state = TrialState::kFailed;
  const std::vector<TrialRecord> seen{Fold(-1, w, 0.1), Fold(0, a, 3.0), failed_configuration};
  EXPECT_EQ(folds.Suggest(4, history).params, plain->Suggest(2, seen).params);
}

std::unique_ptr<Sampler> Nsga2(int trials) {
  SamplerConfig config;
  config.kind = SamplerKind::kNsga2;
  config.trials = trials;
  config.seed = 11;
  config.nsga2.population = 4;
  auto sampler = MakeSampler(config, kSpace,
                             Objective({{"f1", Mode::kMin}, {"f2", Mode::kMin}},
                                       {ConstraintSpec{"c", std::nullopt, 4.0}}));
  EXPECT_TRUE(sampler.has_value());
  return std::move(*sampler);
}

// Fold f's objectives: the folds disagree (fold 0 alone would rank differently), and
// the constraint metric c is met by some folds of a configuration and not by others.
Json FoldMetrics(const Params& p, int fold) {
  const double x = p["x"].get<double>(), y = p["y"].get<double>();
  const double shift = fold == 0 ? -2.0 : 1.0;
  return Json{{"f1", x * x + shift}, {"f2", (x - 2) * (x - 2) + y * shift}, {"c", y + fold}};
}

// nsga2 ranks configurations: the history it is given holds one record per configuration
// whose metrics are its folds' means, so it suggests what it would from those records.
TEST(FoldPolicySamplingTest, Nsga2RanksConfigurationsByTheirFoldsMeans) {
  const CvConfig cv{2, 0, 1};
  FoldPolicy folds(std::make_unique<SweepPolicy>(Nsga2(16)), cv);
  auto plain = Nsga2(16);
  std::vector<TrialRecord> history, configurations;
  for (int c = 0; c < 12; ++c) {
    const Suggestion s = folds.Suggest(FoldTrialNumber(c, 0, 2), history);
    EXPECT_EQ(s.params, plain->Suggest(c, configurations).params) << "configuration " << c;
    Json sum = Json{{"f1", 0.0}, {"f2", 0.0}, {"c", 0.0}};
    for (int f = 0; f < 2; ++f) {
      TrialRecord fold = Fold(FoldTrialNumber(c, f, 2), s.params, 0);
      fold.last_metrics = FoldMetrics(s.params, f);
      fold.objective = fold.last_metrics["f1"].get<double>();
      for (const char* key : {"f1", "f2", "c"})
        sum[key] = sum[key].get<double>() + fold.last_metrics[key].get<double>();
      history.push_back(std::move(fold));
    }
    for (const char* key : {"f1", "f2", "c"}) sum[key] = sum[key].get<double>() / 2;
    TrialRecord configuration = Fold(c, s.params, sum["f1"].get<double>());
    configuration.last_metrics = sum;
    configurations.push_back(std::move(configuration));
  }
  EXPECT_EQ(folds.Suggest(FoldTrialNumber(12, 0, 2), history).params,
            plain->Suggest(12, configurations).params);
}

}  // namespace
}  // namespace gpusweep
