// The Gaussian-process sampler (contract in gpusweep/sampler.h). Per suggestion: the
// trials numbered below this one become features (gp_sampler_detail::Features), a GP is
// fitted to their standardised losses (gp_model.h), running trials join it as constant
// liars, and the point of largest log expected improvement is the suggestion
// (gp_acquisition.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "gpusweep/objective.h"
#include "search/gp_acquisition.h"
#include "search/gp_model.h"
#include "search/samplers.h"
#include "search/splitmix64.h"

namespace gpusweep::search {
namespace gp_sampler_detail {

constexpr std::uint64_t kGpSalt = 0x6A09E667F3BCC908ULL;
constexpr int kThetaRestarts = 2;   // random starts of the hyperparameter fit, after the fixed one
constexpr std::size_t kNearPoints = 5;  // best observed points the maximiser searches around

struct Observation {
  int number = 0;
  double loss = 0;  // AsLoss of the objective; unused for a pending (running) trial
  bool pending = false;
  std::vector<double> features;
};

// The features of a trial's params: a continuous dim as its model value (in [0, 1]), a
// discrete (int) dim as index / (cells - 1), a categorical dim as its value index.
// False when a param is missing or does not fit the space.
bool Features(const TpeSpace& space, const Params& params, std::vector<double>& out) {
  const std::vector<ModelDim>& dims = space.dims();
  out.resize(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const Json* value = space.FindValue(params, static_cast<int>(d));
    const std::optional<double> model =
        value ? space.ToModel(static_cast<int>(d), *value) : std::nullopt;
    if (!model) return false;
    out[d] = dims[d].kind == DimKind::kDiscrete
                 ? *model / static_cast<double>(dims[d].size - 1)
                 : *model;
  }
  return true;
}

// The inverse of Features for a point the maximiser returns.
std::vector<double> ModelValues(const TpeSpace& space, const std::vector<double>& features) {
  const std::vector<ModelDim>& dims = space.dims();
  std::vector<double> model(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const double x = features[d];
    if (dims[d].kind == DimKind::kDiscrete) {
      const double last = static_cast<double>(dims[d].size - 1);
      model[d] = std::clamp(std::round(x * last), 0.0, last);
    } else if (dims[d].kind == DimKind::kCategorical) {
      model[d] = std::clamp(std::round(x), 0.0, static_cast<double>(dims[d].size - 1));
    } else {
      model[d] = std::clamp(x, 0.0, 1.0);
    }
  }
  return model;
}

// At most `cap` observations: the most recent min(pending, cap / 2) running trials, and
// of the scored ones, when too many, the best half of what is left (by loss, then
// number) and the most recent of the others. Trial-number order.
std::vector<Observation> CapObservations(std::vector<Observation> scored,
                                         std::vector<Observation> pending, std::size_t cap) {
  const auto by_number = [](const Observation& a, const Observation& b) {
    return a.number < b.number;
  };
  std::stable_sort(pending.begin(), pending.end(), by_number);
  const std::size_t keep_pending = std::min(pending.size(), cap / 2);
  pending.erase(pending.begin(), pending.end() - static_cast<std::ptrdiff_t>(keep_pending));
  const std::size_t keep_scored = cap - keep_pending;
  if (scored.size() > keep_scored) {
    std::stable_sort(scored.begin(), scored.end(), [](const Observation& a, const Observation& b) {
      return a.loss != b.loss ? a.loss < b.loss : a.number < b.number;
    });
    const std::size_t best = (keep_scored + 1) / 2;
    std::stable_sort(scored.begin() + static_cast<std::ptrdiff_t>(best), scored.end(),
                     [](const Observation& a, const Observation& b) { return a.number > b.number; });
    scored.resize(keep_scored);
  }
  std::stable_sort(scored.begin(), scored.end(), by_number);
  for (Observation& p : pending) scored.push_back(std::move(p));
  return scored;
}

GpData DataOf(const std::vector<Observation>& observations, std::size_t count, int dims,
              const std::vector<bool>& categorical, const std::vector<double>& y) {
  GpData data;
  data.x.resize(static_cast<Eigen::Index>(count), dims);
  data.y.resize(static_cast<Eigen::Index>(count));
  data.categorical = categorical;
  for (std::size_t i = 0; i < count; ++i) {
    for (int d = 0; d < dims; ++d)
      data.x(static_cast<Eigen::Index>(i), d) = observations[i].features[static_cast<std::size_t>(d)];
    data.y[static_cast<Eigen::Index>(i)] = y[i];
  }
  return data;
}

std::unique_ptr<Sampler> StartupSampler(const SearchSpace& space, int trials,
                                        std::uint64_t seed) {
  std::size_t varying = 0;
  for (const ParamSpec& p : space.params) varying += p.kind != ParamKind::kConstant ? 1 : 0;
  if (varying <= MaxSobolDimensions()) return std::make_unique<SobolSampler>(space, trials, seed);
  return std::make_unique<RandomSampler>(space, trials, seed);
}

}  // namespace gp_sampler_detail

using namespace gp_sampler_detail;

GpSampler::GpSampler(SearchSpace space, int trials, std::uint64_t seed, const GpConfig& config,
                     Mode mode)
    : startup_(StartupSampler(space, trials, seed)),
      model_space_(space),
      trials_(trials),
      seed_(seed),
      config_(config),
      mode_(mode) {}

int GpSampler::total_trials() const { return trials_; }

Suggestion GpSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::vector<ModelDim>& dims = model_space_.dims();
  if (dims.empty()) return startup_->Suggest(number, history);
  std::vector<Observation> scored, pending;
  for (const TrialRecord& t : history) {
    if (t.number >= number) continue;  // negative: warm-start history, before every trial
    const bool completed = t.state == TrialState::kCompleted && t.objective &&
                           std::isfinite(*t.objective);
    if (!completed && t.state != TrialState::kRunning) continue;
    Observation o{t.number, completed ? AsLoss(mode_, t.objective) : 0, !completed, {}};
    if (!Features(model_space_, t.params, o.features)) continue;
    (completed ? scored : pending).push_back(std::move(o));
  }
  if (scored.size() < static_cast<std::size_t>(std::max(config_.n_startup_trials, 1)))
    return startup_->Suggest(number, history);

