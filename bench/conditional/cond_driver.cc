// gs_bench_cond — gpusweep's half of the conditional-space benchmark (bench/README.md,
// "conditional"). Each problem's space is spaces/<problem>.yaml read by the real config
// parser (LoadConfig), so its conditions are the ones a user's sweep would get; the real
// samplers (MakeSampler, Suggest with the completed history) run in-process.
//
//   gs_bench_cond points --spaces DIR
//       one JSON line per synthetic problem: f at 40 random points of its space, for
//       problems.py to check.
//   gs_bench_cond run --spaces DIR --problems branches3,cash --samplers tpe,random[,tpe_uv]
//                     [--first-seed 0] --seeds 20 --evals 150
//                     [--evaluator "/usr/bin/python3 cash.py serve breast_cancer"]
//       one JSON line per (problem, sampler): per seed, the best value after each
//       checkpoint and the seconds spent in Suggest. Problems not in problems.h (cash)
//       are scored by the evaluator, one long-lived process for the whole run.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/conditional/problems.h"
#include "bench/conditional/python_evaluator.h"
#include "gpusweep/config.h"
#include "gpusweep/sampler.h"

namespace gpusweep::bench {
namespace {

using Clock = std::chrono::steady_clock;

Expected<ExperimentConfig> LoadSpace(const std::string& dir, const std::string& problem) {
  return LoadConfig(dir + "/" + problem + ".yaml");
}

Expected<std::unique_ptr<Sampler>> Make(const ExperimentConfig& config, const std::string& name,
                                        int trials, std::uint64_t seed) {
  SamplerConfig sampler = config.sampler;  // the YAML's tpe options (multivariate: true)
  sampler.trials = trials;
  sampler.seed = seed;
  if (name == "random") {
    sampler.kind = SamplerKind::kRandom;
  } else if (name == "tpe") {
    sampler.kind = SamplerKind::kTpe;
  } else if (name == "tpe_uv") {  // for comparison: each leaf its own density
    sampler.kind = SamplerKind::kTpe;
    sampler.tpe.multivariate = false;
  } else {
    return Fail(ErrorCode::kInvalidArgument, "unknown sampler " + name);
  }
  return MakeSampler(sampler, config.search_space, Mode::kMin);
}

// Scores a trial: a synthetic problem's C++ function, else the Python evaluator.
using Objective = std::function<Expected<double>(const Params&)>;

Objective ObjectiveOf(const std::string& problem, PythonEvaluator* evaluator) {
  for (const SyntheticProblem& p : SyntheticProblems())
    if (p.name == problem) return [f = p.evaluate](const Params& x) -> Expected<double> {
        return f(x);
      };
  return [problem, evaluator](const Params& x) -> Expected<double> {
    if (evaluator == nullptr) return Fail(ErrorCode::kInvalidArgument, problem + " needs --evaluator");
    return evaluator->Evaluate(x);
  };
}

TrialRecord Completed(const Suggestion& s, double value) {
  TrialRecord t;
  t.number = s.number;
  t.params = s.params;
  t.state = TrialState::kCompleted;
  t.objective = value;
  return t;
}

int Points(const std::string& dir) {
  constexpr int kPoints = 40;
  for (const SyntheticProblem& p : SyntheticProblems()) {
    auto config = LoadSpace(dir, p.name);
    if (!config) return std::cerr << config.error().message << '\n', 1;
    auto sampler = Make(*config, "random", kPoints, 12345);
    if (!sampler) return std::cerr << sampler.error().message << '\n', 1;
    Json points = Json::array();
    for (int k = 0; k < kPoints; ++k) {
      const Params x = (*sampler)->Suggest(k, {}).params;
      points.push_back({{"params", x}, {"value", p.evaluate(x)}});
    }
    std::cout << Json{{"problem", p.name}, {"points", points}}.dump() << '\n';
  }
  return 0;
}

// One optimisation run: {"seed", "best": {checkpoint: best so far}, "best_params" (of
// the best trial: which branch it found), "suggest_s"}.
Expected<Json> RunSeed(const ExperimentConfig& config, const std::string& sampler_name,
                       const Objective& objective, int evals, std::uint64_t seed) {
  GS_ASSIGN_OR_RETURN(auto sampler, Make(config, sampler_name, evals, seed));
  std::vector<TrialRecord> history;
  double best = std::numeric_limits<double>::infinity();
  Params best_params = Json::object();
  double suggest_s = 0;
  Json checkpoints = Json::object();
  for (int k = 0; k < evals; ++k) {
    const auto start = Clock::now();
    const Suggestion s = sampler->Suggest(k, history);
    suggest_s += std::chrono::duration<double>(Clock::now() - start).count();
    GS_ASSIGN_OR_RETURN(const double value, objective(s.params));
    if (value < best) best = value, best_params = s.params;
    history.push_back(Completed(s, value));
    const int n = k + 1;
    if (n == 10 || n == 25 || n == 50 || n == 100 || n == evals)
      checkpoints[std::to_string(n)] = best;
  }
  return Json{{"seed", seed}, {"best", checkpoints}, {"best_params", best_params},
              {"suggest_s", suggest_s}};
}

int Run(const std::string& dir, const std::vector<std::string>& problems,
        const std::vector<std::string>& samplers, int first_seed, int seeds, int evals,
        const std::string& evaluator_command) {
  std::unique_ptr<PythonEvaluator> evaluator;
  if (!evaluator_command.empty()) {
    std::istringstream words(evaluator_command);
    std::vector<std::string> argv{std::istream_iterator<std::string>(words), {}};
    auto started = PythonEvaluator::Start(argv);
    if (!started) return std::cerr << started.error().message << '\n', 1;
    evaluator = std::move(*started);
  }
  for (const std::string& problem : problems) {
    auto config = LoadSpace(dir, problem);
    if (!config) return std::cerr << config.error().message << '\n', 1;
    const Objective objective = ObjectiveOf(problem, evaluator.get());
    for (const std::string& sampler : samplers) {
      Json line = {{"side", "gpusweep"}, {"problem", problem}, {"sampler", sampler}};
      Json runs = Json::array();
      for (int seed = first_seed; seed < first_seed + seeds; ++seed) {
        Expected<Json> run = RunSeed(*config, sampler, objective, evals, seed);
        if (!run) return std::cerr << problem << ' ' << sampler << ": " << run.error().message << '\n', 1;
        runs.push_back(*run);
      }
      line["runs"] = runs;
      std::cerr << "gpusweep " << problem << ' ' << sampler << " done\n";
      std::cout << line.dump() << '\n' << std::flush;
    }
  }
  return 0;
}

}  // namespace
}  // namespace gpusweep::bench

