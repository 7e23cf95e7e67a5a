// enqueue and warm_start through a real run: enqueued settings run first, an earlier
// experiment's trials seed TPE's history, and both survive a resume exactly.
#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "run/runner_test_fixture.h"
#include "run/warm_start.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;

// Trials report score = x; `rest` holds the sampler, search space and extra keys. One
// trial at a time, so each TPE suggestion saw every earlier trial finished.
std::string Sweep(std::string_view rest, std::string_view mode = "max") {
  return fmt::format(R"(
name: t
metric: {{name: score, mode: {}}}
resources: {{gpus: auto, cpu_slots: 1}}
shell: true
command: 'echo "{{\"epoch\": 1, \"score\": "{{{{x}}}}"}}" >> "$GPUSWEEP_METRICS"'
{})",
                     mode, rest);
}

class SeedingTest : public RunnerTest {
 protected:
  Expected<RunOutcome> RunIn(const ExperimentConfig& config, const std::filesystem::path& dir) {
    FakeGpuProbe probe(0);
    RealRunServices real;
    real.services.gpu_probe = &probe;
    real.services.usable_cores = 2;
    RunOptions options{dir, std::nullopt, dir_.path() / "python"};
    observer_ = RecordingObserver{};
    return Whole(RunExperimentWith(config, options, real.services, observer_), dir);
  }
};

TEST_F(SeedingTest, EnqueuedSettingsRunFirstAndTheSamplerFillsTheRest) {
  const std::string rest = R"(
sampler: {type: tpe, trials: 4, seed: 3, n_startup_trials: 2}
search_space:
  x: {type: uniform, low: 0, high: 1}
  k: {type: choice, values: [1, 2, 3]}
  epochs: 5
enqueue:
  - {x: 0.25}
  - {x: 1, k: 3, epochs: 5}
)";
  const ExperimentConfig config = Config(Sweep(rest));
  auto outcome = Run(config);
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 4u);
  auto sampler = MakeSampler(config.sampler, config.search_space, config.metric.mode);
  ASSERT_TRUE(sampler);
  const std::vector<TrialRecord>& trials = outcome->trials;
  // Declaration order kept; k filled by the sampler's own choice for trial 0.
  EXPECT_EQ(trials[0].params.dump(),
            Json({{"x", 0.25}, {"k", (*sampler)->Suggest(0, {}).params["k"]}, {"epochs", 5}})
                .dump());
  EXPECT_EQ(trials[1].params.dump(), R"({"x":1.0,"k":3,"epochs":5})");
  for (int number = 2; number < 4; ++number)  // TPE, having learned from the enqueued two
    EXPECT_EQ(trials[number].params, (*sampler)->Suggest(number, trials).params);
  EXPECT_EQ(trials[1].objective, 1.0);

  auto again = Run(config);  // resume: nothing reruns
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(observer_.info.to_run, 0);
  std::string changed = Sweep(rest);
  changed.replace(changed.find("{x: 0.25}"), 9, "{x: 0.5}");
  auto refused = Run(Config(changed));
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message, HasSubstr("sampler.enqueue[0].x (0.25 -> 0.5)"));
}

