#include "search/tpe_history.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

namespace gpusweep::search {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Ranked {
  int number = 0;
  double tier = 0;  // smaller is better: completed -inf, pruned -budget, running +inf
  double loss = 0;  // smaller is better
  std::vector<double> model;
};

// (tier, loss) of a trial, or nullopt when the trial is not used.
std::optional<std::pair<double, double>> Score(const TrialRecord& t, Mode mode,
                                               RunningTrials running) {
  const auto loss_of = [&](double value) {
    if (std::isnan(value)) return kInf;
    return mode == Mode::kMin ? value : -value;
  };
  switch (t.state) {
    case TrialState::kCompleted:
      if (!t.objective) return std::nullopt;
      return std::pair{-kInf, loss_of(*t.objective)};
    case TrialState::kPruned:
    case TrialState::kPaused: {
      if (!t.objective) return std::pair{1.0, 0.0};  // Optuna: after every pruned value
      const double reached = t.budget ? *t.budget : static_cast<double>(t.rung);
      return std::pair{-reached, loss_of(*t.objective)};
    }
    case TrialState::kRunning:
      if (running == RunningTrials::kIgnore) return std::nullopt;
      return std::pair{kInf, kInf};
    case TrialState::kFailed:
    case TrialState::kInterrupted:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::vector<double>> ModelValues(const TrialRecord& t, const TpeSpace& space) {
  const std::vector<ModelDim>& dims = space.dims();
  std::vector<double> model(dims.size());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    const std::string& name = space.param_name(static_cast<int>(d));
    if (!t.params.is_object() || !t.params.contains(name)) return std::nullopt;
    const std::optional<double> value = space.ToModel(static_cast<int>(d), t.params[name]);
    if (!value) return std::nullopt;
    model[d] = *value;
  }
  return model;
}

void Append(const Ranked& r, Columns& columns) {
  for (std::size_t d = 0; d < columns.size(); ++d) columns[d].push_back(r.model[d]);
}

}  // namespace

int TpeGamma(int scored) { return std::min((scored + 9) / 10, 25); }

TpeGroups SplitHistory(const std::vector<TrialRecord>& history, int before,
                       const TpeSpace& space, Mode mode, RunningTrials running) {
  std::vector<Ranked> trials;
  for (const TrialRecord& t : history) {
    if (t.number < 0 || t.number >= before) continue;
    const auto score = Score(t, mode, running);
    if (!score) continue;
    auto model = ModelValues(t, space);
    if (!model) continue;
    trials.push_back({t.number, score->first, score->second, std::move(*model)});
  }
  // Trial-number order: the input order does not matter.
  std::stable_sort(trials.begin(), trials.end(),
                   [](const Ranked& a, const Ranked& b) { return a.number < b.number; });

  TpeGroups groups;
  groups.below.resize(space.dims().size());
  groups.above.resize(space.dims().size());
  for (const Ranked& r : trials) groups.scored += r.tier < kInf ? 1 : 0;

  std::vector<std::size_t> rank(trials.size());
  std::iota(rank.begin(), rank.end(), std::size_t{0});
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) {
    if (trials[a].tier != trials[b].tier) return trials[a].tier < trials[b].tier;
    return trials[a].loss < trials[b].loss;
  });
  std::vector<bool> is_below(trials.size(), false);
  const int n_below = TpeGamma(groups.scored);
  for (int r = 0; r < n_below && r < static_cast<int>(rank.size()); ++r) is_below[rank[r]] = true;
  for (std::size_t i = 0; i < trials.size(); ++i)
    Append(trials[i], is_below[i] ? groups.below : groups.above);
  return groups;
}

}  // namespace gpusweep::search
