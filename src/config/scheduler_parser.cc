// The `scheduler:` section (see scheduler_parser.h and docs/config.md).
#include "config/scheduler_parser.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <string_view>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

constexpr std::array<std::string_view, 7> kSchedulerTypes{
    "none", "median", "successive_halving", "asha", "hyperband", "pbt", "bohb"};
constexpr std::array<std::string_view, 1> kNoneKeys{"type"};
constexpr std::array<std::string_view, 5> kMedianKeys{"type", "resource", "grace_steps",
                                                      "min_trials", "max_resource"};
constexpr std::array<std::string_view, 5> kAshaKeys{"type", "resource", "min_resource",
                                                    "max_resource", "reduction_factor"};
constexpr std::array<std::string_view, 6> kHyperbandKeys{
    "type", "resource", "min_resource", "max_resource", "reduction_factor", "brackets"};
constexpr std::array<std::string_view, 8> kBohbKeys{
    "type",     "resource", "min_resource",    "max_resource",
    "reduction_factor", "brackets", "random_fraction", "min_points_in_model"};
constexpr std::array<std::string_view, 7> kHalvingKeys{
    "type",         "resource", "min_resource", "max_resource", "reduction_factor",
    "growth",       "budget_step"};
constexpr std::array<std::string_view, 11> kPbtKeys{
    "type",     "resource",    "perturbation_interval", "max_resource", "population",
    "quantile", "synchronous", "explore",               "mutations",    "min_resource",
    "replay"};
constexpr std::array<std::string_view, 2> kPbtExploreKeys{"resample_probability", "factors"};
constexpr std::array<std::string_view, 2> kGrowths{"geometric", "linear"};

SchedulerKind KindOf(std::string_view type) {
  if (type == "median") return SchedulerKind::kMedian;
  if (type == "successive_halving") return SchedulerKind::kSuccessiveHalving;
  if (type == "asha") return SchedulerKind::kAsha;
  if (type == "hyperband") return SchedulerKind::kHyperband;
  if (type == "pbt") return SchedulerKind::kPbt;
  if (type == "bohb") return SchedulerKind::kBohb;
  return SchedulerKind::kNone;
}

std::span<const std::string_view> KeysOf(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::kNone: return kNoneKeys;
    case SchedulerKind::kMedian: return kMedianKeys;
    case SchedulerKind::kSuccessiveHalving: return kHalvingKeys;
    case SchedulerKind::kAsha: return kAshaKeys;
    case SchedulerKind::kHyperband: return kHyperbandKeys;
    case SchedulerKind::kPbt: return kPbtKeys;
    case SchedulerKind::kBohb: return kBohbKeys;
  }
  return kNoneKeys;
}

Expected<double> PositiveNumber(const Value& value) {
  GS_ASSIGN_OR_RETURN(double number, value.ToNumber());
  if (number <= 0) return value.Invalid("must be greater than 0", "e.g. 1");
  return number;
}

Status ParseResource(const Mapping& map, SchedulerConfig& out) {
  if (const Value* resource = map.Find("resource")) {
    GS_ASSIGN_OR_RETURN(out.resource, resource->ToText());
    if (out.resource.empty())
      return resource->Invalid("the resource key is empty",
                               "name the step key the trial reports, e.g. resource: epoch");
  }
  return {};
}

// min_resource, max_resource and reduction_factor (sh, asha, hyperband).
Status ParseRungs(const Mapping& map, SchedulerConfig& out) {
  if (const Value* min = map.Find("min_resource")) {
    GS_ASSIGN_OR_RETURN(out.min_resource, PositiveNumber(*min));
  }
  GS_ASSIGN_OR_RETURN(Value max, map.Require("max_resource",
                                             "add the largest budget, e.g. max_resource: 27 "
                                             "(epochs)"));
  GS_ASSIGN_OR_RETURN(out.max_resource, PositiveNumber(max));
  if (out.max_resource < out.min_resource)
    return max.Invalid(fmt::format("max_resource {} is below min_resource {}", out.max_resource,
                                   out.min_resource),
                       "make max_resource >= min_resource");
  if (const Value* eta = map.Find("reduction_factor")) {
    GS_ASSIGN_OR_RETURN(out.reduction_factor, eta->ToNumber());
    if (out.reduction_factor <= 1)
      return eta->Invalid("the reduction factor (eta) must be greater than 1",
                          "e.g. reduction_factor: 3 (keep the top third at each rung)");
  }
  return {};
}

