// Definitions of the benchmark's test functions. Keep in step with test_functions.py:
// same formulas, same constants written the same way, same parameter names and order.
#include "bench/samplers/functions.h"

#include <array>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

namespace gpusweep::bench {
namespace {

using std::numbers::pi;

ParamSpec Uniform(std::string name, double low, double high) {
  ParamSpec p;
  p.name = std::move(name);
  p.kind = ParamKind::kUniform;
  p.low = low;
  p.high = high;
  return p;
}

// x0..x{dims-1}, each uniform over [low, high).
SearchSpace Box(int dims, double low, double high) {
  SearchSpace space;
  for (int i = 0; i < dims; ++i) space.params.push_back(Uniform(fmt::format("x{}", i), low, high));
  return space;
}

double X(const Params& params, int i) { return params.at(fmt::format("x{}", i)).get<double>(); }

// Branin-Hoo on x0 in [-5, 10], x1 in [0, 15]; minimum 5/(4 pi) at (pi, 2.275) and two
// other points (Dixon & Szego 1978; constants as in the Virtual Library of Simulation
// Experiments, Surjanovic & Bingham).
double Branin(const Params& params) {
  const double x0 = X(params, 0), x1 = X(params, 1);
  const double b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
  const double q = x1 - b * x0 * x0 + c * x0 - 6;
  return q * q + 10 * (1 - t) * std::cos(x0) + 10;
}

// Hartmann 6-D on [0, 1]^6 (Hartmann 1973; constants from Surjanovic & Bingham).
// The minimum was refined by gradient descent from the published argmin in double
// precision (gradient norm < 1e-13).
constexpr std::array<double, 4> kHartAlpha = {1.0, 1.2, 3.0, 3.2};
constexpr std::array<std::array<double, 6>, 4> kHartA = {{
    {10, 3, 17, 3.5, 1.7, 8},
    {0.05, 10, 17, 0.1, 8, 14},
    {3, 3.5, 1.7, 10, 17, 8},
    {17, 8, 0.05, 10, 0.1, 14},
}};
constexpr std::array<std::array<double, 6>, 4> kHartP = {{
    {0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
    {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
    {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
    {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381},
}};

double Hartmann6(const Params& params) {
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j) {
      const double d = X(params, j) - kHartP[i][j];
      inner += kHartA[i][j] * d * d;
    }
    sum += kHartAlpha[i] * std::exp(-inner);
  }
  return -sum;
}

// Rosenbrock on [-5, 10]^10; minimum 0 at (1, ..., 1) (Rosenbrock 1960).
double Rosenbrock(const Params& params) {
  double sum = 0;
  for (int i = 0; i + 1 < 10; ++i) {
    const double xi = X(params, i), next = X(params, i + 1);
    sum += 100 * (next - xi * xi) * (next - xi * xi) + (xi - 1) * (xi - 1);
  }
  return sum;
}

// Ackley on [-32.768, 32.768]^5 with a = 20, b = 0.2, c = 2 pi; minimum 0 at the origin
// (Ackley 1987).
double Ackley(const Params& params) {
  constexpr int kDims = 5;
  double squares = 0, cosines = 0;
  for (int i = 0; i < kDims; ++i) {
    const double x = X(params, i);
    squares += x * x;
    cosines += std::cos(2 * pi * x);
  }
  return -20 * std::exp(-0.2 * std::sqrt(squares / kDims)) - std::exp(cosines / kDims) + 20 +
         std::numbers::e;
}

// Mixed space, defined for this benchmark. u = log10(lr), lr log-uniform in
// [1e-5, 1e-1] (u in [-5, -1]); layers an int in 1..16.
//   branch "bowl":  0.5 + (u + 3)^2 / 4 + ((layers - 4) / 4)^2
//                   (a smooth local minimum 0.5 at layers = 4, lr = 1e-3)
//   branch "ridge": (u + 2 - 0.05 (layers - 12))^2 + ((layers - 12) / 4)^2
//                   + 0.5 (1 - cos(2 pi (u + 2)))
//                   (couples u with layers and ripples along u; every term is >= 0 and
//                   all vanish at layers = 12, lr = 1e-2)
// Global minimum 0, by construction, at (ridge, 12, 1e-2).
double Mixed(const Params& params) {
  const std::string branch = params.at("branch").get<std::string>();
  const double layers = static_cast<double>(params.at("layers").get<std::int64_t>());
  const double u = std::log10(params.at("lr").get<double>());
  if (branch == "bowl") {
    const double dl = (layers - 4) / 4;
    return 0.5 + (u + 3) * (u + 3) / 4 + dl * dl;
  }
  const double shifted = u + 2 - 0.05 * (layers - 12);
  const double dl = (layers - 12) / 4;
  return shifted * shifted + dl * dl + 0.5 * (1 - std::cos(2 * pi * (u + 2)));
}

SearchSpace MixedSpace() {
  ParamSpec branch;
  branch.name = "branch";
  branch.kind = ParamKind::kChoice;
  branch.values = {"bowl", "ridge"};
  ParamSpec layers;
  layers.name = "layers";
  layers.kind = ParamKind::kInt;
  layers.int_low = 1;
  layers.int_high = 16;
  layers.int_step = 1;
  ParamSpec lr;
  lr.name = "lr";
  lr.kind = ParamKind::kLogUniform;
  lr.low = 1e-5;
  lr.high = 1e-1;
  return SearchSpace{{branch, layers, lr}};
}

Params Point(const std::vector<double>& x) {
  Params p = Json::object();
  for (std::size_t i = 0; i < x.size(); ++i) p[fmt::format("x{}", i)] = x[i];
  return p;
}

std::vector<TestFunction> MakeAll() {
  const double h6min = -3.3223680114155147;
  return {
      {"branin", SearchSpace{{Uniform("x0", -5, 10), Uniform("x1", 0, 15)}}, 5 / (4 * pi),
       Branin, Point({pi, 2.275})},
      {"hartmann6", Box(6, 0, 1), h6min, Hartmann6,
       Point({0.2016895110067058, 0.1500106918234582, 0.4768739742218962,
              0.2753324304940563, 0.31165161660011315, 0.6573005340656208})},
      {"rosenbrock10", Box(10, -5, 10), 0, Rosenbrock, Point(std::vector<double>(10, 1.0))},
      {"ackley5", Box(5, -32.768, 32.768), 0, Ackley, Point(std::vector<double>(5, 0.0))},
      {"mixed", MixedSpace(), 0, Mixed,
       Params{{"branch", "ridge"}, {"layers", 12}, {"lr", 1e-2}}},
  };
}

}  // namespace

const std::vector<TestFunction>& TestFunctions() {
  static const std::vector<TestFunction> functions = MakeAll();
  return functions;
}

const TestFunction* FindTestFunction(const std::string& name) {
  for (const TestFunction& f : TestFunctions())
    if (f.name == name) return &f;
  return nullptr;
}

Json DescribeSpace(const SearchSpace& space) {
  Json out = Json::array();
  for (const ParamSpec& p : space.params) {
    switch (p.kind) {
      case ParamKind::kChoice:
        out.push_back({{"name", p.name}, {"kind", "choice"}, {"values", p.values}});
        break;
      case ParamKind::kInt:
        out.push_back({{"name", p.name}, {"kind", "int"}, {"low", p.int_low},
                       {"high", p.int_high}, {"step", p.int_step}});
        break;
      case ParamKind::kUniform:
      case ParamKind::kLogUniform:
        out.push_back({{"name", p.name},
                       {"kind", p.kind == ParamKind::kUniform ? "uniform" : "loguniform"},
                       {"low", p.low}, {"high", p.high}});
        break;
      case ParamKind::kConstant:
        out.push_back({{"name", p.name}, {"kind", "constant"}, {"value", p.constant}});
        break;
      case ParamKind::kNormal:
      case ParamKind::kLogNormal:
        out.push_back({{"name", p.name},
                       {"kind", p.kind == ParamKind::kNormal ? "normal" : "lognormal"},
                       {"mu", p.mu}, {"sigma", p.sigma}, {"low", p.low}, {"high", p.high}});
        break;
    }
  }
  return out;
}

}  // namespace gpusweep::bench
