// Pareto ranking, best and status lines (report/pareto_views.h).
#include "report/pareto_views.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/pareto.h"

namespace gpusweep {
namespace {

bool ParetoFeasibleFront(const ParetoTrial& t) { return t.rank == 0 && t.violation == 0; }

std::string ParetoNumber(double value) {
  return std::isnan(value) ? std::string("-") : fmt::format("{:g}", value);
}

Json ParetoJsonNumber(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

// The members `best` lists: the feasible front, else (nothing feasible) the least
// violating front.
std::vector<const ParetoTrial*> ParetoBestMembers(const std::vector<ParetoTrial>& ranked) {
  std::vector<const ParetoTrial*> members;
  for (const ParetoTrial& t : ranked)
    if (t.rank == ranked.front().rank) members.push_back(&t);
  return members;
}

Json ParetoHypervolumeJson(const std::optional<FrontHypervolume>& hv) {
  if (!hv) return nullptr;
  return Json{{"value", hv->value}, {"reference", hv->reference}, {"derived", hv->derived}};
}

std::string ParetoReferenceText(const FrontHypervolume& hv, const Objective& objective) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < hv.reference.size(); ++i)
    parts.push_back(fmt::format("{}={:g}", objective.metrics()[i].name, hv.reference[i]));
  return fmt::format("{}{}", fmt::join(parts, ", "),
                     hv.derived ? "; derived: 10% of the range past the worst feasible value" : "");
}

}  // namespace

std::vector<ParetoTrial> RankParetoTrials(const std::vector<TrialRecord>& trials,
                                          const Objective& objective) {
  std::vector<ParetoTrial> completed;
  std::vector<LossPoint> losses;
  std::vector<double> violations;
  for (const TrialRecord& t : trials) {
    if (t.state != TrialState::kCompleted) continue;
    ParetoTrial entry{&t, objective.Values(t.last_metrics), objective.Violation(t.last_metrics), 0, 0};
    // One metric: the recorded objective is its value (last_metrics holds it too).
    if (!objective.multi() && t.objective) entry.values[0] = *t.objective;
    losses.push_back(objective.Losses(entry.values));
    violations.push_back(entry.violation);
    completed.push_back(std::move(entry));
  }
  const std::vector<int> ranks = ConstrainedRanks(losses, violations);
  const std::vector<double> crowding = CrowdingDistances(losses, ranks);
  std::vector<ParetoTrial> ranked;
  for (int i : ParetoOrder(ranks, crowding)) {
    completed[i].rank = ranks[i];
    completed[i].crowding = crowding[i];
    ranked.push_back(completed[i]);
  }
  return ranked;
}

std::optional<FrontHypervolume> ComputeFrontHypervolume(
    const std::vector<ParetoTrial>& ranked, const Objective& objective,
    const std::optional<std::vector<double>>& reference) {
  std::vector<LossPoint> feasible;
  for (const ParetoTrial& t : ranked)
    if (t.violation == 0) feasible.push_back(objective.Losses(t.values));
  if (feasible.empty()) return std::nullopt;
  FrontHypervolume hv;
  std::vector<double> reference_loss;
  if (reference) {
    hv.reference = *reference;
    reference_loss = objective.Losses(*reference);
  } else {
    hv.derived = true;
    reference_loss = HypervolumeReference(feasible);
    for (std::size_t i = 0; i < reference_loss.size(); ++i)
      hv.reference.push_back(FromLoss(objective.metrics()[i].mode, reference_loss[i]));
  }
  hv.value = Hypervolume(feasible, reference_loss);
  return hv;
}

