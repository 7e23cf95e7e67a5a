// Pareto ranking, best and status lines (report/pareto_views.h).
#include "report/pareto_views.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/cv.h"
#include "gpusweep/pareto.h"
#include "report/text.h"

namespace gpusweep {
namespace {

bool ParetoFeasibleFront(const ParetoTrial& t) { return t.rank == 0 && t.violation == 0; }

std::string ParetoNumber(double value) {
  return std::isnan(value) ? std::string("-") : fmt::format("{:g}", value);
}

Json ParetoJsonNumber(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

Json ParetoHypervolumeJson(const std::optional<FrontHypervolume>& hv) {
  if (!hv) return nullptr;
  return Json{{"value", hv->value}, {"reference", hv->reference}, {"derived", hv->derived}};
}

// A constraint's feasible region in words: "<= 10", ">= 0.5" or "in [0.5, 4]".
std::string BoundsText(const ConstraintSpec& c) {
  if (c.min && c.max) return fmt::format("in [{:g}, {:g}]", *c.min, *c.max);
  return c.min ? fmt::format(">= {:g}", *c.min) : fmt::format("<= {:g}", c.max.value_or(0));
}

// "trial" or "trials" (likewise "configuration").
std::string Plural(std::string_view unit, std::size_t count) {
  return count == 1 ? std::string(unit) : std::string(unit) + "s";
}

std::string ParetoReferenceText(const FrontHypervolume& hv, const Objective& objective) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < hv.reference.size(); ++i)
    parts.push_back(fmt::format("{}={:g}", objective.metrics()[i].name, hv.reference[i]));
  std::string how;
  if (hv.derived && hv.flat.empty()) {
    how = "; derived: 10% of the range past the worst feasible value";
  } else if (hv.derived) {
    // A range of 0 (one feasible trial, say): 1 past the value, a volume in no unit.
    how = fmt::format("; derived: 1 past the feasible value of {} (all equal){}: a volume in "
                      "arbitrary units; set hypervolume_reference to compare runs",
                      fmt::join(hv.flat, ", "),
                      hv.flat.size() < hv.reference.size()
                          ? ", 10% of the range past the worst feasible value for the rest"
                          : "");
  }
  return fmt::format("{}{}", fmt::join(parts, ", "), how);
}

}  // namespace

namespace {

// `entries` (values and violation filled in) given their rank and crowding and put in
// Pareto order.
std::vector<ParetoTrial> IntoParetoOrder(std::vector<ParetoTrial> ranked, const Objective& objective) {
  std::vector<LossPoint> losses;
  std::vector<double> violations;
  losses.reserve(ranked.size());
  violations.reserve(ranked.size());
  for (const ParetoTrial& entry : ranked) {
    losses.push_back(objective.Losses(entry.values));
    violations.push_back(entry.violation);
  }
  const std::vector<int> ranks = ConstrainedRanks(losses, violations);
  const std::vector<double> crowding = CrowdingDistances(losses, ranks);
  std::vector<LossPoint>().swap(losses);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    ranked[i].rank = ranks[i];
    ranked[i].crowding = crowding[i];
  }
  // Into Pareto order in place (ranked[k] becomes the entry at order[k]), one cycle of
  // the permutation at a time: no second vector of 100,000 entries.
  const std::vector<int> order = ParetoOrder(ranks, crowding);
  std::vector<bool> placed(order.size(), false);
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (placed[start]) continue;
    ParetoTrial first = std::move(ranked[start]);
    for (std::size_t k = start;;) {
      placed[k] = true;
      const auto from = static_cast<std::size_t>(order[k]);
      if (from == start) {
        ranked[k] = std::move(first);
        break;
      }
      ranked[k] = std::move(ranked[from]);
      k = from;
    }
  }
  return ranked;
}

}  // namespace

std::vector<ParetoTrial> RankParetoTrials(const std::vector<TrialRecord>& trials,
                                          const Objective& objective) {
  std::vector<ParetoTrial> ranked;
  ranked.reserve(trials.size());
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::kCompleted) continue;
    ParetoTrial entry{&t, t.number, objective.Values(t.last_metrics), objective.Violation(t.last_metrics), 0, 0};
    // One metric: the recorded objective is its value (last_metrics holds it too).
    if (!objective.multi() && t.objective) entry.values[0] = *t.objective;
    ranked.push_back(std::move(entry));
  }
  return IntoParetoOrder(std::move(ranked), objective);
}

