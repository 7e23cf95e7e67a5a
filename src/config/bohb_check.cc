// What scheduler: {type: bohb} needs from the sampler section (see bohb_check.h).
#include "config/bohb_check.h"

#include <fmt/format.h>

namespace gpusweep::config_detail {
namespace {

// The sampler's `key` when it is written, else the sampler section, else the top.
const Value* SamplerKey(const Mapping& top, std::string_view key, Value& storage) {
  const Value* sampler = top.Find("sampler");
  if (sampler == nullptr || !sampler->IsMapping()) return nullptr;
  const YAML::Node child = sampler->node()[std::string(key)];
  if (!child) return nullptr;
  storage = sampler->Child(child, key);
  return &storage;
}

Value SamplerAt(const Mapping& top, std::string_view key) {
  Value storage = top.self();
  if (const Value* at = SamplerKey(top, key, storage)) return *at;
  if (const Value* sampler = top.Find("sampler")) return *sampler;
  return top.self();
}

}  // namespace

Status ApplyBohbSampler(const Mapping& top, ExperimentConfig& config) {
  if (config.scheduler.kind != SchedulerKind::kBohb) return {};
  SamplerConfig& sampler = config.sampler;
  if (sampler.kind != SamplerKind::kTpe)
    return SamplerAt(top, "type").Invalid(
        fmt::format("BOHB draws each configuration with the tpe sampler from the results at one "
                    "budget, and this sampler is {}",
                    ToString(sampler.kind)),
        fmt::format("write sampler: {{type: tpe, trials: {}}}, or use scheduler: {{type: "
                    "hyperband, ...}} to keep the {} sampler",
                    sampler.trials > 0 ? sampler.trials : 100, ToString(sampler.kind)));
  Value storage = top.self();
  if (const Value* startup = SamplerKey(top, "n_startup_trials", storage))
    return startup->Invalid(
        "under BOHB the model starts once a budget has min_points_in_model + 2 results, not "
        "after n_startup_trials",
        "remove n_startup_trials; set scheduler.min_points_in_model instead (default: the "
        "number of varying parameters + 1)");
  // The policy decides when there is a model; with 1, tpe given no history draws trial
  // k as the random sampler does (BOHB's random configurations).
  sampler.tpe.n_startup_trials = 1;
  if (SamplerKey(top, "multivariate", storage) == nullptr) sampler.tpe.multivariate = true;
  return {};
}

}  // namespace gpusweep::config_detail
