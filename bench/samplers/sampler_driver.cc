// gs_bench_samplers — gpusweep's half of the sampler benchmark (bench/README.md).
//
//   gs_bench_samplers points
//       one JSON line per test function: its search space, known minimum and f(x) at
//       fixed points (the argmin and 30 random points), for test_functions.py to check.
//   gs_bench_samplers run --samplers random,sobol,tpe,tpe_mv,gp --seeds 20 --evals 200
//       (also: cmaes, cmaes_noipop (restart: none), evolution)
//       one JSON line per (function, sampler): per seed, the simple regret after the
//       checkpoint numbers of evaluations, and the time spent in Suggest.
//   gs_bench_samplers time --function hartmann6 --samplers tpe,tpe_mv
//                          --history 100,1000,2000 --reps 20
//       one JSON line per (sampler, history size): mean seconds per Suggest with a
//       history of that many completed random trials (after one untimed warm-up).
// A sampler MakeSampler rejects gives a line with "error" instead of results.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/samplers/functions.h"
#include "gpusweep/sampler.h"

namespace gpusweep::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

Expected<std::unique_ptr<Sampler>> Make(const std::string& name, const SearchSpace& space,
                                        int trials, std::uint64_t seed) {
  SamplerConfig config;
  config.trials = trials;
  config.seed = seed;
  if (name == "random") {
    config.kind = SamplerKind::kRandom;
  } else if (name == "sobol") {
    config.kind = SamplerKind::kSobol;
  } else if (name == "cmaes") {
    config.kind = SamplerKind::kCmaes;
  } else if (name == "cmaes_noipop") {
    config.kind = SamplerKind::kCmaes;
    config.cmaes.ipop = false;
  } else if (name == "evolution") {
    config.kind = SamplerKind::kEvolution;
  } else if (name == "tpe" || name == "tpe_mv") {
    config.kind = SamplerKind::kTpe;
    config.tpe.multivariate = name == "tpe_mv";
  } else if (name == "gp") {
    config.kind = SamplerKind::kGp;
  } else {
    return Fail(ErrorCode::kInvalidArgument, "unknown sampler " + name);
  }
  return MakeSampler(config, space, Mode::kMin);
}

TrialRecord Completed(const Suggestion& s, double value) {
  TrialRecord t;
  t.number = s.number;
  t.repeat = s.repeat;
  t.params = s.params;
  t.state = TrialState::kCompleted;
  t.objective = value;
  return t;
}

void PrintLine(const Json& line) {
  std::cout << line.dump() << '\n' << std::flush;
}

int Points() {
  constexpr int kRandomPoints = 30;
  for (const TestFunction& f : TestFunctions()) {
    Json points = Json::array();
    points.push_back({{"params", f.argmin}, {"value", f.evaluate(f.argmin)}});
    auto sampler = Make("random", f.space, kRandomPoints, 12345);
    if (!sampler) {
      std::cerr << sampler.error().message << '\n';
      return 1;
    }
    for (int k = 0; k < kRandomPoints; ++k) {
      const Params p = (*sampler)->Suggest(k, {}).params;
      points.push_back({{"params", p}, {"value", f.evaluate(p)}});
    }
    PrintLine({{"function", f.name}, {"space", DescribeSpace(f.space)},
               {"minimum", f.minimum}, {"points", points}});
  }
  return 0;
}

std::vector<int> Checkpoints(int evals) {
  std::vector<int> out;
  for (int c : {10, 25, 50, 100, 150, 200})
    if (c < evals) out.push_back(c);
  out.push_back(evals);
  return out;
}

// One optimisation run; returns {"seed", "regret": {checkpoint: regret}, "suggest_s"}.
Expected<Json> RunSeed(const TestFunction& f, const std::string& sampler_name, int evals,
                       std::uint64_t seed) {
  GS_ASSIGN_OR_RETURN(auto sampler, Make(sampler_name, f.space, evals, seed));
  const std::vector<int> checkpoints = Checkpoints(evals);
  std::vector<TrialRecord> history;
  history.reserve(evals);
  double best = std::numeric_limits<double>::infinity();
  double suggest_seconds = 0;
  Json regret = Json::object();
  for (int k = 0; k < evals; ++k) {
    const auto start = Clock::now();
    const Suggestion s = sampler->Suggest(k, history);
    suggest_seconds += Seconds(Clock::now() - start);
    const double value = f.evaluate(s.params);
    best = std::min(best, value);
    history.push_back(Completed(s, value));
    if (std::find(checkpoints.begin(), checkpoints.end(), k + 1) != checkpoints.end())
      regret[std::to_string(k + 1)] = best - f.minimum;
  }
  return Json{{"seed", seed}, {"regret", regret}, {"suggest_s", suggest_seconds}};
}

