// gs_bench_mo — gpusweep's half of the multi-objective benchmark (bench/README.md,
// "multiobjective"): its nsga2, tpe (multi-objective TPE, default options), tpe_mv (the
// same with `multivariate: true`), gp (ParEGO with constrained EI) and random samplers.
//
//   gs_bench_mo points
//       one JSON line per problem: its objectives and violation at 20 fixed points, for
//       run_optuna.py --check to compare with its own implementation.
//   gs_bench_mo run --samplers nsga2,tpe,tpe_mv,gp,random --seeds 20 [--first-seed 0] --evals 200 --population 50
//       one JSON line per (problem, sampler, seed): the hypervolume of the feasible
//       trials (reference of problems.h) after each of the checkpoints 50, 100, ...,
//       evals, and the seconds spent in Suggest. Trials run one after another, each
//       suggestion seeing every earlier trial, as Optuna's study.optimize(n_jobs=1) does.
//   gs_bench_mo time --problem zdt1 --repeat 20 [--sampler tpe_mv] [--points] < history.json
//       time_suggest.py's history ({"x": [[x0, ...], ...]}: trials 0..n-1, evaluated here
//       as completed trials) and one JSON line: the seconds of each of `repeat` tpe
//       suggestions for trial n (numbers n, n+1, ... with the same history), and their
//       median; with --points also each suggestion's x ("points").
//   gs_bench_mo score < optuna_runs.jsonl
//       run_optuna.py's lines ({problem, sampler, seed, points: [[f..., violation], ...],
//       suggest_s}) as `run` writes its own: both sides' hypervolumes are computed here,
//       by pareto.h, so they differ only by the sampler.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/multiobjective/problems.h"
#include "gpusweep/json.h"
#include "gpusweep/objective.h"
#include "gpusweep/pareto.h"
#include "gpusweep/sampler.h"
#include "search/splitmix64.h"

namespace gpusweep::bench {
namespace {

using Clock = std::chrono::steady_clock;

SearchSpace UnitCube(int variables) {
  SearchSpace space;
  for (int i = 0; i < variables; ++i) {
    ParamSpec p;
    p.name = "x" + std::to_string(i);
    p.kind = ParamKind::kUniform;
    p.low = 0;
    p.high = 1;
    space.params.push_back(p);
  }
  return space;
}

Objective ProblemObjective(const MoProblem& problem) {
  std::vector<MetricSpec> metrics;
  for (int i = 0; i < problem.objectives; ++i) metrics.push_back({"f" + std::to_string(i + 1), Mode::kMin});
  std::vector<ConstraintSpec> constraints;
  if (problem.constrained) constraints.push_back({"c", std::nullopt, 0.0});
  return Objective(std::move(metrics), std::move(constraints));
}

// The evaluations of one run, in order.
struct Evaluated {
  std::vector<MoValue> values;

  // The hypervolume of the feasible ones among the first n.
  double Hypervolume(const MoProblem& problem, std::size_t n) const {
    std::vector<LossPoint> points;
    for (std::size_t i = 0; i < n && i < values.size(); ++i)
      if (values[i].violation == 0) points.push_back(values[i].f);
    return gpusweep::Hypervolume(points, problem.reference);
  }