Status ParseHalving(const Mapping& map, SchedulerConfig& out) {
  if (const Value* growth = map.Find("growth")) {
    GS_ASSIGN_OR_RETURN(std::string_view text, growth->ToEnum(kGrowths));
    out.growth = text == "linear" ? BudgetGrowth::kLinear : BudgetGrowth::kGeometric;
  }
  const Value* step = map.Find("budget_step");
  if (out.growth == BudgetGrowth::kLinear) {
    if (step == nullptr)
      return map.self().Invalid("growth: linear needs budget_step",
                                "add the budget added per round, e.g. budget_step: 2");
    GS_ASSIGN_OR_RETURN(out.budget_step, PositiveNumber(*step));
  } else if (step != nullptr) {
    return step->Invalid("budget_step applies to growth: linear only",
                         "remove it, or add growth: linear");
  }
  return {};
}

Status ParseMedian(const Mapping& map, SchedulerConfig& out) {
  out.min_resource = 0;  // unused by the rule; keeps min <= max for any max_resource
  if (const Value* max = map.Find("max_resource")) {  // optional: the trials' full length
    GS_ASSIGN_OR_RETURN(out.max_resource, PositiveNumber(*max));
  }
  if (const Value* grace = map.Find("grace_steps")) {
    GS_ASSIGN_OR_RETURN(out.grace_steps, grace->ToNumber());
    if (out.grace_steps < 0) return grace->Invalid("must be >= 0", "e.g. grace_steps: 2");
  }
  if (const Value* min_trials = map.Find("min_trials")) {
    GS_ASSIGN_OR_RETURN(out.min_trials, min_trials->ToIntAtLeast(1));
  }
  return {};
}

// explore: {resample_probability, factors} (pbt).
Status ParsePbtExplore(const Value& value, PbtConfig& out) {
  GS_ASSIGN_OR_RETURN(Mapping map, value.ToMapping());
  GS_TRY(map.CheckKeys(kPbtExploreKeys));
  if (const Value* p = map.Find("resample_probability")) {
    GS_ASSIGN_OR_RETURN(out.resample_probability, p->ToNumber());
    if (!(out.resample_probability >= 0 && out.resample_probability <= 1))
      return p->Invalid("a probability must be between 0 and 1",
                        "e.g. resample_probability: 0.25 (Ray Tune's default)");
  }
  if (const Value* factors = map.Find("factors")) {
    GS_ASSIGN_OR_RETURN(std::vector<Value> items, factors->ToList());
    if (items.empty())
      return factors->Invalid("the list is empty", "e.g. factors: [0.8, 1.2]");
    out.factors.clear();
    for (const Value& item : items) {
      GS_ASSIGN_OR_RETURN(double factor, item.ToNumber());
      if (!(factor > 0) || !std::isfinite(factor))
        return item.Invalid("a factor multiplies a parameter and must be a positive number",
                            "e.g. factors: [0.8, 1.2]");
      out.factors.push_back(factor);
    }
  }
  return {};
}

// mutations: [names] (pbt); whether each is a parameter is checked with the search
// space (pbt_check.cc).
Status ParsePbtMutations(const Value& value, PbtConfig& out) {
  GS_ASSIGN_OR_RETURN(std::vector<Value> items, value.ToList());
  if (items.empty())
    return value.Invalid("the list is empty",
                         "name the parameters that may change, e.g. mutations: [lr], or remove "
                         "the key to let every varying parameter change");
  for (const Value& item : items) {
    GS_ASSIGN_OR_RETURN(std::string name, item.ToText());
    if (std::find(out.mutations.begin(), out.mutations.end(), name) != out.mutations.end())
      return item.Invalid(fmt::format("'{}' is listed twice", name), "list each parameter once");
    out.mutations.push_back(std::move(name));
  }
  return {};
}

