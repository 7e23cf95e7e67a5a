// functions.h — the test functions of the sampler benchmark (bench/README.md,
// "samplers"). test_functions.py defines the same functions in Python; run.sh checks
// that both sides agree at fixed points before it runs anything.
//
// Every function is minimised over its search space and has a known global minimum, so
// simple regret = best value found - minimum >= 0.
#pragma once

#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/json.h"

namespace gpusweep::bench {

struct TestFunction {
  std::string name;
  SearchSpace space;
  double minimum = 0;                    // known global minimum of Evaluate over space
  double (*evaluate)(const Params&) = nullptr;  // params as a sampler suggests them
  Params argmin;                         // one point where the minimum is attained
};

// Branin (2-D), Hartmann6 (6-D), Rosenbrock (10-D), Ackley (5-D) and "mixed" (a choice
// between two sub-functions, an int and a log-scaled float), in that order. Definitions
// and sources are in functions.cc.
const std::vector<TestFunction>& TestFunctions();

// The function called `name`, or nullptr.
const TestFunction* FindTestFunction(const std::string& name);

// The search space as JSON, [{"name", "kind", "low", "high", "step", "values"}...],
// for the Python side to compare with its own definition.
Json DescribeSpace(const SearchSpace& space);

}  // namespace gpusweep::bench