std::optional<std::string> FormatParetoBest(const std::vector<TrialRecord>& trials,
                                            const ReportContext& ctx, const Objective& objective) {
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
  if (ranked.empty()) return std::nullopt;
  const std::vector<const ParetoTrial*> members = ParetoBestMembers(ranked);
  std::string out;
  const bool feasible = members.front()->violation == 0;
  out += feasible ? fmt::format("Pareto front: {} of {} completed trials\n", members.size(), ranked.size())
                  : fmt::format("No feasible trial: the {} least violating of {} completed trials\n",
                                members.size(), ranked.size());
  for (const ParetoTrial* m : members) {
    out += fmt::format("\ntrial {}\n", m->trial->number);
    for (std::size_t i = 0; i < objective.size(); ++i)
      out += fmt::format("  {} ({}): {}\n", objective.metrics()[i].name,
                         ModeName(objective.metrics()[i].mode), ParetoNumber(m->values[i]));
    if (objective.constrained()) out += fmt::format("  violation: {:g}\n", m->violation);
    for (const auto& [name, value] : m->trial->params.items())
      out += fmt::format("  {} = {}\n", name, value.is_string() ? value.get<std::string>() : value.dump());
    out += fmt::format("  dir: {}\n", (ctx.experiment_dir / "trials" / TrialDirName(m->trial->number)).string());
  }
  return out;
}

Json ParetoBestJson(const std::vector<TrialRecord>& trials, const Objective& objective,
                    const std::optional<std::vector<double>>& reference) {
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
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
      Json values = Json::object();
      for (std::size_t i = 0; i < objective.size(); ++i)
        values[objective.metrics()[i].name] = ParetoJsonNumber(m->values[i]);
      out["front"].push_back(Json{{"trial", m->trial->number},
                                  {"values", std::move(values)},
                                  {"feasible", m->violation == 0},
                                  {"violation", ParetoJsonNumber(m->violation)},
                                  {"params", m->trial->params}});
    }
  out["hypervolume"] = ParetoHypervolumeJson(ComputeFrontHypervolume(ranked, objective, reference));
  return out;
}

std::string FormatParetoStatus(const std::vector<TrialRecord>& trials, const Objective& objective,
                               const std::optional<std::vector<double>>& reference) {
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
  std::vector<int> front;
  int infeasible = 0;
  for (const ParetoTrial& t : ranked) {
    if (ParetoFeasibleFront(t)) front.push_back(t.trial->number);
    infeasible += t.violation != 0;
  }
  std::string out;
  if (objective.multi())
    out += fmt::format("Pareto front: {} of {} completed trials{}{}\n", front.size(), ranked.size(),
                       front.empty() ? "" : ": ", fmt::join(front, ", "));
  if (objective.constrained())
    out += fmt::format("Infeasible: {} of {} completed trials break a constraint\n", infeasible,
                       ranked.size());
  if (!objective.multi()) return out;  // one metric: the best feasible value says it all
  if (const std::optional<FrontHypervolume> hv = ComputeFrontHypervolume(ranked, objective, reference))
    out += fmt::format("Hypervolume: {:g} (reference {})\n", hv->value, ParetoReferenceText(*hv, objective));
  return out;
}

std::string ParetoBestHeader(const std::vector<TrialRecord>& trials, const Objective& objective) {
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
  if (ranked.empty()) return "no completed trial yet";
  if (ranked.front().violation != 0)
    return fmt::format("no feasible trial yet: all {} completed trials break a constraint", ranked.size());
  if (!objective.multi())
    return fmt::format("{}={} (trial #{}, the best of the feasible trials)", objective.primary().name,
                       ParetoNumber(ranked.front().values[0]), ranked.front().trial->number);
  const auto front = std::count_if(ranked.begin(), ranked.end(), ParetoFeasibleFront);
  std::vector<std::string> directions;
  for (const MetricSpec& m : objective.metrics())
    directions.push_back(fmt::format("{} {}", m.name, ModeName(m.mode)));
  return fmt::format("Pareto front of {} trials ({}); `gpusweep best` lists them", front,
                     fmt::join(directions, ", "));
}

std::string ParetoRankText(const ParetoTrial& trial) {
  if (trial.violation != 0) return fmt::format("infeasible +{:g}", trial.violation);
  return trial.rank == 0 ? std::string("front") : std::to_string(trial.rank + 1);
}

}  // namespace gpusweep