std::vector<ParetoTrial> RankParetoRows(const RankingRows& rows, const Objective& objective) {
  assert(rows.metrics == objective.MetricNames());
  std::vector<ParetoTrial> ranked;
  ranked.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::span<const double> named = rows.row(i);
    ParetoTrial entry{nullptr, rows.numbers[i],
                      std::vector<double>(named.begin(), named.begin() + static_cast<std::ptrdiff_t>(objective.size())),
                      objective.ViolationOfNamed(named), 0, 0};
    if (!objective.multi() && rows.objectives[i]) entry.values[0] = *rows.objectives[i];
    ranked.push_back(std::move(entry));
  }
  return IntoParetoOrder(std::move(ranked), objective);
}

std::optional<FrontHypervolume> ComputeFrontHypervolume(
    const std::vector<ParetoTrial>& ranked, const Objective& objective,
    const std::optional<std::vector<double>>& reference) {
  // The derived reference is past the worst of every feasible trial; the volume is the
  // front's alone, which is the same (a dominated point adds none) and, of 100,000
  // trials, a few thousand points to sort instead of all.
  std::vector<LossPoint> feasible, front;
  for (const ParetoTrial& t : ranked)
    if (t.violation == 0) {
      feasible.push_back(objective.Losses(t.values));
      if (t.rank == 0) front.push_back(feasible.back());
    }
  if (feasible.empty()) return std::nullopt;
  FrontHypervolume hv;
  std::vector<double> reference_loss;
  if (reference) {
    hv.reference = *reference;
    reference_loss = objective.Losses(*reference);
  } else {
    hv.derived = true;
    reference_loss = HypervolumeReference(feasible);
    for (std::size_t i = 0; i < reference_loss.size(); ++i) {
      hv.reference.push_back(FromLoss(objective.metrics()[i].mode, reference_loss[i]));
      const auto spread = [i](const LossPoint& a, const LossPoint& b) { return a[i] != b[i]; };
      if (std::adjacent_find(feasible.begin(), feasible.end(), spread) == feasible.end())
        hv.flat.push_back(objective.metrics()[i].name);
    }
  }
  hv.value = Hypervolume(front, reference_loss);
  return hv;
}

namespace {

// A member's directories: its trial's, or under cv (members are configurations) its folds'.
std::string MemberDirs(const TrialRecord& member, const ReportContext& ctx) {
  const std::filesystem::path trials = ctx.experiment_dir / "trials";
  if (!ctx.cv.enabled()) return fmt::format("  dir: {}\n", (trials / TrialDirName(member.number)).string());
  std::string out = "  fold dirs:\n";
  for (int fold = 0; fold < ctx.cv.folds; ++fold)
    out += fmt::format("    {}\n", (trials / TrialDirName(FoldTrialNumber(member.number, fold, ctx.cv.folds))).string());
  return out;
}

}  // namespace

// The members `best` lists: the feasible front, else (nothing feasible) the least
// violating front.
std::vector<const ParetoTrial*> ParetoBestMembers(const std::vector<ParetoTrial>& ranked) {
  std::vector<const ParetoTrial*> members;
  for (const ParetoTrial& t : ranked)
    if (t.rank == ranked.front().rank) members.push_back(&t);
  return members;
}

std::optional<std::string> FormatParetoBest(const std::vector<TrialRecord>& trials,
                                            const ReportContext& ctx, const Objective& objective) {
  return FormatRankedParetoBest(RankParetoTrials(trials, objective), ctx, objective);
}

