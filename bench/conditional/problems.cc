#include "bench/conditional/problems.h"

#include <cmath>
#include <cstdlib>

namespace gpusweep::bench {
namespace {

double Get(const Params& p, const std::string& name) { return p.at(name).get<double>(); }

std::string Branch(const Params& p, const std::string& choice) {
  return p.at(choice).at("name").get<std::string>();
}

double Sq(double x) { return x * x; }

// a: easy 2-D bowl, best 0.5; b: 4-D bowl, best 0 (the global one); c: a log-scale float
// and an int, best 0.25.
double Branches3(const Params& p) {
  const std::string b = Branch(p, "branch");
  if (b == "a") return 0.5 + (Sq(Get(p, "branch.x1") - 1) + Sq(Get(p, "branch.x2") + 2)) / 10;
  if (b == "b") {
    double s = 0;
    for (int i = 1; i <= 4; ++i) s += Sq(Get(p, "branch.y" + std::to_string(i)) - 0.2 * i);
    return 4 * s;
  }
  return 0.25 + Sq(std::log10(Get(p, "branch.z")) + 2) / 4 +
         std::abs(Get(p, "branch.k") - 7) / 10;
}

// A made-up validation loss: each optimiser has its own best learning rate and its own
// parameters; more layers need a second width and then dropout.
double Hierarchical(const Params& p) {
  const double loglr = std::log10(Get(p, "lr"));
  double f = 0.05;
  if (p.at("optimizer").get<std::string>() == "sgd") {
    f += 0.1 * Sq(loglr + 2) + 2 * Sq(Get(p, "momentum") - 0.9) +
         (p.at("nesterov").get<bool>() ? 0 : 0.05);
  } else {
    f += 0.1 + 0.1 * Sq(loglr + 3) + 2 * Sq(Get(p, "beta1") - 0.9);
  }
  f += 0.02 * Sq(std::log2(Get(p, "width1")) - 7);
  const double layers = Get(p, "layers");
  if (layers == 1) return f + 0.3;
  f += 0.02 * Sq(std::log2(Get(p, "width2")) - 6);
  if (layers == 2) return f + 0.1;
  if (layers == 3) return f + 2 * Sq(Get(p, "dropout") - 0.2);
  return f + 0.05 + 2 * Sq(Get(p, "dropout") - 0.3);
}

// Branch dN: a sphere in [0, 1]^N centred on c_i = 0.1 + 0.8 (i - 1) / (N - 1) (0.5 for
// N = 1), offset by how much worse the branch's best is than d8's.
double Branches5(const Params& p) {
  const std::string b = Branch(p, "branch");
  const int d = std::atoi(b.c_str() + 1);
  const double offset = d == 1 ? 0.6 : d == 2 ? 0.45 : d == 4 ? 0.3 : d == 6 ? 0.15 : 0;
  double s = offset;
  for (int i = 1; i <= d; ++i) {
    const double centre = d == 1 ? 0.5 : 0.1 + 0.8 * (i - 1) / (d - 1);
    s += Sq(Get(p, "branch.u" + std::to_string(i)) - centre);
  }
  return s;
}

}  // namespace

const std::vector<SyntheticProblem>& SyntheticProblems() {
  static const std::vector<SyntheticProblem> problems = {
      {"branches3", 0.0, Branches3},
      {"hierarchical", 0.05, Hierarchical},
      {"branches5", 0.0, Branches5},
  };
  return problems;
}

}  // namespace gpusweep::bench