int Run(const std::vector<std::string>& functions, const std::vector<std::string>& samplers,
        int seeds, int evals) {
  for (const std::string& name : functions) {
    const TestFunction* f = FindTestFunction(name);
    if (f == nullptr) {
      std::cerr << "unknown function " << name << '\n';
      return 1;
    }
    for (const std::string& sampler : samplers) {
      Json line = {{"side", "gpusweep"}, {"function", name}, {"sampler", sampler}};
      Json runs = Json::array();
      for (int seed = 0; seed < seeds; ++seed) {
        Expected<Json> run = RunSeed(*f, sampler, evals, seed);
        if (!run) {
          line["error"] = run.error().message;
          break;
        }
        runs.push_back(*run);
      }
      if (!line.contains("error")) line["runs"] = runs;
      std::cerr << "gpusweep " << name << ' ' << sampler << " done\n";
      PrintLine(line);
    }
  }
  return 0;
}

// History of `size` completed trials at random points (gpusweep's random sampler, a
// fixed seed), as an experiment that ran random search first would have.
std::vector<TrialRecord> RandomHistory(const TestFunction& f, int size) {
  std::vector<TrialRecord> history;
  auto random = Make("random", f.space, size, 777);
  if (!random) return history;
  for (int k = 0; k < size; ++k) {
    const Suggestion s = (*random)->Suggest(k, {});
    history.push_back(Completed(s, f.evaluate(s.params)));
  }
  return history;
}

int Time(const std::string& function, const std::vector<std::string>& samplers,
         const std::vector<int>& sizes, int reps) {
  const TestFunction* f = FindTestFunction(function);
  if (f == nullptr) {
    std::cerr << "unknown function " << function << '\n';
    return 1;
  }
  for (const std::string& name : samplers) {
    for (int size : sizes) {
      Json line = {{"side", "gpusweep"}, {"function", function}, {"sampler", name},
                   {"history", size}, {"reps", reps}};
      auto sampler = Make(name, f->space, size + reps + 1, 0);
      if (!sampler) {
        line["error"] = sampler.error().message;
        PrintLine(line);
        continue;
      }
      std::vector<TrialRecord> history = RandomHistory(*f, size);
      double total = 0;
      for (int r = 0; r <= reps; ++r) {  // suggestion 0 warms up and is not timed
        const auto start = Clock::now();
        const Suggestion s = (*sampler)->Suggest(size + r, history);
        if (r > 0) total += Seconds(Clock::now() - start);
        history.push_back(Completed(s, f->evaluate(s.params)));
      }
      line["mean_s"] = total / reps;
      PrintLine(line);
    }
  }
  return 0;
}

}  // namespace
}  // namespace gpusweep::bench

int main(int argc, char** argv) {
  using namespace gpusweep::bench;
  CLI::App app{"gpusweep sampler benchmark driver (bench/README.md)"};
  app.require_subcommand(1);
  app.add_subcommand("points", "f(x) at fixed points, to check test_functions.py");

  std::vector<std::string> functions;
  for (const TestFunction& f : TestFunctions()) functions.push_back(f.name);
  std::vector<std::string> samplers = {"random", "sobol", "tpe", "tpe_mv"};
  int seeds = 20, evals = 200;
  CLI::App* run = app.add_subcommand("run", "optimise each function with each sampler");
  run->add_option("--functions", functions)->delimiter(',');
  run->add_option("--samplers", samplers)->delimiter(',');
  run->add_option("--seeds", seeds)->check(CLI::PositiveNumber);
  run->add_option("--evals", evals)->check(CLI::PositiveNumber);

  std::string function = "hartmann6";
  std::vector<std::string> timed = {"tpe", "tpe_mv"};
  std::vector<int> sizes = {100, 1000, 2000};
  int reps = 20;
  CLI::App* time = app.add_subcommand("time", "mean seconds per Suggest at history sizes");
  time->add_option("--function", function);
  time->add_option("--samplers", timed)->delimiter(',');
  time->add_option("--history", sizes)->delimiter(',');
  time->add_option("--reps", reps)->check(CLI::PositiveNumber);

  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("points")) return Points();
  if (app.got_subcommand("run")) return Run(functions, samplers, seeds, evals);
  return Time(function, timed, sizes, reps);
}
