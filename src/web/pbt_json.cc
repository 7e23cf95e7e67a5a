// The summary's PBT section (see pbt_json.h).
#include "web/pbt_json.h"

#include <cmath>
#include <map>

#include "gpusweep/report.h"

namespace gpusweep::web {
namespace {

Json FiniteOrNull(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? Json(*value) : Json();
}

Json FlatParams(const Params& params) {
  Json flat = Json::object();
  for (auto& [name, value] : FlattenParams(params)) flat[name] = value;
  return flat;
}

}  // namespace

Json PbtJson(const std::vector<TrialRecord>& trials, const PbtLineage& lineage,
             const std::string& resource) {
  const int population = lineage.population;
  Json out{{"population", population}, {"resource", resource}, {"members", Json::array()},
           {"segments", Json::array()}, {"exploits", Json::array()}};
  if (population <= 0) return out;
  std::map<int, const TrialRecord*> by_number;
  for (const TrialRecord& trial : trials) by_number[trial.number] = &trial;
  std::vector<Json> members(population);
  for (int m = 0; m < population; ++m) members[m] = Json{{"member", m}, {"trials", Json::array()}};
  for (const auto& [number, trial] : by_number) {
    const int member = number % population;
    const int segment = number / population;
    members[member]["trials"].push_back(number);
    const auto parent = lineage.parents.find(number);
    const bool has_parent = parent != lineage.parents.end();
    // Where the parent's checkpoint ended is where this segment started training.
    double from = 0;
    if (has_parent)
      if (auto donor = by_number.find(parent->second); donor != by_number.end())
        from = donor->second->budget.value_or(0);
    const bool exploit = has_parent && parent->second % population != member;
    out["segments"].push_back(Json{{"trial", number},
                                   {"member", member},
                                   {"segment", segment},
                                   {"state", ToString(trial->state)},
                                   {"from", from},
                                   {"to", FiniteOrNull(trial->budget)},
                                   {"params", FlatParams(trial->params)},
                                   {"score", FiniteOrNull(trial->objective)},
                                   {"parent", has_parent ? Json(parent->second) : Json()},
                                   {"exploit", exploit}});
    if (exploit)
      out["exploits"].push_back(Json{{"trial", number},
                                     {"member", member},
                                     {"segment", segment},
                                     {"donor", parent->second},
                                     {"donor_member", parent->second % population},
                                     {"at", from},
                                     {"time", trial->start_time}});
  }
  for (Json& member : members) out["members"].push_back(std::move(member));
  return out;
}

}  // namespace gpusweep::web