// replay: [{params}, ...] (what `best --replay` writes): one member, one mapping of
// params per segment, nothing ranked or explored. The names are checked against the
// search space in pbt_check.cc.
Status ParsePbtReplay(const Mapping& map, const Value& replay, SchedulerConfig& out) {
  PbtConfig& pbt = out.pbt;
  for (std::string_view key : {"quantile", "synchronous", "explore", "mutations"})
    if (const Value* value = map.Find(key))
      return value->Invalid(fmt::format("a replay does not rank or explore, so {} has no effect", key),
                            fmt::format("remove {} (or replay:, to search again)", key));
  pbt.population = 1;
  if (const Value* population = map.Find("population")) {
    GS_ASSIGN_OR_RETURN(int members, population->ToIntAtLeast(1));
    if (members != 1)
      return population->Invalid("a replay trains one member", "write population: 1, or leave it out");
  }
  // 1e-9 as in PbtPolicy: 20 / 0.1 must not add a segment.
  const int segments = std::max(
      1, static_cast<int>(std::ceil(out.max_resource / pbt.perturbation_interval - 1e-9)));
  GS_ASSIGN_OR_RETURN(std::vector<Value> items, replay.ToList());
  if (static_cast<int>(items.size()) != segments)
    return replay.Invalid(
        fmt::format("replay lists {} segments, but max_resource {} in segments of "
                    "perturbation_interval {} makes {}",
                    items.size(), out.max_resource, pbt.perturbation_interval, segments),
        "give one mapping of params per segment, as gpusweep best --replay writes them");
  for (const Value& item : items) {
    if (!item.IsMapping())
      return item.Invalid("a replay segment is a mapping of params",
                          "e.g. - {lr: 0.01, momentum: 0.9}");
    GS_ASSIGN_OR_RETURN(Json params, item.ToJson());
    pbt.replay.push_back(std::move(params));
  }
  return {};
}

Status ParsePbt(const Mapping& map, SchedulerConfig& out) {
  if (const Value* min = map.Find("min_resource"))
    return min->Invalid("population-based training has no rungs",
                        "remove min_resource; perturbation_interval sets how often members "
                        "are compared");
  PbtConfig& pbt = out.pbt;
  GS_ASSIGN_OR_RETURN(Value max, map.Require("max_resource",
                                             "add how long each member trains, e.g. "
                                             "max_resource: 20 (epochs)"));
  GS_ASSIGN_OR_RETURN(out.max_resource, PositiveNumber(max));
  out.min_resource = out.max_resource;  // unused; keeps min <= max
  GS_ASSIGN_OR_RETURN(Value interval,
                      map.Require("perturbation_interval",
                                  "add the resource between exploit/explore decisions, e.g. "
                                  "perturbation_interval: 2"));
  GS_ASSIGN_OR_RETURN(pbt.perturbation_interval, PositiveNumber(interval));
  if (pbt.perturbation_interval > out.max_resource)
    return interval.Invalid(
        fmt::format("perturbation_interval {} is above max_resource {}: no member would ever "
                    "be perturbed",
                    pbt.perturbation_interval, out.max_resource),
        "make it a fraction of max_resource, e.g. a tenth");
  if (const Value* replay = map.Find("replay")) return ParsePbtReplay(map, *replay, out);
  GS_ASSIGN_OR_RETURN(Value population,
                      map.Require("population", "add the number of members, e.g. population: 8"));
  GS_ASSIGN_OR_RETURN(pbt.population, population.ToIntAtLeast(2));
  if (const Value* quantile = map.Find("quantile")) {
    GS_ASSIGN_OR_RETURN(pbt.quantile, quantile->ToNumber());
    if (!(pbt.quantile > 0 && pbt.quantile <= 0.5))
      return quantile->Invalid("the quantile must be above 0 and at most 0.5 (the bottom "
                               "fraction copies from the top fraction of the same size)",
                               "e.g. quantile: 0.25");
  }
  if (const Value* synchronous = map.Find("synchronous")) {
    GS_ASSIGN_OR_RETURN(pbt.synchronous, synchronous->ToBool());
  }
  if (const Value* explore = map.Find("explore")) GS_TRY(ParsePbtExplore(*explore, pbt));
  if (const Value* mutations = map.Find("mutations")) GS_TRY(ParsePbtMutations(*mutations, pbt));
  return {};
}

