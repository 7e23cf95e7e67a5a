// The Gaussian-process sampler (contract in gpusweep/sampler.h). Per suggestion: the
// trials numbered below this one become features (gp_sampler_detail::Features), a GP is
// fitted to their standardised losses (gp_model.h), running trials join it as constant
// liars, and the point of largest log expected improvement is the suggestion
// (gp_acquisition.h). With several objectives the loss is ParEGO's scalarisation under
// weights drawn for this trial; with constraints each bound gets a GP of its own and the
// acquisition adds their log probabilities of feasibility (docs/samplers.md, "gp").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
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
constexpr std::uint64_t kWeightSalt = 0xBB67AE8584CAA73BULL;  // ParEGO's weights, own stream
constexpr double kChebyshevAugmentation = 0.05;  // ParEGO's rho (Knowles 2006, sec. III-A)

struct Observation {
  int number = 0;
  double loss = 0;  // what the objective GP models; unused for a pending (running) trial
  bool pending = false;
  std::vector<double> features;
  std::vector<double> losses;  // several objectives: each one's loss (AsLoss)
  std::vector<double> excess;  // per constraint bound: how far past it (<= 0 inside), NaN if missing
  double violation = 0;        // Objective::Violation; 0 without constraints
};

// One side of a constraint: its metric must be <= bound (max) or >= bound (min).
struct Bound {
  std::string metric;
  bool is_max = true;
  double bound = 0;
};

std::vector<Bound> BoundsOf(const Objective& objective) {
  std::vector<Bound> bounds;
  for (const ConstraintSpec& c : objective.constraints()) {
    if (c.min) bounds.push_back({c.metric, false, *c.min});
    if (c.max) bounds.push_back({c.metric, true, *c.max});
  }
  return bounds;
}

double Excess(const Bound& b, const Json& metrics) {
  const auto it = metrics.find(b.metric);
  if (it == metrics.end() || !it->is_number()) return std::numeric_limits<double>::quiet_NaN();
  const double value = it->get<double>();
  return b.is_max ? value - b.bound : b.bound - value;
}

// Weights drawn uniformly from the simplex (normalised exponentials), ParEGO's weight
// vector for one suggestion; Knowles draws from a fixed lattice of them, BoTorch's
// ParEGO from the whole simplex, as here.
std::vector<double> SimplexWeights(std::size_t count, SplitMix64& rng) {
  std::vector<double> w(count);
  double sum = 0;
  for (double& x : w) sum += x = -std::log(1 - UnitFromBits(rng.Next()));  // (0, inf)
  for (double& x : w) x = sum > 0 ? x / sum : 1.0 / static_cast<double>(count);
  return w;
}

// ParEGO's scalar loss (Knowles, "ParEGO: A Hybrid Algorithm With On-Line Landscape
// Approximation for Expensive Multiobjective Optimization Problems", IEEE TEC 10(1),
// 2006): each objective's loss normalised to [0, 1] over the scored trials, then the
// augmented Chebyshev function max_i w_i f_i + rho sum_i w_i f_i.
void Scalarise(std::vector<Observation>& scored, const std::vector<double>& weights) {
  const std::size_t m = weights.size();
  std::vector<double> low(m, std::numeric_limits<double>::infinity());
  std::vector<double> high(m, -std::numeric_limits<double>::infinity());
  for (const Observation& o : scored)
    for (std::size_t i = 0; i < m; ++i) {
      low[i] = std::min(low[i], o.losses[i]);
      high[i] = std::max(high[i], o.losses[i]);
    }
  for (Observation& o : scored) {
    double largest = 0, sum = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const double range = high[i] - low[i];
      const double f = range > 0 ? (o.losses[i] - low[i]) / range : 0;
      largest = std::max(largest, weights[i] * f);
      sum += weights[i] * f;
    }
    o.loss = largest + kChebyshevAugmentation * sum;
  }
}

// Values standardised to mean 0 and variance 1 (all 0 when they do not vary), with the
// mean and the divisor used.
struct Standardised {
  std::vector<double> y;
  double mean = 0, sd = 1;
};

Standardised Standardise(const std::vector<double>& values) {
  Standardised out;
  const auto n = static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) out.mean += v;
  out.mean /= n;
  for (double v : values) sq += (v - out.mean) * (v - out.mean);
  out.sd = std::sqrt(sq / n);
  const bool varies = out.sd > 1e-12 * std::max(1.0, std::abs(out.mean));
  if (!varies) out.sd = 1;
  out.y.resize(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out.y[i] = varies ? (values[i] - out.mean) / out.sd : 0;
  return out;
}

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

