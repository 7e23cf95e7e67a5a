// cmaes_sampler.h — the CMA-ES sampler (contract in gpusweep/sampler.h, method in
// docs/samplers.md): a whole CMA-ES run with IPOP restarts replayed from the trial
// history at every suggestion, so nothing but the journal holds its state.
//
// Generations are blocks of consecutive trial numbers: the first run's generation 0 is
// trials 0..lambda-1, generation g+1 starts where g ended, and after a restart the
// blocks are twice as long. Trial k is member k - first of its generation, drawn with
// the random stream of (seed, k) from that generation's distribution: every member of
// a generation can be suggested (and run) at once. A generation is told (updates the
// state) once all its members have settled: completed, pruned or paused (ranked after
// every completed one, by their last value), failed or with a missing value (left out).
// Asked for a trial past a generation that is still running, the sampler draws it
// from the latest distribution it can compute, and the replay later ranks it with the
// generation its number belongs to, as an injected solution (cmaes_core.h).
//
// Warm start (trials numbered < 0, an earlier experiment's): the first run starts from
// WS-CMA-ES's Gaussian (Nomura, Watanabe, Akimoto, Ozaki, Onishi, "Warm Starting CMA-ES
// for Hyperparameter Optimization", AAAI 2021) fitted to the best 10% of them (at
// least one): mean = their mean, Sigma = alpha^2 I + their covariance (alpha = 0.1),
// sigma0 = det(Sigma)^(1/2n), C = Sigma / sigma0^2. Restarts start fresh.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusweep/sampler.h"
#include "search/cmaes_core.h"
#include "search/cmaes_space.h"

namespace gpusweep::search {

// What the replay found before a trial: the distribution it is drawn from.
struct CmaesReplay {
  CmaesState state;
  int first = 0;      // first trial number of the current generation
  int restarts = 0;   // restarts so far (the current run's lambda = lambda0 * 2^restarts)
  bool open = false;  // the trial lies past a generation that has not settled
  std::vector<CmaesStop> stops;  // why each earlier run stopped
};

class CmaesSampler final : public Sampler {
 public:
  // A space MakeSampler validated, with at least one coordinate (CmaesSpace::dims()).
  CmaesSampler(SearchSpace space, int trials, std::uint64_t seed, const CmaesConfig& config,
               Mode mode);
  int total_trials() const override;
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;

  // The replayed run up to trial `number` (uses trials numbered below it only).
  CmaesReplay Replay(int number, const std::vector<TrialRecord>& history) const;

 private:
  CmaesState FirstRun(const std::vector<TrialRecord>& history) const;
  CmaesState Restarted(int restarts) const;

  CmaesSpace encoding_;
  int trials_;
  std::uint64_t seed_;
  CmaesConfig config_;
  Mode mode_;
  int lambda0_;
};

}  // namespace gpusweep::search