  // {"50": hv, "100": hv, ..., "<evals>": hv}.
  Json Checkpoints(const MoProblem& problem) const {
    Json out = Json::object();
    for (std::size_t n = 1; n <= values.size(); ++n)
      if (n % 50 == 0 || n == values.size()) out[std::to_string(n)] = Hypervolume(problem, n);
    return out;
  }
};

TrialRecord CompletedTrial(const MoProblem& problem, int number, const Params& params, const MoValue& value) {
  TrialRecord t;
  t.number = number;
  t.state = TrialState::kCompleted;
  t.params = params;
  for (int i = 0; i < problem.objectives; ++i) t.last_metrics["f" + std::to_string(i + 1)] = value.f[i];
  t.last_metrics["c"] = value.violation;
  t.objective = value.f[0];
  return t;
}

SamplerConfig ConfigFor(const std::string& sampler_name, int seed, int evals, int population) {
  SamplerConfig config;
  config.kind = sampler_name == "nsga2"                          ? SamplerKind::kNsga2
                : sampler_name == "tpe" || sampler_name == "tpe_mv" ? SamplerKind::kTpe
                : sampler_name == "gp"                              ? SamplerKind::kGp
                                                                    : SamplerKind::kRandom;
  config.tpe.multivariate = sampler_name == "tpe_mv";
  config.trials = evals;
  config.seed = static_cast<std::uint64_t>(seed);
  config.nsga2.population = population;
  return config;
}

Json RunOne(const MoProblem& problem, const std::string& sampler_name, int seed, int evals, int population) {
  const SamplerConfig config = ConfigFor(sampler_name, seed, evals, population);
  const Objective objective = ProblemObjective(problem);
  auto sampler = MakeSampler(config, UnitCube(problem.variables), objective);
  if (!sampler) return Json{{"problem", problem.name}, {"sampler", sampler_name}, {"error", sampler.error().message}};
  std::vector<TrialRecord> history;
  Evaluated evaluated;
  double suggest_s = 0;
  for (int k = 0; k < evals; ++k) {
    const auto start = Clock::now();
    const Suggestion s = (*sampler)->Suggest(k, history);
    suggest_s += std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<double> x;
    for (int i = 0; i < problem.variables; ++i) x.push_back(s.params["x" + std::to_string(i)].get<double>());
    const MoValue value = Evaluate(problem, x);
    history.push_back(CompletedTrial(problem, k, s.params, value));
    evaluated.values.push_back(value);
  }
  return Json{{"problem", problem.name}, {"side", "gpusweep"}, {"sampler", sampler_name}, {"seed", seed},
              {"hypervolume", evaluated.Checkpoints(problem)}, {"suggest_s", suggest_s}};
}

const MoProblem* FindProblem(const std::string& name) {
  for (const MoProblem& problem : MoProblems())
    if (problem.name == name) return &problem;
  return nullptr;
}

int TimeSuggest(const MoProblem& problem, int repeat, bool with_points, const std::string& sampler_name) {
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const Json input = Json::parse(text);
  std::vector<TrialRecord> history;
  for (const Json& row : input.at("x")) {
    const std::vector<double> x = row.get<std::vector<double>>();
    Params params = Json::object();
    for (std::size_t i = 0; i < x.size(); ++i) params["x" + std::to_string(i)] = x[i];
    history.push_back(CompletedTrial(problem, static_cast<int>(history.size()), params, Evaluate(problem, x)));
  }
  const int n = static_cast<int>(history.size());
  auto sampler = MakeSampler(ConfigFor(sampler_name, 0, n + repeat, 2), UnitCube(problem.variables),
                             ProblemObjective(problem));
  if (!sampler) {
    std::cerr << "gs_bench_mo time: " << sampler.error().message << "\n";
    return 1;
  }
  std::vector<double> seconds;
  Json points = Json::array();
  for (int r = 0; r < repeat; ++r) {
    const auto start = Clock::now();
    const Suggestion s = (*sampler)->Suggest(n + r, history);
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    if (s.params.empty()) return 1;
    if (!with_points) continue;
    Json x = Json::array();
    for (int i = 0; i < problem.variables; ++i) x.push_back(s.params["x" + std::to_string(i)]);
    points.push_back(std::move(x));
  }
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  std::cout << Json{{"problem", problem.name}, {"side", "gpusweep"}, {"history", n}, {"seconds", seconds},
                    {"median_s", sorted[sorted.size() / 2]}, {"points", points}}.dump()
            << std::endl;
  return 0;
}

int Score() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    const Json run = Json::parse(line);
    const MoProblem* problem = FindProblem(run.at("problem").get<std::string>());
    if (problem == nullptr) {
      std::cerr << "gs_bench_mo score: unknown problem in " << line << "\n";
      return 1;
    }
    Evaluated evaluated;
    for (const Json& point : run.at("points")) {
      MoValue value;
      for (int i = 0; i < problem->objectives; ++i) value.f.push_back(point.at(i).get<double>());
      value.violation = point.at(problem->objectives).get<double>();
      evaluated.values.push_back(std::move(value));
    }
    std::cout << Json{{"problem", problem->name}, {"side", "optuna"}, {"sampler", run.at("sampler")},
                      {"seed", run.at("seed")}, {"hypervolume", evaluated.Checkpoints(*problem)},
                      {"suggest_s", run.at("suggest_s")}}.dump()
              << std::endl;
  }
  return 0;
}

