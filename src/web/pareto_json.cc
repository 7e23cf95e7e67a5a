// The summary's Pareto section (see pareto_json.h).
#include "web/pareto_json.h"

#include <algorithm>
#include <cmath>

#include "gpusweep/pareto.h"
#include "gpusweep/report.h"
#include "report/pareto_views.h"

namespace gpusweep::web {
namespace {

Json FiniteOrNull(double value) { return std::isfinite(value) ? Json(value) : Json(); }

// Whether loss vector a is at least as good as b everywhere (NaN: worse than any number,
// as pareto.h reads it). A point weakly dominated by the front adds no hypervolume.
bool NoWorse(const LossPoint& a, const LossPoint& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = std::isnan(a[i]) ? INFINITY : a[i];
    const double y = std::isnan(b[i]) ? INFINITY : b[i];
    if (x > y) return false;
  }
  return true;
}

// The hypervolume after each completion, keeping only the non-dominated feasible points
// seen so far: the volume is recomputed only when a completion changes that set, so a
// long run costs its front's size per completion, not every trial's.
Json HypervolumeHistory(const std::vector<ParetoTrial>& ranked, const Objective& objective,
                        const std::vector<double>& reference) {
  std::vector<const ParetoTrial*> order;
  for (const ParetoTrial& t : ranked) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const ParetoTrial* a, const ParetoTrial* b) {
    if (a->trial->end_time != b->trial->end_time) return a->trial->end_time < b->trial->end_time;
    return a->number < b->number;
  });
  const std::vector<double> reference_loss = objective.Losses(reference);
  std::vector<LossPoint> front;
  double value = 0;
  Json history = Json::array();
  for (const ParetoTrial* t : order) {
    if (t->violation == 0) {
      LossPoint p = objective.Losses(t->values);
      if (std::none_of(front.begin(), front.end(), [&](const LossPoint& q) { return NoWorse(q, p); })) {
        std::erase_if(front, [&](const LossPoint& q) { return NoWorse(p, q); });
        front.push_back(std::move(p));
        value = Hypervolume(front, reference_loss);
      }
    }
    history.push_back(Json{{"trial", t->number},
                           {"completed", history.size() + 1},
                           {"value", value}});
  }
  return history;
}

}  // namespace

Json ParetoJson(const std::vector<TrialRecord>& trials, const Objective& objective,
                const std::optional<std::vector<double>>& reference,
                const std::function<bool(int trial)>& keep) {
  Json out = Json::object();
  out["objectives"] = Json::array();
  for (const MetricSpec& m : objective.metrics())
    out["objectives"].push_back(Json{{"name", m.name}, {"mode", ModeName(m.mode)}});
  out["constraints"] = Json::array();
  for (const ConstraintSpec& c : objective.constraints())
    out["constraints"].push_back(Json{{"metric", c.metric},
                                      {"min", c.min ? Json(*c.min) : Json()},
                                      {"max", c.max ? Json(*c.max) : Json()}});
  const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, objective);
  out["trials"] = Json::array();
  std::size_t front = 0, infeasible = 0;
  for (const ParetoTrial& t : ranked) {
    front += t.rank == 0 && t.violation == 0;
    infeasible += t.violation != 0;
    if (keep && !keep(t.number)) continue;
    Json values = Json::array();
    for (double v : t.values) values.push_back(FiniteOrNull(v));
    out["trials"].push_back(Json{{"trial", t.number},
                                 {"values", std::move(values)},
                                 {"rank", t.rank},
                                 {"front", t.rank == 0 && t.violation == 0},
                                 {"feasible", t.violation == 0},
                                 {"violation", FiniteOrNull(t.violation)}});
  }
  out["counts"] = Json{{"completed", ranked.size()}, {"front", front}, {"infeasible", infeasible}};
  const std::optional<FrontHypervolume> hv = ComputeFrontHypervolume(ranked, objective, reference);
  out["reference"] = hv ? Json(hv->reference) : Json();
  out["reference_derived"] = hv && hv->derived;
  out["hypervolume"] = hv ? HypervolumeHistory(ranked, objective, hv->reference) : Json::array();
  if (out["hypervolume"].size() > kMaxHypervolumeHistory) {
    const Json& all = out["hypervolume"];
    Json changes = Json::array();
    for (std::size_t i = 0; i < all.size(); ++i)
      if (i == 0 || i + 1 == all.size() || all[i]["value"] != all[i - 1]["value"]) changes.push_back(all[i]);
    out["hypervolume"] = std::move(changes);
  }
  return out;
}

}  // namespace gpusweep::web