TEST_F(SeedingTest, GridRunsEnqueuedSettingsBeforeAllItsPoints) {
  auto outcome = Run(Config(Sweep(R"(
sampler: {type: grid}
search_space:
  x: {type: choice, values: [0.1, 0.2]}
enqueue: [{x: 0.2}]
)")));
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 3u);
  EXPECT_EQ(outcome->trials[0].params["x"], 0.2);
  EXPECT_EQ(outcome->trials[1].params["x"], 0.1);
  EXPECT_EQ(outcome->trials[2].params["x"], 0.2);
}

TEST_F(SeedingTest, EnqueueWorksUnderAScheduler) {
  auto outcome = Run(Config(Sweep(R"(
sampler: {type: random, trials: 3, seed: 1}
scheduler: {type: asha, max_resource: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
  tags: [a, b]
enqueue: [{x: 0.5}]
)")));
  ASSERT_TRUE(outcome) << outcome.error().message;
  ASSERT_EQ(outcome->trials.size(), 3u);
  EXPECT_EQ(outcome->trials[0].params["x"], 0.5);
  EXPECT_EQ(outcome->trials[0].state, TrialState::kCompleted);
  // The bare list is a constant; the run says so before it starts.
  ASSERT_FALSE(observer_.warnings.empty());
  EXPECT_THAT(observer_.warnings[0],
              HasSubstr("search_space.tags: a bare list is a constant: every trial gets "
                        "[\"a\",\"b\"]"));
}

TEST_F(SeedingTest, WarmStartSeedsTpeAndResumesWithoutItsSource) {
  const std::filesystem::path source = dir_.path() / "first";
  auto first = RunIn(Config(Sweep(R"(
sampler: {type: random, trials: 8, seed: 5}
search_space:
  x: {type: uniform, low: 0, high: 1}
)")), source);
  ASSERT_TRUE(first) << first.error().message;
  // The new space is narrower: it ends at the 4th smallest x, so the 4 trials with a
  // larger x do not fit and are left out.
  std::vector<double> xs;
  for (const TrialRecord& trial : first->trials) xs.push_back(trial.params["x"].get<double>());
  std::sort(xs.begin(), xs.end());
  const double high = xs[3];
  std::vector<TrialRecord> expected_history;
  for (const TrialRecord& trial : first->trials)
    if (trial.params["x"].get<double>() <= high) expected_history.push_back(trial);
  const int n = static_cast<int>(expected_history.size());
  ASSERT_EQ(n, 4);
  for (int i = 0; i < n; ++i) expected_history[i].number = i - n;

  auto yaml = [&](int trials) {
    return Sweep(fmt::format(R"(
sampler: {{type: tpe, trials: {}, seed: 2, n_startup_trials: 2}}
search_space:
  x: {{type: uniform, low: 0, high: {}}}
warm_start: {{from: first}}
)", trials, high));
  };
  const ExperimentConfig config = Config(yaml(2));
  auto seeded = Run(config);
  ASSERT_TRUE(seeded) << seeded.error().message;
  EXPECT_THAT(observer_.info.warm_start,
              HasSubstr(fmt::format("warm start: {} trials of {} seed the sampler (not rerun); "
                                    "{} left out, outside this search space",
                                    n, source.string(), 8 - n)));
  ASSERT_EQ(seeded->trials.size(), 2u);  // the earlier trials are not rerun
  auto sampler = MakeSampler(config.sampler, config.search_space, config.metric.mode);
  ASSERT_TRUE(sampler);
  std::vector<TrialRecord> history = expected_history;
  // Trial 0 already uses the model: the warm-start trials count as scored ones.
  EXPECT_EQ(seeded->trials[0].params, (*sampler)->Suggest(0, history).params);
  history.push_back(seeded->trials[0]);
  EXPECT_EQ(seeded->trials[1].params, (*sampler)->Suggest(1, history).params);

  // `status` lists them from the journal, best first.
  {
    auto journal = OpenReadOnly();
    auto journaled = LoadWarmStart(*journal);
    ASSERT_TRUE(journaled && *journaled);
    EXPECT_EQ((*journaled)->trials.size(), expected_history.size());
    const std::string listing = WarmStartListing(**journaled, ObjectiveOf(config), 1);
    const TrialRecord* best = &expected_history[0];
    for (const TrialRecord& t : expected_history)
      if (*t.objective > *best->objective) best = &t;
    EXPECT_THAT(listing, HasSubstr(fmt::format("completed  {:g}", *best->objective)));
    EXPECT_THAT(listing, HasSubstr(fmt::format("... and {} more", n - 1)));
  }

  // The source vanishes; growing the sweep still sees the same (journaled) history.
  std::filesystem::remove_all(source);
  auto grown = Run(Config(yaml(3)));
  ASSERT_TRUE(grown) << grown.error().message;
  ASSERT_EQ(grown->trials.size(), 3u);
  history.push_back(grown->trials[1]);
  EXPECT_EQ(grown->trials[2].params, (*sampler)->Suggest(2, history).params);
}

TEST_F(SeedingTest, WarmStartFromACrossValidatedExperimentSeedsConfigurationMeans) {
  // score = 10 x + fold (the digits side by side); x = 3 fails on fold 1: no mean.
  const std::filesystem::path source = dir_.path() / "first";
  auto first = RunIn(Config(R"(
name: t
metric: {name: score, mode: max}
resources: {gpus: auto, cpu_slots: 1}
shell: true
command: 'if [ {{x}} = 3 ] && [ {{fold}} = 1 ]; then exit 1; fi; echo "{\"score\": "{{x}}{{fold}}"}" >> "$GPUSWEEP_METRICS"'
sampler: {type: grid}
search_space:
  x: {type: choice, values: [1, 2, 3]}
cv: {folds: 2}
)"), source);
  ASSERT_TRUE(first) << first.error().message;
  // The new experiment folds differently (3): the source's means seed it all the same.
  const ExperimentConfig config = Config(Sweep(R"(
sampler: {type: tpe, trials: 1, seed: 2, n_startup_trials: 1}
search_space:
  x: {type: choice, values: [1, 2, 3]}
cv: {folds: 3}
warm_start: {from: first}
)"));
  auto seeded = Run(config);
  ASSERT_TRUE(seeded) << seeded.error().message;
  EXPECT_THAT(observer_.info.warm_start,
              HasSubstr(fmt::format("warm start: 2 configurations of {} (2-fold cross-validated, "
                                    "each valued by its folds' mean) seed the sampler (not rerun)",
                                    source.string())));
  EXPECT_EQ(seeded->trials.size(), 3u);  // one configuration, its 3 folds
  auto journal = OpenReadOnly();
  auto journaled = LoadWarmStart(*journal);
  ASSERT_TRUE(journaled && *journaled);
  const WarmStartHistory& history = **journaled;
  EXPECT_EQ(history.source_folds, 2);
  ASSERT_EQ(history.trials.size(), 2u);
  EXPECT_EQ(history.source_numbers, (std::vector<int>{0, 1}));
  EXPECT_EQ(history.trials[0].number, -2);
  EXPECT_EQ(history.trials[0].objective, 10.5);
  EXPECT_EQ(history.trials[1].objective, 20.5);
  EXPECT_EQ(history.trials[1].params, Json({{"x", 2}}));
  const std::string listing = WarmStartListing(history, ObjectiveOf(config), 1);
  EXPECT_THAT(listing, HasSubstr("\n  its configuration  state      score  x\n"));
  EXPECT_THAT(listing, HasSubstr("                  1  completed   20.5  2\n"));
}

TEST_F(SeedingTest, WarmStartDefaultsLetTrialsWithoutANewParameterSeedTheSampler) {
  const std::filesystem::path source = dir_.path() / "first";
  ASSERT_TRUE(RunIn(Config(Sweep(R"(
sampler: {type: random, trials: 3, seed: 5}
search_space:
  x: {type: uniform, low: 0, high: 1}
)")), source));
  // `momentum` is new: without a default no earlier trial fits, and the reason says how.
  const std::string rest = R"(
sampler: {type: tpe, trials: 1, seed: 2}
search_space:
  x: {type: uniform, low: 0, high: 1}
  momentum: {type: choice, values: [0.5, 0.9]}
warm_start: {from: first}
)";
  auto without = Run(Config(Sweep(rest)));
  ASSERT_TRUE(without) << without.error().message;
  EXPECT_THAT(observer_.info.warm_start,
              HasSubstr("warm start: 0 trials of " + source.string() +
                        " seed the sampler (not rerun); 3 left out, outside this search space "
                        "(trial 0: it has no 'momentum' (warm_start: {defaults: {momentum: "
                        "<value>}} assumes one))"));

  std::filesystem::remove_all(experiment_dir());
  std::string with = Sweep(rest);
  with.replace(with.find("{from: first}"), 13, "{from: first, defaults: {momentum: 0.9}}");
  auto seeded = Run(Config(with));
  ASSERT_TRUE(seeded) << seeded.error().message;
  EXPECT_THAT(observer_.info.warm_start,
              HasSubstr("warm start: 3 trials of " + source.string() +
                        " seed the sampler (not rerun); assumed from warm_start.defaults: "
                        "momentum=0.9 for 3 trials\n"));
  EXPECT_THAT(observer_.info.warm_start, HasSubstr("0.9*"));
  EXPECT_THAT(observer_.info.warm_start, HasSubstr("  * assumed from warm_start.defaults\n"));
  // The journaled history holds the assumed value and says it was assumed.
  auto journal = OpenReadOnly();
  auto journaled = LoadWarmStart(*journal);
  ASSERT_TRUE(journaled && *journaled);
  ASSERT_EQ((*journaled)->trials.size(), 3u);
  EXPECT_EQ((*journaled)->trials[0].params["momentum"], 0.9);
  EXPECT_EQ((*journaled)->assumed[0], std::vector<std::string>{"momentum"});
}

// With several objectives the seeded trials carry the metrics they are ranked by (the
// multi-objective samplers read `last_metrics`, not `objective`), through the journal.
TEST_F(SeedingTest, WarmStartWithSeveralObjectivesSeedsTheirMetrics) {
  const auto yaml = [](std::string_view metrics, std::string_view rest) {
    return fmt::format(R"(
name: t
metrics: {}
resources: {{gpus: auto, cpu_slots: 1}}
shell: true
command: 'echo "{{\"score\": "{{{{x}}}}", \"cost\": "{{{{x}}}}"}}" >> "$GPUSWEEP_METRICS"'
search_space:
  x: {{type: uniform, low: 0, high: 1}}
{})", metrics, rest);
  };
  const std::string both = "[{name: score, mode: max}, {name: cost, mode: min}]";
  const std::filesystem::path source = dir_.path() / "first";
  auto first = RunIn(Config(yaml(both, "sampler: {type: random, trials: 6, seed: 5}\n")), source);
  ASSERT_TRUE(first) << first.error().message;
  const ExperimentConfig config =
      Config(yaml(both, "sampler: {type: tpe, trials: 1, seed: 2, n_startup_trials: 2}\n"
                        "warm_start: {from: first}\n"));
  auto seeded = Run(config);
  ASSERT_TRUE(seeded) << seeded.error().message;
  auto journal = OpenReadOnly();
  auto journaled = LoadWarmStart(*journal);
  ASSERT_TRUE(journaled && *journaled);
  ASSERT_EQ((*journaled)->trials.size(), 6u);
  std::vector<TrialRecord> history;
  for (std::size_t i = 0; i < 6; ++i) {
    const TrialRecord& t = (*journaled)->trials[i];
    EXPECT_EQ(t.last_metrics, (Json{{"score", first->trials[i].params["x"]},
                                    {"cost", first->trials[i].params["x"]}}));
    history.push_back(t);
  }
  auto sampler = MakeSampler(config.sampler, config.search_space, ObjectiveOf(config));
  ASSERT_TRUE(sampler);
  EXPECT_EQ(seeded->trials[0].params, (*sampler)->Suggest(0, history).params);
  // Without the metrics the same history is another one (every trial the worst).
  for (TrialRecord& t : history) t.last_metrics = Json::object();
  EXPECT_NE(seeded->trials[0].params, (*sampler)->Suggest(0, history).params);

  const std::string other = "[{name: score, mode: max}, {name: cost, mode: max}]";
  auto refused = RunIn(Config(yaml(other, "sampler: {type: tpe, trials: 1}\nwarm_start: {from: first}\n")),
                       dir_.path() / "second");
  ASSERT_FALSE(refused);
  EXPECT_THAT(refused.error().message,
              HasSubstr("optimised 'score' (max), 'cost' (min), this experiment 'score' (max), "
                        "'cost' (max); a warm start needs the same metric name and mode"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "second"));  // nothing was written
  // One objective starts from the source's first metric only, and is told so.
  auto one = RunIn(Config(fmt::format(R"(
name: t
metric: {{name: cost, mode: min}}
resources: {{gpus: auto, cpu_slots: 1}}
command: [echo]
sampler: {{type: tpe, trials: 1}}
search_space:
  x: {{type: uniform, low: 0, high: 1}}
warm_start: {{from: first}}
)")), dir_.path() / "third");
  ASSERT_FALSE(one);
  EXPECT_THAT(one.error().message,
              HasSubstr("optimised 'score' (max), 'cost' (min), and one objective may start from "
                        "it only as its first metric, 'score' (max); this experiment optimises "
                        "'cost' (min); give metric: {name: score, mode: max}"));
}

TEST_F(SeedingTest, WarmStartNeedsAnExperimentWithTheSameMetric) {
  const std::filesystem::path source = dir_.path() / "first";
  ASSERT_TRUE(RunIn(Config(Sweep(R"(
sampler: {type: random, trials: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
)")), source));
  const std::string rest = R"(
sampler: {type: tpe, trials: 1}
search_space:
  x: {type: uniform, low: 0, high: 1}
warm_start: {from: first}
)";
  auto other_mode = Run(Config(Sweep(rest, "min")));
  ASSERT_FALSE(other_mode);
  EXPECT_EQ(other_mode.error().code, ErrorCode::kInvalidConfig);
  EXPECT_THAT(other_mode.error().message,
              HasSubstr("sweep.yaml:11: warm_start.from: " + source.string() +
                        " optimised 'score' (max), this experiment 'score' (min); a warm start "
                        "needs the same metric name and mode"));
  EXPECT_FALSE(std::filesystem::exists(experiment_dir()));  // nothing was written

  std::string missing = Sweep(rest);
  missing.replace(missing.find("from: first"), 11, "from: nowhere");
  auto nowhere = Run(Config(missing));
  ASSERT_FALSE(nowhere);
  EXPECT_EQ(nowhere.error().code, ErrorCode::kInvalidConfig);
  EXPECT_THAT(nowhere.error().message, HasSubstr("sweep.yaml:11: warm_start.from: no experiment at"));
}

}  // namespace
}  // namespace gpusweep