std::optional<std::string> FormatRankedParetoBest(const std::vector<ParetoTrial>& ranked,
                                                  const ReportContext& ctx, const Objective& objective) {
  if (ranked.empty()) return std::nullopt;
  const std::vector<const ParetoTrial*> members = ParetoBestMembers(ranked);
  const std::string_view unit = ctx.cv.enabled() ? "configuration" : "trial";
  std::string out;
  const bool feasible = members.front()->violation == 0;
  out += feasible ? fmt::format("Pareto front: {} of {} completed {}{}\n", members.size(), ranked.size(),
                                Plural(unit, ranked.size()), ctx.cv.enabled() ? " (means over their folds)" : "")
                  : fmt::format("No feasible {}: the {} least violating of {} completed {}\n", unit,
                                members.size(), ranked.size(), Plural(unit, ranked.size()));
  for (const ParetoTrial* m : members) {
    assert(m->trial != nullptr && "the members are read whole (RankParetoRows leaves them null)");
    out += fmt::format("\n{} {}\n", unit, m->number);
    for (std::size_t i = 0; i < objective.size(); ++i)
      out += fmt::format("  {} ({}): {}\n", objective.metrics()[i].name,
                         ModeName(objective.metrics()[i].mode), ParetoNumber(m->values[i]));
    if (objective.constrained()) {
      out += fmt::format("  violation: {:g}\n", m->violation);
      const std::vector<std::string> measured = ConstraintOnlyMetrics(objective);
      for (const ConstraintSpec& c : objective.constraints()) {
        if (std::ranges::find(measured, c.metric) == measured.end()) continue;  // an objective: above
        const std::optional<double> value = ReportedNumber(m->trial->last_metrics, c.metric);
        out += fmt::format("  {}: {} (constraint {})\n", c.metric,
                           value ? fmt::format("{:g}", *value) : std::string("not reported"),
                           BoundsText(c));
      }
    }
    out += report::ParamLines(m->trial->params);
    out += MemberDirs(*m->trial, ctx);
  }
  return out;
}

Json ParetoBestJson(const std::vector<TrialRecord>& trials, const Objective& objective,
                    const std::optional<std::vector<double>>& reference, const CvConfig& cv,
                    const std::filesystem::path& experiment_dir) {
  return RankedParetoBestJson(RankParetoTrials(trials, objective), objective, reference, cv, experiment_dir);
}

Json RankedParetoBestJson(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                          const std::optional<std::vector<double>>& reference, const CvConfig& cv,
                          const std::filesystem::path& experiment_dir) {
  Json out = Json::object();
  out["objectives"] = Json::array();
  for (const MetricSpec& m : objective.metrics())
    out["objectives"].push_back(Json{{"name", m.name}, {"mode", ModeName(m.mode)}});
  out["constraints"] = Json::array();
  for (const ConstraintSpec& c : objective.constraints())
    out["constraints"].push_back(Json{{"metric", c.metric},
                                      {"min", c.min ? Json(*c.min) : Json(nullptr)},
                                      {"max", c.max ? Json(*c.max) : Json(nullptr)}});
  out["front"] = Json::array();
  if (!ranked.empty())
    for (const ParetoTrial* m : ParetoBestMembers(ranked)) {
      assert(m->trial != nullptr && "the members are read whole (RankParetoRows leaves them null)");
      Json values = Json::object();
      for (std::size_t i = 0; i < objective.size(); ++i)
        values[objective.metrics()[i].name] = ParetoJsonNumber(m->values[i]);
      Json member = Json::object();
      if (cv.enabled()) {  // a configuration, valued by its folds' means
        member["configuration"] = m->number;
        member["trials"] = Json::array();
        for (int fold = 0; fold < cv.folds; ++fold)
          member["trials"].push_back(FoldTrialNumber(m->number, fold, cv.folds));
      } else {
        member["trial"] = m->number;
      }
      member.update(Json{{"values", std::move(values)},
                         {"feasible", m->violation == 0},
                         {"violation", ParetoJsonNumber(m->violation)},
                         {"params", m->trial->params}});
      if (objective.constrained()) {  // each constrained metric's value, as `best` lists it
        Json measured = Json::object();
        for (const std::string& name : ConstraintOnlyMetrics(objective)) {
          const std::optional<double> value = ReportedNumber(m->trial->last_metrics, name);
          measured[name] = value ? Json(*value) : Json(nullptr);
        }
        member["constraint_values"] = std::move(measured);
      }
      if (!experiment_dir.empty() && !cv.enabled())
        member["dir"] = (experiment_dir / "trials" / TrialDirName(m->number)).string();
      out["front"].push_back(std::move(member));
    }
  out["hypervolume"] = ParetoHypervolumeJson(ComputeFrontHypervolume(ranked, objective, reference));
  return out;
}

std::string FormatParetoStatus(const std::vector<TrialRecord>& trials, const Objective& objective,
                               const std::optional<std::vector<double>>& reference, std::string_view unit) {
  return FormatRankedParetoStatus(RankParetoTrials(trials, objective), objective, reference, unit);
}

