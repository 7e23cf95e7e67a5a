#include "importance/importance.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "gpusweep/report.h"
#include "importance/fanova_tree.h"

namespace gpusweep::importance {
namespace {

// One parameter's columns in the feature matrix.
struct Encoded {
  std::string name;
  std::vector<int> features;
  std::vector<std::string> categories;  // one-hot: the values seen (dumped), else empty
};

struct Design {
  std::vector<Encoded> params;
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  Bounds bounds;
};

std::map<std::string, Json> FlatMap(const TrialRecord& trial) {
  std::map<std::string, Json> flat;
  for (auto& [name, value] : FlattenParams(trial.params)) flat[name] = value;
  return flat;
}

// Declared numeric bounds of `name`, if the search space has them.
std::optional<std::pair<double, double>> DeclaredBounds(const SearchSpace& space,
                                                        const std::string& name) {
  for (const ParamSpec& p : space.params) {
    if (p.name != name) continue;
    if (p.kind == ParamKind::kUniform || p.kind == ParamKind::kLogUniform) return std::pair(p.low, p.high);
    if ((p.kind == ParamKind::kNormal || p.kind == ParamKind::kLogNormal) &&
        std::isfinite(p.low) && std::isfinite(p.high))
      return std::pair(p.low, p.high);
    if (p.kind == ParamKind::kInt)
      return std::pair(static_cast<double>(p.int_low), static_cast<double>(p.int_high));
  }
  return std::nullopt;
}

Design Encode(const std::vector<TrialRecord>& trials, const SearchSpace& space) {
  std::vector<std::map<std::string, Json>> flats;
  Design design;
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::kCompleted || !t.objective || !std::isfinite(*t.objective)) continue;
    flats.push_back(FlatMap(t));
    design.y.push_back(*t.objective);
  }
  if (flats.empty()) return design;
  design.rows.assign(flats.size(), {});
  for (const auto& [name, first] : flats[0]) {
    bool everywhere = true, numeric = true;
    std::set<std::string> seen;  // sorted: the one-hot columns' order (a set: 10,000 trials)
    for (const auto& flat : flats) {
      auto it = flat.find(name);
      if (it == flat.end()) { everywhere = false; break; }
      numeric = numeric && it->second.is_number();
      seen.insert(it->second.dump());
    }
    if (!everywhere || seen.size() < 2) continue;
    Encoded param{name, {}, {}};
    if (numeric) {
      double low = INFINITY, high = -INFINITY;
      for (std::size_t i = 0; i < flats.size(); ++i) {
        const double v = flats[i].at(name).get<double>();
        design.rows[i].push_back(v);
        low = std::min(low, v);
        high = std::max(high, v);
      }
      auto declared = DeclaredBounds(space, name);
      if (declared && declared->first <= low && declared->second >= high) std::tie(low, high) = *declared;
      param.features.push_back(static_cast<int>(design.bounds.size()));
      design.bounds.emplace_back(low, high);
    } else {
      param.categories.assign(seen.begin(), seen.end());
      for (const std::string& category : param.categories) {
        for (std::size_t i = 0; i < flats.size(); ++i)
          design.rows[i].push_back(flats[i].at(name).dump() == category ? 1.0 : 0.0);
        param.features.push_back(static_cast<int>(design.bounds.size()));
        design.bounds.emplace_back(0.0, 1.0);
      }
    }
    design.params.push_back(std::move(param));
  }
  return design;
}

}  // namespace

Expected<std::vector<ParamImportance>> FanovaImportances(const std::vector<TrialRecord>& trials,
                                                         const SearchSpace& space,
                                                         const ForestOptions& options) {
  Design design = Encode(trials, space);
  std::vector<ParamImportance> result;
  if (design.y.size() < 2 || design.params.empty()) return result;
  for (const Encoded& p : design.params) result.push_back({p.name, 0.0});
  const auto [low, high] = std::minmax_element(design.y.begin(), design.y.end());
  if (*low == *high) return result;
  GS_ASSIGN_OR_RETURN(std::vector<RegressionTree> trees,
                      FitRandomForest(design.rows, design.y, options));
  std::vector<std::vector<double>> fractions(design.params.size());
  for (RegressionTree& tree : trees) {
    const FanovaTree fanova(std::move(tree), design.bounds);
    if (fanova.Variance() <= 0) continue;
    for (std::size_t p = 0; p < design.params.size(); ++p)
      fractions[p].push_back(fanova.MarginalVariance(design.params[p].features) / fanova.Variance());
  }
  double total = 0;
  for (std::size_t p = 0; p < result.size(); ++p) {
    double sum = 0;
    for (double f : fractions[p]) sum += f;
    result[p].importance = fractions[p].empty() ? 0 : sum / fractions[p].size();
    total += result[p].importance;
  }
  for (ParamImportance& r : result) r.importance = total > 0 ? r.importance / total : 0;
  std::stable_sort(result.begin(), result.end(), [](const auto& a, const auto& b) {
    return a.importance > b.importance;
  });
  return result;
}

}  // namespace gpusweep::importance
