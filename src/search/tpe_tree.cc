// The tree-structured TPE (contract in tpe_tree.h).
#include "search/tpe_tree.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>

namespace gpusweep::search {
namespace {

// Leaves drawn together: in multivariate mode those whose conditions are the same
// (ParamCondition lists compared by parameter and values), else each dim alone. Each
// group lists its dims in declaration order; groups are in the order of their first dim.
std::vector<std::vector<int>> DrawGroups(const TpeSpace& space, bool multivariate) {
  const SearchSpace& s = space.space();
  std::vector<std::vector<int>> groups;
  std::vector<std::size_t> first_param;  // of each group
  const auto same_conditions = [&](std::size_t a, std::size_t b) {
    const auto& x = s.params[a].when;
    const auto& y = s.params[b].when;
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i].param != y[i].param || x[i].values != y[i].values) return false;
    return true;
  };
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const int dim = space.dim_of_param(i);
    if (dim < 0) continue;
    bool joined = false;
    for (std::size_t g = 0; multivariate && !joined && g < groups.size(); ++g)
      if (same_conditions(first_param[g], i)) {
        groups[g].push_back(dim);
        joined = true;
      }
    if (!joined) {
      groups.push_back({dim});
      first_param.push_back(i);
    }
  }
  return groups;
}

bool PresentAt(const Columns& columns, const std::vector<int>& dims, std::size_t row) {
  for (const int d : dims)
    if (std::isnan(columns[static_cast<std::size_t>(d)][row])) return false;
  return true;
}

// Appends row `row` of `columns` restricted to `dims` to `out` (one column per dim).
void AppendRow(const Columns& columns, const std::vector<int>& dims, std::size_t row, Columns& out) {
  for (std::size_t k = 0; k < dims.size(); ++k)
    out[k].push_back(columns[static_cast<std::size_t>(dims[k])][row]);
}

}  // namespace

LeafObservations ObservationsOf(const TpeGroups& groups, const std::vector<int>& dims) {
  if (groups.rank.empty())
    return {ActiveRows(groups.below, dims), ActiveRows(groups.above, dims),
            ActiveWeights(groups.below, dims, groups.below_weights)};
  const int n_global_below = groups.below.empty() ? 0 : static_cast<int>(groups.below.front().size());
  // Trial i (trial order) is the next row of `below` when it ranks among the first
  // n_global_below, else the next of `above`: both are in trial order.
  struct Present {
    int rank;
    const Columns* columns;
    std::size_t row;
  };
  std::vector<Present> present;
  std::size_t next_below = 0, next_above = 0;
  for (std::size_t i = 0; i < groups.rank.size(); ++i) {
    const bool in_below = groups.rank[i] < n_global_below;
    const Columns& columns = in_below ? groups.below : groups.above;
    const std::size_t row = in_below ? next_below++ : next_above++;
    if (PresentAt(columns, dims, row)) present.push_back({groups.rank[i], &columns, row});
  }
  assert(groups.above.empty() || next_above == groups.above.front().size());
  assert(static_cast<int>(next_below) == n_global_below);
  std::vector<int> ranks;
  for (const Present& p : present) ranks.push_back(p.rank);
  std::sort(ranks.begin(), ranks.end());
  // Running trials rank from `scored` on, after every scored one, so never below.
  const int scored = static_cast<int>(
      std::lower_bound(ranks.begin(), ranks.end(), groups.scored) - ranks.begin());
  const int n_below = TpeGamma(scored);
  const int last_good_rank = n_below > 0 ? ranks[static_cast<std::size_t>(n_below - 1)] : -1;
  LeafObservations out{Columns(dims.size()), Columns(dims.size()), {}};
  for (const Present& p : present)
    AppendRow(*p.columns, dims, p.row, p.rank <= last_good_rank ? out.below : out.above);
  return out;
}

Columns ActiveRows(const Columns& columns, const std::vector<int>& dims) {
  Columns out(dims.size());
  const std::size_t rows = columns.empty() ? 0 : columns[static_cast<std::size_t>(dims.front())].size();
  for (std::size_t r = 0; r < rows; ++r)
    if (PresentAt(columns, dims, r)) AppendRow(columns, dims, r, out);
  return out;
}

std::vector<double> ActiveWeights(const Columns& columns, const std::vector<int>& dims,
                                  const std::vector<double>& weights) {
  std::vector<double> out;
  for (std::size_t r = 0; r < weights.size(); ++r)
    if (PresentAt(columns, dims, r)) out.push_back(weights[r]);
  return out;
}

Params TreeSuggest(const TpeSpace& space, const TpeGroups& groups, const TreeTpeOptions& options,
                   SplitMix64& rng) {
  const std::vector<std::vector<int>> draw_groups = DrawGroups(space, options.multivariate);
  std::vector<int> group_of_dim(space.dims().size(), -1);
  for (std::size_t g = 0; g < draw_groups.size(); ++g)
    for (const int d : draw_groups[g]) group_of_dim[static_cast<std::size_t>(d)] = static_cast<int>(g);
  ParzenOptions parzen = options.parzen;
  if (options.multivariate) parzen.bandwidth = Bandwidth::kScott;
  std::vector<double> model(space.dims().size(), 0);
  std::vector<bool> drawn(draw_groups.size(), false);
  Params out = Json::object();
  const SearchSpace& s = space.space();
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    if (!IsActive(s.params[i], out)) continue;
    const int dim = space.dim_of_param(i);
    if (dim >= 0) {
      const int g = group_of_dim[static_cast<std::size_t>(dim)];
      if (!drawn[static_cast<std::size_t>(g)]) {  // its leaves share conditions: all active now
        const std::vector<int>& members = draw_groups[static_cast<std::size_t>(g)];
        std::vector<ModelDim> dims;
        for (const int d : members) dims.push_back(space.dims()[static_cast<std::size_t>(d)]);
        const LeafObservations observed = ObservationsOf(groups, members);
        const ParzenEstimator below(dims, observed.below, parzen, observed.below_weights);
        const ParzenEstimator above(dims, observed.above, parzen);
        const std::vector<double> point = BestCandidate(below, above, options.candidates, rng);
        for (std::size_t k = 0; k < members.size(); ++k)
          model[static_cast<std::size_t>(members[k])] = point[k];
        drawn[static_cast<std::size_t>(g)] = true;
      }
    }
    out[s.params[i].name] = space.ParamValue(i, dim >= 0 ? model[static_cast<std::size_t>(dim)] : 0);
  }
  return out;
}

}  // namespace gpusweep::search