std::string FormatRankedParetoStatus(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                                     const std::optional<std::vector<double>>& reference,
                                     std::string_view unit) {
  std::vector<int> front;
  int infeasible = 0, unreported = 0;
  for (const ParetoTrial& t : ranked) {
    if (ParetoFeasibleFront(t)) front.push_back(t.number);
    infeasible += t.violation != 0;
    unreported += std::isinf(t.violation);
  }
  std::string out;
  // A front of thousands would bury the rest: its first members, and where the rest are.
  constexpr std::size_t kFrontListed = 20;
  const std::size_t listed = std::min(front.size(), kFrontListed);
  if (objective.multi())
    out += fmt::format("Pareto front: {} of {} completed {}{}{}{}\n", front.size(), ranked.size(),
                       Plural(unit, ranked.size()),
                       front.empty() ? "" : ": ",
                       fmt::join(front.begin(), front.begin() + static_cast<std::ptrdiff_t>(listed), ", "),
                       listed < front.size()
                           ? fmt::format(", ... (the first {} in Pareto order; `gpusweep best` lists all {})",
                                         listed, front.size())
                           : "");
  if (objective.constrained()) {
    out += fmt::format("Infeasible: {} of {} completed {} break a constraint\n", infeasible,
                       ranked.size(), Plural(unit, ranked.size()));
    if (unreported > 0) {
      std::vector<std::string> names;
      for (const ConstraintSpec& c : objective.constraints()) names.push_back("'" + c.metric + "'");
      out += fmt::format("  {} of them reported no number for {} (constraints:): a missing value breaks "
                         "its constraint; check that each name is a metric the trials write\n",
                         unreported == static_cast<int>(ranked.size()) ? std::string("all")
                             : std::to_string(unreported),
                         names.size() == 1 ? names[0] : fmt::format("one of {}", fmt::join(names, ", ")));
    }
  }
  if (!objective.multi()) return out;  // one metric: the best feasible value says it all
  if (const std::optional<FrontHypervolume> hv = ComputeFrontHypervolume(ranked, objective, reference))
    out += fmt::format("Hypervolume: {:g} (reference {})\n", hv->value, ParetoReferenceText(*hv, objective));
  return out;
}

std::string ParetoBestHeader(const std::vector<TrialRecord>& trials, const Objective& objective,
                             std::string_view unit) {
  return RankedParetoBestHeader(RankParetoTrials(trials, objective), objective, unit);
}

std::string RankedParetoBestHeader(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                                   std::string_view unit) {
  if (ranked.empty()) return fmt::format("no completed {} yet", unit);
  if (ranked.front().violation != 0)
    return ranked.size() == 1
               ? fmt::format("no feasible {} yet: the 1 completed {} breaks a constraint", unit, unit)
               : fmt::format("no feasible {} yet: all {} completed {}s break a constraint", unit,
                             ranked.size(), unit);
  if (!objective.multi())
    return fmt::format("{}={} ({} #{}, the best of the feasible {}s)", objective.primary().name,
                       ParetoNumber(ranked.front().values[0]), unit, ranked.front().number, unit);
  const auto front = std::count_if(ranked.begin(), ranked.end(), ParetoFeasibleFront);
  std::vector<std::string> directions;
  for (const MetricSpec& m : objective.metrics())
    directions.push_back(fmt::format("{} {}", m.name, ModeName(m.mode)));
  return fmt::format("Pareto front of {} {} ({}); `gpusweep best` lists {}", front,
                     Plural(unit, static_cast<std::size_t>(front)), fmt::join(directions, ", "),
                     front == 1 ? "it" : "them");
}

std::vector<std::string> ConstraintOnlyMetrics(const Objective& objective) {
  const std::vector<std::string> all = objective.MetricNames();  // objectives first
  return std::vector<std::string>(all.begin() + static_cast<std::ptrdiff_t>(objective.size()), all.end());
}

std::optional<double> ReportedNumber(const Json& metrics, const std::string& name) {
  if (!metrics.is_object()) return std::nullopt;
  const auto it = metrics.find(name);
  if (it == metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string ParetoRankText(const ParetoTrial& trial) {
  if (trial.violation != 0) return fmt::format("infeasible +{:g}", trial.violation);
  return trial.rank == 0 ? std::string("front") : std::to_string(trial.rank + 1);
}

}  // namespace gpusweep