void Points() {
  for (const MoProblem& problem : MoProblems()) {
    search::SplitMix64 rng(12345);
    Json points = Json::array();
    for (int k = 0; k < 20; ++k) {
      std::vector<double> x;
      for (int i = 0; i < problem.variables; ++i) x.push_back(static_cast<double>(rng.Next() >> 11) * 0x1.0p-53);
      const MoValue value = Evaluate(problem, x);
      points.push_back(Json{{"x", x}, {"f", value.f}, {"violation", value.violation}});
    }
    std::cout << Json{{"problem", problem.name}, {"points", points}}.dump() << "\n";
  }
}

}  // namespace
}  // namespace gpusweep::bench

int main(int argc, char** argv) {
  using namespace gpusweep::bench;
  CLI::App app{"gpusweep's multi-objective samplers on ZDT1-3, DTLZ2 and C2-DTLZ2"};
  app.require_subcommand(1);
  app.add_subcommand("points", "each problem at fixed points, to check against run_optuna.py");
  app.add_subcommand("score", "hypervolumes of run_optuna.py's runs (JSON lines on stdin)");
  CLI::App* run = app.add_subcommand("run", "optimisation runs: hypervolume per seed");
  CLI::App* timing = app.add_subcommand("time", "seconds per tpe suggestion after a given history (stdin)");
  std::string time_problem = "zdt1";
  int repeat = 20;
  std::vector<std::string> samplers{"nsga2", "tpe", "random"}, problems, names;
  for (const MoProblem& problem : MoProblems()) names.push_back(problem.name);
  int seeds = 20, first_seed = 0, evals = 200, population = 50;
  run->add_option("--samplers", samplers, "nsga2, tpe, tpe_mv, gp, random")
      ->delimiter(',')
      ->check(CLI::IsMember({"nsga2", "tpe", "tpe_mv", "gp", "random"}));
  run->add_option("--problems", problems, "default: all")->delimiter(',')->check(CLI::IsMember(names));
  run->add_option("--seeds", seeds)->check(CLI::PositiveNumber);
  run->add_option("--first-seed", first_seed, "seeds first-seed .. first-seed + seeds - 1")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--evals", evals)->check(CLI::PositiveNumber);
  run->add_option("--population", population)->check(CLI::Range(2, 100000));
  timing->add_option("--problem", time_problem)->check(CLI::IsMember(names));
  timing->add_option("--repeat", repeat)->check(CLI::PositiveNumber);
  bool with_points = false;
  timing->add_flag("--points", with_points, "also print each suggestion's x (compare_suggest.py)");
  std::string time_sampler = "tpe";
  timing->add_option("--sampler", time_sampler)->check(CLI::IsMember({"tpe", "tpe_mv", "gp"}));
  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("time")) return TimeSuggest(*FindProblem(time_problem), repeat, with_points, time_sampler);
  if (app.got_subcommand("points")) {
    Points();
    return 0;
  }
  if (app.got_subcommand("score")) return Score();
  for (const MoProblem& problem : MoProblems()) {
    if (!problems.empty() && std::find(problems.begin(), problems.end(), problem.name) == problems.end()) continue;
    for (const std::string& sampler : samplers)
      for (int seed = first_seed; seed < first_seed + seeds; ++seed)
        std::cout << RunOne(problem, sampler, seed, evals, population).dump() << std::endl;
  }
  return 0;
}
