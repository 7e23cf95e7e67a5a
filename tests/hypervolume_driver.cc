// hypervolume_driver: reads cases from stdin, one per line as JSON
// {"points": [[...], ...], "reference": [...]}, and writes gpusweep's Hypervolume of each
// (%.17g, one per line), for tests/hypervolume_optuna_test.py to compare with Optuna's.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "gpusweep/pareto.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const nlohmann::json input = nlohmann::json::parse(line);
    const auto points = input.at("points").get<std::vector<gpusweep::LossPoint>>();
    const auto reference = input.at("reference").get<std::vector<double>>();
    std::printf("%.17g\n", gpusweep::Hypervolume(points, reference));
  }
  return 0;
}
