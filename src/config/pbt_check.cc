// What scheduler: {type: pbt} needs from the other sections (see pbt_check.h).
#include "config/pbt_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

const ParamSpec* PbtParam(const SearchSpace& space, std::string_view name) {
  for (const ParamSpec& param : space.params)
    if (param.name == name) return &param;
  return nullptr;
}

Status CheckMutations(const Mapping& top, const ExperimentConfig& config) {
  const PbtConfig& pbt = config.scheduler.pbt;
  const SearchSpace& space = config.search_space;
  if (pbt.mutations.empty()) {
    const bool varies = std::any_of(space.params.begin(), space.params.end(), [](const ParamSpec& p) {
      return p.kind != ParamKind::kConstant;
    });
    if (!varies)
      return KeyOrSectionAt(top, "search_space", "").Invalid(
          "population-based training explores parameters, but every parameter is a constant",
          "give at least one a range or choices, e.g. lr: {type: loguniform, low: 1e-4, high: 1e-1}");
    return {};
  }
  const Value mutations = KeyOrSectionAt(top, "scheduler", "mutations");
  GS_ASSIGN_OR_RETURN(std::vector<Value> items, mutations.ToList());
  for (std::size_t i = 0; i < pbt.mutations.size() && i < items.size(); ++i) {
    const std::string& name = pbt.mutations[i];
    const ParamSpec* param = PbtParam(space, name);
    if (param == nullptr) {
      std::string names;
      for (const ParamSpec& p : space.params) names += (names.empty() ? "" : ", ") + p.name;
      return items[i].Invalid(fmt::format("'{}' is not a search_space parameter", name),
                              fmt::format("name one of: {}", names));
    }
    if (param->kind == ParamKind::kConstant)
      return items[i].Invalid(fmt::format("'{}' is a constant: there is nothing to mutate", name),
                              "give it a range or choices in search_space, or leave it out here");
  }
  return {};
}

// replay: every segment's params name search-space parameters, and hold every one that
// is always active (a trial without it would render its templates without it).
Status CheckReplay(const Mapping& top, const ExperimentConfig& config) {
  const std::vector<Params>& replay = config.scheduler.pbt.replay;
  const Value at = KeyOrSectionAt(top, "scheduler", "replay");
  for (std::size_t s = 0; s < replay.size(); ++s) {
    for (const auto& [name, value] : replay[s].items())
      if (PbtParam(config.search_space, name) == nullptr)
        return at.Invalid(fmt::format("replay segment {} sets '{}', which is not a search_space "
                                      "parameter",
                                      s, name),
                          "use the experiment's own config (gpusweep best --replay keeps it)");
    for (const ParamSpec& param : config.search_space.params)
      if (param.when.empty() && !replay[s].contains(param.name))
        return at.Invalid(fmt::format("replay segment {} does not set '{}'", s, param.name),
                          "give every segment every parameter, as gpusweep best --replay does");
  }
  return {};
}

}  // namespace

Status CheckPbtFits(const Mapping& top, const ExperimentConfig& config) {
  if (config.scheduler.kind != SchedulerKind::kPbt) return {};
  const PbtConfig& pbt = config.scheduler.pbt;
  if (config.cv.enabled())
    return KeyOrSectionAt(top, "cv", "folds").Invalid(
        "population-based training cannot run under cross-validation: a member continues "
        "from one checkpoint, and folds of one configuration have several",
        "remove cv: (or use scheduler: {type: asha, ...} with cv)");
  const SamplerKind kind = config.sampler.kind;
  if (kind != SamplerKind::kRandom && kind != SamplerKind::kSobol)
    return KeyOrSectionAt(top, "sampler", "type").Invalid(
        fmt::format("population-based training draws its initial population from the sampler, "
                    "and the {} sampler {}",
                    ToString(kind),
                    kind == SamplerKind::kGrid ? "enumerates a grid instead of drawing"
                                               : "learns from finished trials, which PBT's "
                                                 "segments are not"),
        fmt::format("write sampler: {{type: random, trials: {}}} (or type: sobol)", pbt.population));
  if (config.sampler.trials != pbt.population)
    return KeyOrSectionAt(top, "sampler", "trials").Invalid(
        fmt::format("the sampler draws {} trials but scheduler.population is {}; with pbt the "
                    "sampler draws the initial population (gpusweep numbers the segments)",
                    config.sampler.trials, pbt.population),
        fmt::format("write trials: {}", pbt.population));
  if (config.warm_start)
    return KeyOrSectionAt(top, "warm_start", "from").Invalid(
        "population-based training does not take warm_start: its population starts from the "
        "sampler's draws and only its own checkpoints",
        "remove warm_start:, or put the earlier best settings under enqueue:");
  if (config.resources.gpus_per_trial.size() > 1)
    return KeyOrSectionAt(top, "resources", "gpus_per_trial").Invalid(
        "a per-trial list cannot be used with population-based training (each segment of a "
        "member is a trial)",
        "give one number, e.g. gpus_per_trial: 1");
  if (!pbt.replay.empty()) return CheckReplay(top, config);
  return CheckMutations(top, config);
}

}  // namespace gpusweep::config_detail