  const std::vector<Observation> observations =
      CapObservations(std::move(scored), std::move(pending),
                      static_cast<std::size_t>(config_.max_model_trials));
  std::size_t n_scored = 0;
  while (n_scored < observations.size() && !observations[n_scored].pending) ++n_scored;
  // Standardised losses; running trials lie with the worst of them (constant liar,
  // Ginsbourger, Le Riche & Carraro 2010, CL-max).
  double mean = 0, sq = 0;
  for (std::size_t i = 0; i < n_scored; ++i) mean += observations[i].loss;
  mean /= static_cast<double>(n_scored);
  for (std::size_t i = 0; i < n_scored; ++i)
    sq += (observations[i].loss - mean) * (observations[i].loss - mean);
  const double sd = std::sqrt(sq / static_cast<double>(n_scored));
  std::vector<double> y(observations.size());
  for (std::size_t i = 0; i < n_scored; ++i)
    y[i] = sd > 1e-12 * std::max(1.0, std::abs(mean)) ? (observations[i].loss - mean) / sd : 0;
  const double worst = *std::max_element(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n_scored));
  const double best = *std::min_element(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n_scored));
  for (std::size_t i = n_scored; i < y.size(); ++i) y[i] = worst;

  const int d = static_cast<int>(dims.size());
  std::vector<bool> categorical(dims.size());
  std::vector<int> category_counts(dims.size(), 0);
  for (std::size_t k = 0; k < dims.size(); ++k) {
    categorical[k] = dims[k].kind == DimKind::kCategorical;
    if (categorical[k]) category_counts[k] = static_cast<int>(dims[k].size);
  }
  SplitMix64 rng = TrialStream(seed_ ^ kGpSalt, static_cast<std::uint64_t>(number));
  const Eigen::VectorXd theta =
      GpFitTheta(DataOf(observations, n_scored, d, categorical, y), kThetaRestarts, rng);
  const GpPosterior posterior(DataOf(observations, observations.size(), d, categorical, y),
                              theta);

  std::vector<std::size_t> ranked(n_scored);
  for (std::size_t i = 0; i < n_scored; ++i) ranked[i] = i;
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  std::vector<std::vector<double>> near;
  for (std::size_t i = 0; i < std::min(kNearPoints, n_scored); ++i)
    near.push_back(observations[ranked[i]].features);
  const std::vector<double> x =
      GpMaximizeLogEi(posterior, best, category_counts, near, GpAcquisitionOptions{}, rng);
  return Suggestion{number, 0, model_space_.ToParams(ModelValues(model_space_, x))};
}

}  // namespace gpusweep::search