// brackets (hyperband, bohb).
Status ParseBrackets(const Mapping& map, SchedulerConfig& out) {
  if (const Value* brackets = map.Find("brackets")) {
    GS_ASSIGN_OR_RETURN(int count, brackets->ToIntAtLeast(1));
    out.brackets = count;
  }
  return {};
}

// random_fraction and min_points_in_model (bohb); the sampler it needs is checked with
// the sampler section (bohb_check.cc).
Status ParseBohb(const Mapping& map, SchedulerConfig& out) {
  GS_TRY(ParseBrackets(map, out));
  if (const Value* fraction = map.Find("random_fraction")) {
    GS_ASSIGN_OR_RETURN(out.bohb.random_fraction, fraction->ToNumber());
    if (!(out.bohb.random_fraction >= 0 && out.bohb.random_fraction <= 1))
      return fraction->Invalid("the share of configurations drawn at random must be between 0 and 1",
                               "e.g. random_fraction: 0.333 (BOHB's default)");
  }
  if (const Value* points = map.Find("min_points_in_model")) {
    GS_ASSIGN_OR_RETURN(out.bohb.min_points_in_model, points->ToIntAtLeast(1));
  }
  return {};
}

}  // namespace

Expected<SchedulerConfig> ParseScheduler(const Value* value) {
  SchedulerConfig out;
  if (value == nullptr || value->IsNull()) return out;
  if (value->IsScalar()) {  // scheduler: asha
    GS_ASSIGN_OR_RETURN(std::string_view type, value->ToEnum(kSchedulerTypes));
    out.kind = KindOf(type);
    if (out.kind == SchedulerKind::kPbt)
      return value->Invalid("the pbt scheduler needs max_resource, perturbation_interval and "
                            "population",
                            "write scheduler: {type: pbt, max_resource: 20, "
                            "perturbation_interval: 2, population: 8}");
    if (out.kind != SchedulerKind::kNone && out.kind != SchedulerKind::kMedian)
      return value->Invalid(fmt::format("the {} scheduler needs max_resource", type),
                            fmt::format("write scheduler: {{type: {}, max_resource: 27}}", type));
    return out;
  }
  GS_ASSIGN_OR_RETURN(Mapping map, value->ToMapping());
  GS_ASSIGN_OR_RETURN(Value type, map.Require("type", "add e.g. type: asha"));
  GS_ASSIGN_OR_RETURN(std::string_view type_text, type.ToEnum(kSchedulerTypes));
  out.kind = KindOf(type_text);
  GS_TRY(map.CheckKeys(KeysOf(out.kind)));
  if (out.kind == SchedulerKind::kNone) return out;
  GS_TRY(ParseResource(map, out));
  if (out.kind == SchedulerKind::kMedian) {
    GS_TRY(ParseMedian(map, out));
    return out;
  }
  if (out.kind == SchedulerKind::kPbt) {
    GS_TRY(ParsePbt(map, out));
    return out;
  }
  if (out.kind == SchedulerKind::kSuccessiveHalving) out.reduction_factor = 2;  // the seed's halving
  GS_TRY(ParseRungs(map, out));
  if (out.kind == SchedulerKind::kSuccessiveHalving) GS_TRY(ParseHalving(map, out));
  if (out.kind == SchedulerKind::kHyperband) GS_TRY(ParseBrackets(map, out));
  if (out.kind == SchedulerKind::kBohb) GS_TRY(ParseBohb(map, out));
  return out;
}

}  // namespace gpusweep::config_detail
