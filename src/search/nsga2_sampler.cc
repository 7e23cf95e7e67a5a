// The NSGA-II sampler (contract in gpusweep/sampler.h, docs/samplers.md "nsga2").
//
// Per suggestion, once the first generation (`population` random trials) is numbered:
// the completed trials, in trial-number order, are ranked by constraint-domination
// (pareto.h: fronts, then crowding within a front); the best `population` of them are
// the parents (Deb 2002's elitist (mu + lambda) truncation, over every completed trial);
// two binary tournaments by the crowded-comparison operator pick a pair; simulated
// binary crossover (SBX, Deb & Agrawal 1995) of numeric dims and uniform crossover of
// categorical ones make a child, then polynomial mutation (numeric) and a uniform
// redraw (categorical). Numeric dims are TPE's model space (tpe_space.h): [0, 1] for
// continuous, the grid index for discrete, rounded back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "gpusweep/pareto.h"
#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {
namespace {

constexpr std::uint64_t kNsga2Salt = 0x45A2D06F1B39C7E3ULL;

double Nsga2Unit(SplitMix64& rng) { return static_cast<double>(rng.Next() >> 11) * 0x1.0p-53; }

struct Nsga2Parent {
  std::vector<double> model;
  int rank = 0;
  double crowding = 0;
};

// Parents from the completed trials whose params map into the model space.
std::vector<Nsga2Parent> Nsga2Parents(const std::vector<TrialRecord>& history, const TpeSpace& space,
                                      const Objective& objective, int population) {
  std::vector<const TrialRecord*> completed;
  for (const TrialRecord& t : history)
    if (t.state == TrialState::kCompleted) completed.push_back(&t);
  std::sort(completed.begin(), completed.end(),
            [](const TrialRecord* a, const TrialRecord* b) { return a->number < b->number; });
  std::vector<std::vector<double>> models;
  std::vector<LossPoint> losses;
  std::vector<double> violations;
  for (const TrialRecord* t : completed) {
    std::vector<double> model(space.dims().size());
    bool mapped = true;
    for (std::size_t d = 0; d < model.size() && mapped; ++d) {
      const Json* value = space.FindValue(t->params, static_cast<int>(d));
      const std::optional<double> m = value ? space.ToModel(static_cast<int>(d), *value) : std::nullopt;
      if (m) model[d] = *m;
      mapped = m.has_value();
    }
    if (!mapped) continue;
    models.push_back(std::move(model));
    losses.push_back(objective.Losses(objective.Values(t->last_metrics)));
    violations.push_back(objective.Violation(t->last_metrics));
  }
  const std::vector<int> ranks = ConstrainedRanks(losses, violations);
  const std::vector<double> crowding = CrowdingDistances(losses, ranks);
  const std::vector<int> order = ParetoOrder(ranks, crowding);
  std::vector<Nsga2Parent> parents;
  for (std::size_t i = 0; i < order.size() && static_cast<int>(i) < population; ++i)
    parents.push_back({std::move(models[order[i]]), ranks[order[i]], crowding[order[i]]});
  return parents;
}

// Binary tournament by the crowded-comparison operator (lower front, then larger
// crowding; a full tie goes to the first drawn).
const Nsga2Parent& Nsga2Tournament(const std::vector<Nsga2Parent>& parents, SplitMix64& rng) {
  const Nsga2Parent& a = parents[BelowFromBits(rng.Next(), parents.size())];
  const Nsga2Parent& b = parents[BelowFromBits(rng.Next(), parents.size())];
  if (a.rank != b.rank) return a.rank < b.rank ? a : b;
  return b.crowding > a.crowding ? b : a;
}

// SBX of x1, x2 in [lo, hi] (Deb & Agrawal 1995, with the bounded spread of Deb's
// NSGA-II code); returns the first child.
double Nsga2Sbx(double x1, double x2, double lo, double hi, double eta, SplitMix64& rng) {
  if (std::abs(x1 - x2) < 1e-14 || !(hi > lo)) return x1;
  const double y1 = std::min(x1, x2), y2 = std::max(x1, x2);
  const double u = Nsga2Unit(rng);
  const auto spread = [&](double beta) {
    const double alpha = 2 - std::pow(beta, -(eta + 1));
    return u <= 1 / alpha ? std::pow(u * alpha, 1 / (eta + 1)) : std::pow(1 / (2 - u * alpha), 1 / (eta + 1));
  };
  const double beta_low = 1 + 2 * (y1 - lo) / (y2 - y1);
  const double beta_high = 1 + 2 * (hi - y2) / (y2 - y1);
  const double c1 = 0.5 * ((y1 + y2) - spread(beta_low) * (y2 - y1));
  const double c2 = 0.5 * ((y1 + y2) + spread(beta_high) * (y2 - y1));
  const double child = Nsga2Unit(rng) < 0.5 ? c1 : c2;
  return std::clamp(child, lo, hi);
}

// Polynomial mutation of x in [lo, hi] (Deb & Goyal 1996, bounded form).
double Nsga2PolynomialMutation(double x, double lo, double hi, double eta, SplitMix64& rng) {
  if (!(hi > lo)) return x;
  const double u = Nsga2Unit(rng);
  const double d1 = (x - lo) / (hi - lo), d2 = (hi - x) / (hi - lo);
  const double power = 1 / (eta + 1);
  double delta;
  if (u < 0.5) {
    const double v = 2 * u + (1 - 2 * u) * std::pow(1 - d1, eta + 1);
    delta = std::pow(v, power) - 1;
  } else {
    const double v = 2 * (1 - u) + 2 * (u - 0.5) * std::pow(1 - d2, eta + 1);
    delta = 1 - std::pow(v, power);
  }
  return std::clamp(x + delta * (hi - lo), lo, hi);
}

}  // namespace