// The GP's training data: the features of `rows` of `observations` (all of the first
// `count` when `rows` is empty) and their values y (one per row, in that order).
GpData DataOf(const std::vector<Observation>& observations, std::size_t count, int dims,
              const std::vector<bool>& categorical, const std::vector<double>& y,
              const std::vector<std::size_t>& rows = {}) {
  const std::size_t n = rows.empty() ? count : rows.size();
  GpData data;
  data.x.resize(static_cast<Eigen::Index>(n), dims);
  data.y.resize(static_cast<Eigen::Index>(n));
  data.categorical = categorical;
  for (std::size_t i = 0; i < n; ++i) {
    const Observation& o = observations[rows.empty() ? i : rows[i]];
    for (int d = 0; d < dims; ++d)
      data.x(static_cast<Eigen::Index>(i), d) = o.features[static_cast<std::size_t>(d)];
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
                     Objective objective)
    : startup_(StartupSampler(space, trials, seed)),
      model_space_(space),
      trials_(trials),
      seed_(seed),
      config_(config),
      objective_(std::move(objective)) {}

int GpSampler::total_trials() const { return trials_; }

namespace gp_sampler_detail {

// A completed trial's observation, or nullopt when the model cannot use it (an objective
// missing or not finite). One objective without constraints reads `objective`, as the
// single-objective sampler always has; otherwise the reported metrics.
std::optional<Observation> Scored(const TrialRecord& t, const Objective& objective,
                                  const std::vector<Bound>& bounds) {
  Observation o{t.number, 0, false, {}, {}, {}, 0};
  if (!objective.multi() && !objective.constrained()) {
    if (!t.objective || !std::isfinite(*t.objective)) return std::nullopt;
    o.loss = AsLoss(objective.primary().mode, t.objective);
    return o;
  }
  o.losses = objective.Losses(objective.Values(t.last_metrics));
  for (double loss : o.losses)
    if (!std::isfinite(loss)) return std::nullopt;
  o.loss = o.losses.front();
  for (const Bound& b : bounds) o.excess.push_back(Excess(b, t.last_metrics));
  o.violation = objective.Violation(t.last_metrics);
  return o;
}

// Each bound's GP over the scored observations that report its metric, with the
// standardised threshold 0 maps to. A bound no trial reports has no model.
struct ConstraintGps {
  std::vector<std::unique_ptr<GpPosterior>> posteriors;
  std::vector<GpConstraintModel> models;
};

ConstraintGps FitConstraints(const std::vector<Observation>& observations, std::size_t n_scored,
                             std::size_t bounds, int dims, const std::vector<bool>& categorical,
                             SplitMix64& rng) {
  ConstraintGps out;
  for (std::size_t b = 0; b < bounds; ++b) {
    std::vector<std::size_t> reported;
    std::vector<double> excess;
    for (std::size_t i = 0; i < n_scored; ++i)
      if (std::isfinite(observations[i].excess[b])) {
        reported.push_back(i);
        excess.push_back(observations[i].excess[b]);
      }
    if (reported.empty()) continue;
    const Standardised z = Standardise(excess);
    const GpData data = DataOf(observations, 0, dims, categorical, z.y, reported);
    const Eigen::VectorXd theta = GpFitTheta(data, kThetaRestarts, rng);
    out.posteriors.push_back(std::make_unique<GpPosterior>(data, theta));
    out.models.push_back({out.posteriors.back().get(), (0 - z.mean) / z.sd});
  }
  return out;
}

}  // namespace gp_sampler_detail

Suggestion GpSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const std::vector<ModelDim>& dims = model_space_.dims();
  if (dims.empty()) return startup_->Suggest(number, history);
  const std::vector<Bound> bounds = BoundsOf(objective_);
  std::vector<Observation> scored, pending;
  for (const TrialRecord& t : history) {
    if (t.number >= number) continue;  // negative: warm-start history, before every trial
    std::optional<Observation> o;
    if (t.state == TrialState::kCompleted) o = Scored(t, objective_, bounds);
    else if (t.state == TrialState::kRunning) o = Observation{t.number, 0, true, {}, {}, {}, 0};
    if (!o || !Features(model_space_, t.params, o->features)) continue;
    (o->pending ? pending : scored).push_back(std::move(*o));
  }
  if (scored.size() < static_cast<std::size_t>(std::max(config_.n_startup_trials, 1)))
    return startup_->Suggest(number, history);
  if (objective_.multi()) {
    SplitMix64 weight_rng = TrialStream(seed_ ^ kWeightSalt, static_cast<std::uint64_t>(number));
    Scalarise(scored, SimplexWeights(objective_.size(), weight_rng));
  }

  const std::vector<Observation> observations =
      CapObservations(std::move(scored), std::move(pending),
                      static_cast<std::size_t>(config_.max_model_trials));
  std::size_t n_scored = 0;
  while (n_scored < observations.size() && !observations[n_scored].pending) ++n_scored;
  // Standardised losses; running trials lie with the worst of them (constant liar,
  // Ginsbourger, Le Riche & Carraro 2010, CL-max).
  std::vector<double> losses(n_scored);
  for (std::size_t i = 0; i < n_scored; ++i) losses[i] = observations[i].loss;
  std::vector<double> y = Standardise(losses).y;
  const double worst = *std::max_element(y.begin(), y.end());
  y.resize(observations.size(), worst);

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
  const ConstraintGps constraints =
      FitConstraints(observations, n_scored, bounds.size(), d, categorical, rng);

  // The incumbent is the best feasible trial; the maximiser also searches around the
  // best few (the least violating ones while none is feasible).
  std::vector<std::size_t> ranked(n_scored);
  for (std::size_t i = 0; i < n_scored; ++i) ranked[i] = i;
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    const double va = observations[a].violation, vb = observations[b].violation;
    return va != vb ? va < vb : y[a] < y[b];
  });
  std::optional<double> best;
  if (observations[ranked.front()].violation == 0) best = y[ranked.front()];
  std::vector<std::vector<double>> near;
  for (std::size_t i = 0; i < std::min(kNearPoints, n_scored); ++i)
    near.push_back(observations[ranked[i]].features);
  if (!best && constraints.models.empty()) best = y[ranked.front()];  // nothing models feasibility
  // The trials in the model, as the params they map to: a suggestion that rounds to one
  // of them would run a trial again (dims rounded as ModelValues rounds them).
  std::set<std::vector<double>> taken;
  for (const Observation& o : observations) taken.insert(ModelValues(model_space_, o.features));
  const std::vector<double> x = GpMaximizeAcquisition(
      GpAcquisition{&posterior, best, constraints.models}, category_counts, near,
      GpAcquisitionOptions{}, rng, [&](const std::vector<double>& features) {
        return taken.contains(ModelValues(model_space_, features));
      });
  return Suggestion{number, 0, model_space_.ToParams(ModelValues(model_space_, x))};
}

}  // namespace gpusweep::search
