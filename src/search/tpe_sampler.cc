// The TPE sampler (contract in gpusweep/sampler.h). Per suggestion: split the history
// into good/bad groups (tpe_history.h), fit a Parzen estimator to each
// (parzen_estimator.h), draw n_ei_candidates from the good one, l(x), and keep the
// candidate with the largest log l(x) - log g(x) (Bergstra et al. 2011, Optuna 3.1).
// Univariate: one estimator pair and one candidate set per param; multivariate: one
// joint pair and one joint candidate set. With several metrics or constraints the split
// and the good trials' weights are multi-objective TPE's (Ozaki et al., JAIR 2022;
// tpe_mo_history.h); the estimators and the acquisition are the same.
#include <cstdint>
#include <utility>
#include <vector>

#include "search/parzen_estimator.h"
#include "search/samplers.h"
#include "search/splitmix64.h"
#include "search/tpe_history.h"
#include "search/tpe_mo_history.h"
#include "search/tpe_tree.h"

namespace gpusweep::search {
namespace {

constexpr std::uint64_t kTpeSalt = 0x7BE5A4B1E0C3D2F1ULL;

}  // namespace

TpeSampler::TpeSampler(SearchSpace space, int trials, std::uint64_t seed,
                       const TpeConfig& config, Mode mode)
    : TpeSampler(std::move(space), trials, seed, config, Objective(MetricSpec{"objective", mode})) {}

TpeSampler::TpeSampler(SearchSpace space, int trials, std::uint64_t seed,
                       const TpeConfig& config, Objective objective)
    : startup_(space, trials, seed),
      model_space_(space),
      trials_(trials),
      seed_(seed),
      config_(config),
      objective_(std::move(objective)) {}

int TpeSampler::total_trials() const { return trials_; }

Suggestion TpeSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::vector<ModelDim>& dims = model_space_.dims();
  if (dims.empty()) return startup_.Suggest(number, history);
  const RunningTrials running =
      config_.constant_liar ? RunningTrials::kWorst : RunningTrials::kIgnore;
  // One metric without constraints: the trials' `objective` (tpe_history.h); else
  // multi-objective TPE's split over their reported metrics (tpe_mo_history.h).
  const TpeGroups groups =
      objective_.multi() || objective_.constrained()
          ? SplitMoHistory(history, number, model_space_, objective_, running)
          : SplitHistory(history, number, model_space_, objective_.primary().mode, running);
  if (groups.scored < config_.n_startup_trials) return startup_.Suggest(number, history);

  ParzenOptions options;
  options.prior_weight = config_.prior_weight;
  options.consider_magic_clip = config_.consider_magic_clip;
  options.consider_endpoints = config_.consider_endpoints;
  SplitMix64 rng = TrialStream(seed_ ^ kTpeSalt, static_cast<std::uint64_t>(number));
  if (IsConditional(model_space_.space()))  // tree-structured (tpe_tree.h)
    return Suggestion{number, 0,
                      TreeSuggest(model_space_, groups,
                                  {options, config_.n_ei_candidates, config_.multivariate}, rng)};
  std::vector<double> model(dims.size());
  if (config_.multivariate) {
    options.bandwidth = Bandwidth::kScott;
    const ParzenEstimator below(dims, groups.below, options, groups.below_weights);
    const ParzenEstimator above(dims, groups.above, options);
    model = BestCandidate(below, above, config_.n_ei_candidates, rng);
  } else {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const std::vector<ModelDim> dim{dims[d]};
      const ParzenEstimator below(dim, Columns{groups.below[d]}, options, groups.below_weights);
      const ParzenEstimator above(dim, Columns{groups.above[d]}, options);
      model[d] = BestCandidate(below, above, config_.n_ei_candidates, rng)[0];
    }
  }
  return Suggestion{number, 0, model_space_.ToParams(model)};
}

}  // namespace gpusweep::search