Nsga2Sampler::Nsga2Sampler(SearchSpace space, int trials, std::uint64_t seed,
                           const Nsga2Config& config, Objective objective)
    : startup_(space, trials, seed),
      model_space_(space),
      trials_(trials),
      seed_(seed),
      config_(config),
      objective_(std::move(objective)) {}

int Nsga2Sampler::total_trials() const { return trials_; }

Suggestion Nsga2Sampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::vector<ModelDim>& dims = model_space_.dims();
  if (dims.empty() || number < config_.population) return startup_.Suggest(number, history);
  const std::vector<Nsga2Parent> parents =
      Nsga2Parents(history, model_space_, objective_, config_.population);
  if (parents.size() < 2) return startup_.Suggest(number, history);

  SplitMix64 rng = TrialStream(seed_ ^ kNsga2Salt, static_cast<std::uint64_t>(number));
  const Nsga2Parent& first = Nsga2Tournament(parents, rng);
  const Nsga2Parent& second = Nsga2Tournament(parents, rng);
  const bool cross = Nsga2Unit(rng) < config_.crossover_prob;
  const double mutation =
      config_.mutation_prob > 0 ? config_.mutation_prob : 1.0 / static_cast<double>(dims.size());
  std::vector<double> child = first.model;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const bool categorical = dims[d].kind == DimKind::kCategorical;
    const double hi = dims[d].kind == DimKind::kContinuous ? 1.0 : static_cast<double>(dims[d].size - 1);
    const double swap = Nsga2Unit(rng);
    const double crossed = categorical ? second.model[d]
                                       : Nsga2Sbx(first.model[d], second.model[d], 0, hi,
                                                  config_.crossover_eta, rng);
    if (cross && swap < 0.5) child[d] = crossed;
    const double mutate = Nsga2Unit(rng);
    const std::uint64_t redraw = rng.Next();
    if (mutate < mutation)
      child[d] = categorical ? static_cast<double>(BelowFromBits(redraw, dims[d].size))
                             : Nsga2PolynomialMutation(child[d], 0, hi, config_.mutation_eta, rng);
    if (dims[d].kind != DimKind::kContinuous) child[d] = std::clamp(std::round(child[d]), 0.0, hi);
  }
  return Suggestion{number, 0, model_space_.ToParams(child)};
}

}  // namespace gpusweep::search
