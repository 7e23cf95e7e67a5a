// The CMA-ES sampler (contracts in cmaes_sampler.h and gpusweep/sampler.h).
#include "search/cmaes_sampler.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>
#include <optional>

#include "gpusweep/objective.h"
#include "search/splitmix64.h"

namespace gpusweep::search {
namespace {

constexpr std::uint64_t kCmaesSampleSalt = 0xC3A5E5D1A7B00001ULL;
constexpr std::uint64_t kCmaesRestartSalt = 0xC3A5E5D1A7B00002ULL;
constexpr int kCmaesMaxResample = 100;       // the cmaes package's n_max_resampling
constexpr int kCmaesMaxLambda = 1 << 20;     // IPOP's doubling stops here
constexpr double kCmaesWarmGamma = 0.1;      // WS-CMA-ES: the best 10% of the source
constexpr double kCmaesWarmAlpha = 0.1;      // WS-CMA-ES: prior width alpha

// n standard normal draws, Box-Muller over the stream (std::normal_distribution is
// implementation-defined; this gives the same numbers with every standard library).
Eigen::VectorXd CmaesStandardNormals(SplitMix64& rng, int n) {
  Eigen::VectorXd z(n);
  for (int i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(rng.Next() >> 11) + 1) * 0x1.0p-53;  // (0, 1]
    const double u2 = UnitFromBits(rng.Next());
    const double radius = std::sqrt(-2 * std::log(u1));
    z[i] = radius * std::cos(2 * std::numbers::pi * u2);
    if (i + 1 < n) z[i + 1] = radius * std::sin(2 * std::numbers::pi * u2);
  }
  return z;
}

// A trial's coordinates, or nullopt when a param is missing or not a number.
std::optional<Eigen::VectorXd> CmaesPoint(const CmaesSpace& space, const Params& params) {
  Eigen::VectorXd x(space.dims());
  for (int d = 0; d < space.dims(); ++d) {
    const std::optional<double> u = space.ToUnit(params, d);
    if (!u) return std::nullopt;
    x[d] = *u;
  }
  return x;
}

enum class CmaesMemberState { kOpen, kLeftOut, kRanked };

// Whether a generation member has settled and, if it ranks, its tier (completed 0,
// pruned or paused 1) and loss.
CmaesMemberState CmaesJudge(const TrialRecord& t, Mode mode, int& tier, double& loss) {
  switch (t.state) {
    case TrialState::kRunning:
    case TrialState::kInterrupted:  // runs again with the same params
      return CmaesMemberState::kOpen;
    case TrialState::kFailed:
      return CmaesMemberState::kLeftOut;
    case TrialState::kCompleted:
    case TrialState::kPruned:
    case TrialState::kPaused:
      if (!t.objective || std::isnan(*t.objective)) return CmaesMemberState::kLeftOut;
      tier = t.state == TrialState::kCompleted ? 0 : 1;
      loss = AsLoss(mode, *t.objective);
      return CmaesMemberState::kRanked;
  }
  return CmaesMemberState::kLeftOut;
}

}  // namespace

CmaesSampler::CmaesSampler(SearchSpace space, int trials, std::uint64_t seed,
                           const CmaesConfig& config, Mode mode)
    : encoding_(space), trials_(trials), seed_(seed), config_(config), mode_(mode) {
  assert(encoding_.dims() >= 1);
  lambda0_ = config.population_size > 0 ? config.population_size
                                        : CmaesDefaultLambda(encoding_.dims());
}

int CmaesSampler::total_trials() const { return trials_; }

