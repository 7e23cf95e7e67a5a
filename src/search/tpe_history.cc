#include "search/tpe_history.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "gpusweep/objective.h"

namespace gpusweep::search {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A usable trial; its model values are row `row` of the flat table in SplitHistory.
struct Ranked {
  int number = 0;
  double tier = 0;  // smaller is better: completed -inf, pruned -budget, running +inf
  double loss = 0;  // smaller is better
  std::size_t row = 0;
};

// Rank order: (tier, loss), ties by trial number. A strict total order, so the best k
// are the same whichever algorithm selects them.
bool Better(const Ranked& a, const Ranked& b) {
  if (a.tier != b.tier) return a.tier < b.tier;
  if (a.loss != b.loss) return a.loss < b.loss;
  return a.number < b.number;
}

// (tier, loss) of a usable trial (TpeTier); a pruned trial without a value has loss 0
// in its own last tier.
std::optional<std::pair<double, double>> Score(const TrialRecord& t, Mode mode,
                                               RunningTrials running) {
  const std::optional<double> tier = TpeTier(t, running);
  if (!tier) return std::nullopt;
  if (t.state == TrialState::kRunning) return std::pair{*tier, kInf};
  return std::pair{*tier, t.objective ? AsLoss(mode, *t.objective) : 0.0};
}

bool AnyConditional(const TpeSpace& space) {
  for (std::size_t d = 0; d < space.dims().size(); ++d)
    if (space.conditional(static_cast<int>(d))) return true;
  return false;
}

}  // namespace

bool AppendModelValues(const TrialRecord& t, const TpeSpace& space, std::vector<double>& table) {
  const std::size_t dims = space.dims().size();
  const std::size_t start = table.size();
  for (std::size_t d = 0; d < dims; ++d) {
    if (space.conditional(static_cast<int>(d)) && !space.ActiveIn(static_cast<int>(d), t.params)) {
      table.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    const Json* value = space.FindValue(t.params, static_cast<int>(d));
    const std::optional<double> model = value ? space.ToModel(static_cast<int>(d), *value)
                                              : std::nullopt;
    if (!model) {
      table.resize(start);
      return false;
    }
    table.push_back(*model);
  }
  return true;
}

std::optional<double> TpeTier(const TrialRecord& t, RunningTrials running) {
  switch (t.state) {
    case TrialState::kCompleted:
      if (!t.objective) return std::nullopt;
      return -kInf;
    case TrialState::kPruned:
    case TrialState::kPaused: {
      if (!t.objective) return 1.0;  // Optuna: after every pruned value
      const double reached =
          t.budget && !std::isnan(*t.budget) ? *t.budget : static_cast<double>(t.rung);
      return -reached;
    }
    case TrialState::kRunning:
      if (running == RunningTrials::kIgnore) return std::nullopt;
      return kInf;
    case TrialState::kFailed:
    case TrialState::kInterrupted:
      return std::nullopt;
  }
  return std::nullopt;
}

int TpeGamma(int scored) { return std::min((scored + 9) / 10, 25); }

TpeGroups SplitHistory(const std::vector<TrialRecord>& history, int before,
                       const TpeSpace& space, Mode mode, RunningTrials running) {
  const std::size_t dims = space.dims().size();
  std::vector<Ranked> trials;
  trials.reserve(history.size());
  std::vector<double> table;  // row r: the model values of trials[r], dims in order
  table.reserve(history.size() * dims);
  for (const TrialRecord& t : history) {
    if (t.number >= before) continue;  // negative: warm-start history, before every trial
    const auto score = Score(t, mode, running);
    if (!score || !AppendModelValues(t, space, table)) continue;
    trials.push_back({t.number, score->first, score->second, trials.size()});
  }
  // Trial-number order, so the input order does not matter (histories usually come
  // sorted already).
  const auto by_number = [](const Ranked& a, const Ranked& b) { return a.number < b.number; };
  if (!std::is_sorted(trials.begin(), trials.end(), by_number))
    std::stable_sort(trials.begin(), trials.end(), by_number);

  TpeGroups groups;
  for (const Ranked& r : trials) groups.scored += r.tier < kInf ? 1 : 0;
  // The best gamma(scored) form `below`. A flat space needs only which trials they are,
  // so a selection suffices; a conditional one keeps the whole ranking (groups.rank).
  const std::size_t n_below = std::min<std::size_t>(TpeGamma(groups.scored), trials.size());
  const bool conditional = AnyConditional(space);
  std::vector<Ranked> ranked(trials);
  if (conditional)
    std::sort(ranked.begin(), ranked.end(), Better);
  else
    std::nth_element(ranked.begin(), ranked.begin() + n_below, ranked.end(), Better);
  std::vector<bool> is_below(trials.size(), false);  // by row
  for (std::size_t r = 0; r < n_below; ++r) is_below[ranked[r].row] = true;

  std::vector<std::size_t> rows;
  rows.reserve(trials.size());
  for (const Ranked& r : trials) rows.push_back(r.row);
  GroupColumns(rows, is_below, table, dims, groups);
  if (conditional) {
    std::vector<int> rank_of_row(trials.size());
    for (std::size_t i = 0; i < ranked.size(); ++i) rank_of_row[ranked[i].row] = static_cast<int>(i);
    for (const std::size_t row : rows) groups.rank.push_back(rank_of_row[row]);
  }
  return groups;
}

void GroupColumns(const std::vector<std::size_t>& rows, const std::vector<bool>& is_below,
                  const std::vector<double>& table, std::size_t dims, TpeGroups& groups) {
  const std::size_t n_below =
      static_cast<std::size_t>(std::count(is_below.begin(), is_below.end(), true));
  groups.below.assign(dims, std::vector<double>());
  groups.above.assign(dims, std::vector<double>());
  for (std::size_t d = 0; d < dims; ++d) {
    groups.below[d].reserve(n_below);
    groups.above[d].reserve(rows.size() - n_below);
  }
  for (const std::size_t row : rows) {
    Columns& group = is_below[row] ? groups.below : groups.above;
    const double* values = table.data() + row * dims;
    for (std::size_t d = 0; d < dims; ++d) group[d].push_back(values[d]);
  }
}

}  // namespace gpusweep::search
