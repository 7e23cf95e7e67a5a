// The `sampler:` section through ParseConfig: sobol, tpe and gp options, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string WithSampler(std::string_view sampler) {
  return "name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n" + std::string(sampler) +
         "\nsearch_space: {x: {type: uniform, low: 0, high: 1}}\n";
}

Expected<ExperimentConfig> Parse(std::string_view sampler) {
  return ParseConfig(WithSampler(sampler), "exp.yaml");
}

std::string ErrorFor(std::string_view sampler) {
  auto config = Parse(sampler);
  if (config) return "<parsed without error>";
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidConfig);
  return config.error().message;
}

TEST(SamplerParserTest, TpeWithDefaults) {
  auto config = Parse("sampler: {type: tpe, trials: 100, seed: 1}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kTpe);
  EXPECT_EQ(config->sampler.trials, 100);
  EXPECT_EQ(config->sampler.seed, 1u);
  const TpeConfig defaults;
  EXPECT_EQ(config->sampler.tpe.n_startup_trials, defaults.n_startup_trials);
  EXPECT_EQ(config->sampler.tpe.n_ei_candidates, defaults.n_ei_candidates);
  EXPECT_EQ(config->sampler.tpe.multivariate, false);
  EXPECT_EQ(config->sampler.tpe.constant_liar, true);
}

TEST(SamplerParserTest, TpeWithEveryOption) {
  auto config = Parse(
      "sampler:\n  type: tpe\n  trials: 50\n  multivariate: true\n  n_startup_trials: 5\n"
      "  n_ei_candidates: 48\n  prior_weight: 0.5\n  constant_liar: false\n"
      "  consider_magic_clip: false\n  consider_endpoints: true");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  const TpeConfig& tpe = config->sampler.tpe;
  EXPECT_EQ(config->sampler.seed, 0u);
  EXPECT_TRUE(tpe.multivariate);
  EXPECT_EQ(tpe.n_startup_trials, 5);
  EXPECT_EQ(tpe.n_ei_candidates, 48);
  EXPECT_EQ(tpe.prior_weight, 0.5);
  EXPECT_FALSE(tpe.constant_liar);
  EXPECT_FALSE(tpe.consider_magic_clip);
  EXPECT_TRUE(tpe.consider_endpoints);
}

TEST(SamplerParserTest, Sobol) {
  auto config = Parse("sampler: {type: sobol, trials: 64, seed: 3}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kSobol);
  EXPECT_EQ(config->sampler.trials, 64);
  EXPECT_EQ(config->sampler.seed, 3u);
}

TEST(SamplerParserTest, CmaesWithDefaultsAndOptions) {
  auto config = Parse("sampler: {type: cmaes, trials: 200, seed: 4}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kCmaes);
  EXPECT_EQ(config->sampler.trials, 200);
  EXPECT_EQ(config->sampler.cmaes.population_size, 0);
  EXPECT_TRUE(config->sampler.cmaes.ipop);
  config = Parse("sampler: {type: cmaes, trials: 20, population_size: 8, sigma0: 0.3, restart: none}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.cmaes.population_size, 8);
  EXPECT_EQ(config->sampler.cmaes.sigma0, 0.3);
  EXPECT_FALSE(config->sampler.cmaes.ipop);
  EXPECT_THAT(ErrorFor("sampler: {type: cmaes, trials: 9, sigma0: 0}"),
              StartsWith("exp.yaml:4:43: sampler.sigma0: sigma0 must be a finite number > 0"));
  EXPECT_THAT(ErrorFor("sampler: {type: cmaes, trials: 9, population_size: 1}"),
              HasSubstr("sampler.population_size: "));
  EXPECT_THAT(ErrorFor("sampler: {type: cmaes, trials: 9, restart: bipop}"),
              HasSubstr("sampler.restart: "));
  EXPECT_THAT(ErrorFor("sampler: {type: cma-es, trials: 9}"),
              HasSubstr("gpusweep's counterpart is type: cmaes"));
}

TEST(SamplerParserTest, CmaesRefusesAChoiceParameterWhereItIsDeclared) {
  const std::string yaml =
      "name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
      "sampler: {type: cmaes, trials: 9}\n"
      "search_space:\n  x: {type: uniform, low: 0, high: 1}\n"
      "  opt: {type: choice, values: [sgd, adam]}\n";
  auto config = ParseConfig(yaml, "exp.yaml");
  ASSERT_FALSE(config);
  EXPECT_THAT(config.error().message,
              StartsWith("exp.yaml:7:15: search_space.opt.type: the cmaes sampler cannot model a "
                         "choice parameter; make it type: int"));
  EXPECT_THAT(config.error().message, HasSubstr("sampler type: tpe or evolution"));
}

TEST(SamplerParserTest, EvolutionWithDefaultsAndOptions) {
  auto config = Parse("sampler: {type: evolution, trials: 100}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kEvolution);
  EXPECT_EQ(config->sampler.evolution.population, EvolutionConfig{}.population);
  EXPECT_EQ(config->sampler.evolution.sample, EvolutionConfig{}.sample);
  config = Parse("sampler: {type: evolution, trials: 100, population: 3}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.evolution.sample, 3);  // the default sample, capped
  config = Parse("sampler: {type: evolution, trials: 100, population: 30, sample: 10}");
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->sampler.evolution.population, 30);
  EXPECT_EQ(config->sampler.evolution.sample, 10);
  EXPECT_THAT(ErrorFor("sampler: {type: evolution, trials: 9, population: 4, sample: 5}"),
              HasSubstr("sampler.sample: the tournament sample (5) is larger than the "
                        "population (4)"));
  EXPECT_THAT(ErrorFor("sampler: {type: evolution, trials: 9, population: 0}"),
              HasSubstr("sampler.population: "));
}

TEST(SamplerParserTest, UnknownKeysAndTypesSuggestTheClosest) {
  EXPECT_THAT(ErrorFor("sampler: {type: tpe, trials: 9, multivarite: true}"),
              StartsWith("exp.yaml:4:33: sampler.multivarite: unknown key 'multivarite'; "
                         "did you mean 'multivariate'?"));
  EXPECT_THAT(ErrorFor("sampler: {type: sobol, trials: 9, multivariate: true}"),
              HasSubstr("unknown key 'multivariate'"));
  EXPECT_THAT(ErrorFor("sampler: {type: tpw, trials: 9}"), HasSubstr("did you mean 'tpe'?"));
  EXPECT_THAT(ErrorFor("sampler: {type: sobl, trials: 9}"), HasSubstr("did you mean 'sobol'?"));
}

TEST(SamplerParserTest, BadValuesAreLocated) {
  EXPECT_THAT(ErrorFor("sampler: {type: tpe, trials: 9, n_ei_candidates: 0}"),
              StartsWith("exp.yaml:4:50: sampler.n_ei_candidates: "));
  EXPECT_THAT(ErrorFor("sampler: {type: tpe, trials: 9, n_startup_trials: -1}"),
              HasSubstr("sampler.n_startup_trials: "));
  EXPECT_THAT(ErrorFor("sampler: {type: tpe, trials: 9, prior_weight: 0}"),
              HasSubstr("sampler.prior_weight: the prior weight must be > 0"));
  EXPECT_THAT(ErrorFor("sampler: {type: tpe, trials: 9, multivariate: maybe}"),
              HasSubstr("sampler.multivariate: "));
  EXPECT_THAT(ErrorFor("sampler: {type: tpe}"), HasSubstr("missing required key 'trials'"));
  EXPECT_THAT(ErrorFor("sampler: {type: sobol, trials: 0}"), HasSubstr("sampler.trials: "));
}

TEST(SamplerParserTest, GpWithDefaultsAndOptions) {
  auto config = Parse("sampler: {type: gp, trials: 40, seed: 3}");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->sampler.kind, SamplerKind::kGp);
  EXPECT_EQ(config->sampler.trials, 40);
  EXPECT_EQ(config->sampler.seed, 3u);
  EXPECT_EQ(config->sampler.gp.n_startup_trials, GpConfig{}.n_startup_trials);
  EXPECT_EQ(config->sampler.gp.max_model_trials, GpConfig{}.max_model_trials);
  config = Parse("sampler: {type: gp, trials: 40, n_startup_trials: 4, max_model_trials: 50}");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->sampler.gp.n_startup_trials, 4);
  EXPECT_EQ(config->sampler.gp.max_model_trials, 50);
}

TEST(SamplerParserTest, GpBadValuesAreLocatedAndExplained) {
  EXPECT_THAT(ErrorFor("sampler: {type: gp, trials: 9, max_model_trials: 5000}"),
              StartsWith("exp.yaml:4:50: sampler.max_model_trials: at most 1000 trials in the "
                         "GP model (got 5000)"));
  EXPECT_THAT(ErrorFor("sampler: {type: gp, trials: 9, max_model_trials: 1}"),
              HasSubstr("sampler.max_model_trials: "));
  EXPECT_THAT(ErrorFor("sampler: {type: gp, trials: 9, n_startup_trials: 0}"),
              HasSubstr("sampler.n_startup_trials: "));
  EXPECT_THAT(ErrorFor("sampler: {type: gp, trials: 9, n_ei_candidates: 8}"),
              HasSubstr("n_ei_candidates"));
  EXPECT_THAT(ErrorFor("sampler: {type: gp}"), HasSubstr("missing required key 'trials'"));
  EXPECT_THAT(ErrorFor("sampler: {type: gaussian_process, trials: 9}"),
              HasSubstr("gpusweep's counterpart is type: gp"));
}

TEST(SamplerParserTest, GpUnderASchedulerThatStopsTrialsIsWarnedAbout) {
  auto config = Parse("sampler: {type: gp, trials: 40}\nscheduler: {type: asha, max_resource: 9}");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_EQ(config->warnings.size(), 1u);
  EXPECT_THAT(config->warnings[0],
              AllOf(StartsWith("exp.yaml:5:"), HasSubstr("gp sampler learns only from trials that ran "
                                                         "to the full budget"),
                    HasSubstr("use sampler: {type: tpe, ...}")));
  config = Parse("sampler: {type: tpe, trials: 40}\nscheduler: {type: asha, max_resource: 9}");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE(config->warnings.empty());
  config = Parse("sampler: {type: gp, trials: 40}");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_TRUE(config->warnings.empty());
}

}  // namespace
}  // namespace gpusweep