CmaesState CmaesSampler::FirstRun(const std::vector<TrialRecord>& history) const {
  const int n = encoding_.dims();
  std::vector<std::pair<double, Eigen::VectorXd>> source;  // (loss, x), warm-start trials
  for (const TrialRecord& t : history) {
    if (t.number >= 0 || t.state != TrialState::kCompleted || !t.objective ||
        std::isnan(*t.objective))
      continue;
    if (std::optional<Eigen::VectorXd> x = CmaesPoint(encoding_, t.params))
      source.emplace_back(AsLoss(mode_, *t.objective), std::move(*x));
  }
  if (source.empty())
    return CmaesState(Eigen::VectorXd::Constant(n, 0.5), config_.sigma0, {}, lambda0_);
  std::stable_sort(source.begin(), source.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t top = std::max<std::size_t>(
      1, static_cast<std::size_t>(kCmaesWarmGamma * static_cast<double>(source.size())));
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(n);
  for (std::size_t i = 0; i < top; ++i) mean += source[i].second;
  mean /= static_cast<double>(top);
  Eigen::MatrixXd sigma_matrix =
      kCmaesWarmAlpha * kCmaesWarmAlpha * Eigen::MatrixXd::Identity(n, n);
  for (std::size_t i = 0; i < top; ++i) {
    const Eigen::VectorXd d = source[i].second - mean;
    sigma_matrix += d * d.transpose() / static_cast<double>(top);
  }
  // sigma0 = det(Sigma)^(1/2n), through the log eigenvalues (det under- or overflows).
  const Eigen::VectorXd eigen =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sigma_matrix, Eigen::EigenvaluesOnly)
          .eigenvalues()
          .cwiseMax(kCmaesMinEigen);
  const double sigma = std::exp(eigen.array().log().sum() / (2.0 * n));
  return CmaesState(std::move(mean), sigma, sigma_matrix / (sigma * sigma), lambda0_);
}

CmaesState CmaesSampler::Restarted(int restarts) const {
  const int n = encoding_.dims();
  SplitMix64 rng = TrialStream(seed_ ^ kCmaesRestartSalt, static_cast<std::uint64_t>(restarts));
  Eigen::VectorXd mean(n);
  for (int d = 0; d < n; ++d) mean[d] = UnitFromBits(rng.Next());
  int lambda = lambda0_;
  for (int r = 0; r < restarts && lambda <= kCmaesMaxLambda / 2; ++r) lambda *= 2;
  return CmaesState(std::move(mean), config_.sigma0, {}, lambda);
}

CmaesReplay CmaesSampler::Replay(int number, const std::vector<TrialRecord>& history) const {
  std::vector<const TrialRecord*> by_number(static_cast<std::size_t>(std::max(number, 0)), nullptr);
  for (const TrialRecord& t : history)
    if (t.number >= 0 && t.number < number) by_number[t.number] = &t;
  CmaesReplay replay{FirstRun(history), 0, 0, false, {}};
  while (true) {
    const int end = replay.first + replay.state.lambda();
    if (number < end) return replay;
    std::vector<CmaesMember> members;
    for (int k = replay.first; k < end; ++k) {
      const TrialRecord* t = by_number[k];
      int tier = 0;
      double loss = 0;
      const CmaesMemberState state =
          t == nullptr ? CmaesMemberState::kOpen : CmaesJudge(*t, mode_, tier, loss);
      if (state == CmaesMemberState::kOpen) {
        replay.open = true;
        return replay;
      }
      if (state != CmaesMemberState::kRanked) continue;
      if (std::optional<Eigen::VectorXd> x = CmaesPoint(encoding_, t->params))
        members.push_back(CmaesMember{std::move(*x), loss, tier});
    }
    replay.state.Update(std::move(members));
    replay.first = end;
    const CmaesStop stop = replay.state.ShouldStop();
    if (stop != CmaesStop::kNone && config_.ipop) {
      replay.stops.push_back(stop);
      ++replay.restarts;
      replay.state = Restarted(replay.restarts);
    }
  }
}

Suggestion CmaesSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const CmaesReplay replay = Replay(number, history);
  SplitMix64 rng = TrialStream(seed_ ^ kCmaesSampleSalt, static_cast<std::uint64_t>(number));
  Eigen::VectorXd x;
  // The cmaes package's bound handling: draw again while outside the box, then clip.
  for (int attempt = 0; attempt < kCmaesMaxResample; ++attempt) {
    x = replay.state.Sample(CmaesStandardNormals(rng, encoding_.dims()));
    if ((x.array() >= 0).all() && (x.array() <= 1).all()) break;
  }
  const std::vector<double> unit(x.data(), x.data() + x.size());
  return Suggestion{number, 0, encoding_.ToParams(unit)};
}

}  // namespace gpusweep::search