int main(int argc, char** argv) {
  using namespace gpusweep::bench;
  CLI::App app{"gpusweep conditional-space benchmark driver (bench/README.md)"};
  app.require_subcommand(1);
  std::string dir = "bench/conditional/spaces";
  CLI::App* points = app.add_subcommand("points", "f at fixed points, to check problems.py");
  points->add_option("--spaces", dir);

  std::vector<std::string> problems = {"branches3", "hierarchical", "branches5"};
  std::vector<std::string> samplers = {"tpe", "random"};
  int first_seed = 0, seeds = 20, evals = 150;
  std::string evaluator;
  CLI::App* run = app.add_subcommand("run", "optimise each problem with each sampler");
  run->add_option("--spaces", dir);
  run->add_option("--problems", problems)->delimiter(',');
  run->add_option("--samplers", samplers)->delimiter(',');
  run->add_option("--seeds", seeds)->check(CLI::PositiveNumber);
  run->add_option("--first-seed", first_seed, "seeds first..first+seeds-1 (runs split in parts)");
  run->add_option("--evals", evals)->check(CLI::PositiveNumber);
  run->add_option("--evaluator", evaluator, "command of the Python evaluator (cash)");

  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("points")) return Points(dir);
  return Run(dir, problems, samplers, first_seed, seeds, evals, evaluator);
}
