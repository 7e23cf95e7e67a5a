// Log expected improvement and its maximiser (contract in gp_acquisition.h).
#include "search/gp_acquisition.h"

#include <nlopt.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace gpusweep::search {
namespace gp_acquisition_detail {

constexpr double kHalfLogTwoPi = 0.91893853320467274178;

// log h(z) with h(z) = phi(z) + z Phi(z), and the ratios Phi/h and phi/h its
// derivatives need.
struct LogH {
  double log_h = 0;
  double cdf_over_h = 0;
  double pdf_over_h = 0;
};

LogH GpLogH(double z) {
  LogH out;
  if (z >= -1) {
    const double pdf = std::exp(-0.5 * z * z - kHalfLogTwoPi);
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    const double h = pdf + z * cdf;
    out.log_h = std::log(h);
    out.cdf_over_h = cdf / h;
    out.pdf_over_h = pdf / h;
    return out;
  }
  double mills = 0, q = 0, log_q = 0;  // mills = Phi/phi; q = 1 + z mills = h/phi
  if (z >= -30) {
    mills = std::sqrt(std::numbers::pi / 2) * std::exp(0.5 * z * z) *
            std::erfc(-z / std::numbers::sqrt2);
    q = 1 + z * mills;
    log_q = std::log(q);
  } else {
    const double u = 1 / (z * z);  // Mills' ratio ~ (1 - u + 3u^2 - 15u^3) / |z|
    mills = (1 - u + 3 * u * u - 15 * u * u * u) / -z;
    q = u * (1 - 3 * u + 15 * u * u - 105 * u * u * u);
    log_q = std::log(u) + std::log1p(-3 * u + 15 * u * u - 105 * u * u * u);
  }
  out.log_h = -0.5 * z * z - kHalfLogTwoPi + log_q;
  out.cdf_over_h = mills / q;
  out.pdf_over_h = 1 / q;
  return out;
}

struct LbfgsProblem {
  const GpAcquisition* acquisition = nullptr;
  std::vector<double> point;        // all features; the continuous ones are set per call
  std::vector<int> continuous;      // feature index of each optimised variable
  std::vector<double> gradient;     // the acquisition's, over all features
  const GpTaken* taken = nullptr;   // points the winner may not be (may be empty)
  double best_value = -std::numeric_limits<double>::infinity();
  std::vector<double> best_point;
};

// NLopt's objective: minus the acquisition at the point with the continuous features
// from x.
double NegativeAcquisition(unsigned n, const double* x, double* grad, void* context) {
  auto* problem = static_cast<LbfgsProblem*>(context);
  for (unsigned i = 0; i < n; ++i)
    problem->point[static_cast<std::size_t>(problem->continuous[i])] = x[i];
  const double value = problem->acquisition->Value(problem->point.data(),
                                                   grad ? problem->gradient.data() : nullptr);
  if (grad != nullptr) {
    for (unsigned i = 0; i < n; ++i) {
      grad[i] = -problem->gradient[static_cast<std::size_t>(problem->continuous[i])];
      if (!std::isfinite(grad[i])) grad[i] = 0;
    }
  }
  if (!std::isfinite(value)) return 1e300;
  if (value > problem->best_value && !(*problem->taken && (*problem->taken)(problem->point))) {
    problem->best_value = value;
    problem->best_point = problem->point;
  }
  return -value;
}

double GaussianDraw(SplitMix64& rng) {  // Box-Muller, one draw per two words
  const double u1 = 1 - UnitFromBits(rng.Next());  // (0, 1]
  const double u2 = UnitFromBits(rng.Next());
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

}  // namespace gp_acquisition_detail

using namespace gp_acquisition_detail;

double GpLogExpectedImprovement(double mean, double var, double best, double* d_mean,
                                double* d_var) {
  assert(var > 0);
  const double sd = std::sqrt(var);
  const double z = (best - mean) / sd;
  const LogH h = GpLogH(z);
  if (d_mean != nullptr) *d_mean = -h.cdf_over_h / sd;
  if (d_var != nullptr) *d_var = h.pdf_over_h / (2 * var);
  return h.log_h + 0.5 * std::log(var);
}

double GpLogProbabilityBelow(double mean, double var, double threshold, double* d_mean,
                             double* d_var) {
  assert(var > 0);
  const double sd = std::sqrt(var);
  const double z = (threshold - mean) / sd;
  double log_cdf = 0, pdf_over_cdf = 0;
  if (z >= -1) {
    const double cdf = 0.5 * std::erfc(-z / std::numbers::sqrt2);
    log_cdf = std::log(cdf);
    pdf_over_cdf = std::exp(-0.5 * z * z - kHalfLogTwoPi) / cdf;
  } else {
    // Phi(z) = phi(z) m(z) with Mills' ratio m = Phi / phi, as in GpLogH.
    double mills = 0;
    if (z >= -30) {
      mills = std::sqrt(std::numbers::pi / 2) * std::exp(0.5 * z * z) *
              std::erfc(-z / std::numbers::sqrt2);
    } else {
      const double u = 1 / (z * z);
      mills = (1 - u + 3 * u * u - 15 * u * u * u) / -z;
    }
    log_cdf = -0.5 * z * z - kHalfLogTwoPi + std::log(mills);
    pdf_over_cdf = 1 / mills;
  }
  if (d_mean != nullptr) *d_mean = -pdf_over_cdf / sd;
  if (d_var != nullptr) *d_var = -pdf_over_cdf * z / (2 * var);
  return log_cdf;
}

double GpAcquisition::Value(const double* point, double* grad) const {
  assert(objective != nullptr && (best.has_value() || !constraints.empty()));
  const auto size = static_cast<std::size_t>(dims());
  std::vector<double> grad_mean(grad ? size : 0), grad_var(grad ? size : 0);
  if (grad != nullptr) std::fill(grad, grad + size, 0.0);
  double total = 0;
  const auto add = [&](const GpPosterior& model, auto term) {
    double mean = 0, var = 0, d_mean = 0, d_var = 0;
    model.Predict(point, mean, var, grad ? grad_mean.data() : nullptr,
                  grad ? grad_var.data() : nullptr);
    total += term(mean, var, grad ? &d_mean : nullptr, grad ? &d_var : nullptr);
    if (grad != nullptr)
      for (std::size_t f = 0; f < size; ++f) grad[f] += d_mean * grad_mean[f] + d_var * grad_var[f];
  };
  if (best)
    add(*objective, [&](double m, double v, double* dm, double* dv) {
      return GpLogExpectedImprovement(m, v, *best, dm, dv);
    });
  for (const GpConstraintModel& c : constraints) {
    assert(c.posterior != nullptr && c.posterior->dims() == dims());
    add(*c.posterior, [&](double m, double v, double* dm, double* dv) {
      return GpLogProbabilityBelow(m, v, c.threshold, dm, dv);
    });
  }
  return total;
}

std::vector<double> GpMaximizeLogEi(const GpPosterior& posterior, double best,
                                    const std::vector<int>& category_counts,
                                    const std::vector<std::vector<double>>& near,
                                    const GpAcquisitionOptions& options, SplitMix64& rng) {
  return GpMaximizeAcquisition(GpAcquisition{&posterior, best, {}}, category_counts, near,
                               options, rng, GpTaken{});
}

std::vector<double> GpMaximizeAcquisition(const GpAcquisition& acquisition,
                                          const std::vector<int>& category_counts,
                                          const std::vector<std::vector<double>>& near,
                                          const GpAcquisitionOptions& options, SplitMix64& rng,
                                          const GpTaken& taken) {
  const auto is_taken = [&](const std::vector<double>& x) { return taken && taken(x); };
  const int dims = acquisition.dims();
  assert(static_cast<int>(category_counts.size()) == dims);
  const auto score = [&](const std::vector<double>& x) {
    const double value = acquisition.Value(x.data(), nullptr);
    return std::isfinite(value) ? value : -std::numeric_limits<double>::infinity();
  };
  const auto random_category = [&](int d) {
    return static_cast<double>(
        BelowFromBits(rng.Next(), static_cast<std::uint64_t>(category_counts[static_cast<std::size_t>(d)])));
  };

  std::vector<std::vector<double>> candidates;
  candidates.reserve(static_cast<std::size_t>(options.random_candidates) +
                     near.size() * static_cast<std::size_t>(options.local_candidates));
  for (int c = 0; c < options.random_candidates; ++c) {
    std::vector<double> x(static_cast<std::size_t>(dims));
    for (int d = 0; d < dims; ++d)
      x[static_cast<std::size_t>(d)] =
          category_counts[static_cast<std::size_t>(d)] > 0 ? random_category(d)
                                                           : UnitFromBits(rng.Next());
    candidates.push_back(std::move(x));
  }
  for (const std::vector<double>& centre : near) {
    for (int c = 0; c < options.local_candidates; ++c) {
      std::vector<double> x = centre;
      for (int d = 0; d < dims; ++d) {
        auto& v = x[static_cast<std::size_t>(d)];
        if (category_counts[static_cast<std::size_t>(d)] > 0) {
          if (UnitFromBits(rng.Next()) < 0.2) v = random_category(d);
        } else {
          v = std::clamp(v + 0.05 * GaussianDraw(rng), 0.0, 1.0);
        }
      }
      candidates.push_back(std::move(x));
    }
  }
  std::vector<double> scores(candidates.size());
  for (std::size_t c = 0; c < candidates.size(); ++c) scores[c] = score(candidates[c]);
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  // The best candidate not taken; the best of all only when every candidate is taken.
  std::size_t first = order.front();
  for (std::size_t c : order)
    if (!is_taken(candidates[c])) {
      first = c;
      break;
    }
  std::vector<double> winner = candidates[first];
  double winner_value = scores[first];
  bool winner_taken = is_taken(winner);

  LbfgsProblem problem;
  problem.acquisition = &acquisition;
  problem.taken = &taken;
  problem.gradient.resize(static_cast<std::size_t>(dims));
  for (int d = 0; d < dims; ++d)
    if (category_counts[static_cast<std::size_t>(d)] == 0) problem.continuous.push_back(d);
  if (!problem.continuous.empty() && options.lbfgs_starts > 0) {
    const auto n = static_cast<unsigned>(problem.continuous.size());
    nlopt_opt opt = nlopt_create(NLOPT_LD_LBFGS, n);
    assert(opt != nullptr);
    nlopt_set_lower_bounds1(opt, 0.0);
    nlopt_set_upper_bounds1(opt, 1.0);
    nlopt_set_min_objective(opt, NegativeAcquisition, &problem);
    nlopt_set_maxeval(opt, options.lbfgs_evaluations);
    nlopt_set_ftol_rel(opt, 1e-9);
    int started = 0;
    std::vector<std::vector<double>> starts;
    for (std::size_t c : order) {
      if (started == options.lbfgs_starts) break;
      if (std::find(starts.begin(), starts.end(), candidates[c]) != starts.end()) continue;
      starts.push_back(candidates[c]);
      ++started;
      problem.point = candidates[c];
      std::vector<double> x;
      for (int d : problem.continuous) x.push_back(candidates[c][static_cast<std::size_t>(d)]);
      double value = 0;
      nlopt_optimize(opt, x.data(), &value);  // the best point seen is kept in `problem`
    }
    nlopt_destroy(opt);
    if (problem.best_value > winner_value || (winner_taken && !problem.best_point.empty())) {
      winner = problem.best_point;
      winner_value = problem.best_value;
      winner_taken = false;
    }
  }
  // One greedy sweep over each categorical feature's values at the winner.
  for (int d = 0; d < dims; ++d) {
    const int count = category_counts[static_cast<std::size_t>(d)];
    for (int value = 0; value < count; ++value) {
      if (winner[static_cast<std::size_t>(d)] == value) continue;
      std::vector<double> x = winner;
      x[static_cast<std::size_t>(d)] = value;
      const double s = score(x);
      if ((s > winner_value || winner_taken) && !is_taken(x)) {
        winner = std::move(x);
        winner_value = s;
        winner_taken = false;
      }
    }
  }
  return winner;
}

}  // namespace gpusweep::search
