// What scheduler: {type: bohb} needs from the sampler section (see bohb_check.h).
#include "config/bohb_check.h"

#include <fmt/format.h>

namespace gpusweep::config_detail {

Status ApplyBohbSampler(const Mapping& top, ExperimentConfig& config) {
  if (config.scheduler.kind != SchedulerKind::kBohb) return {};
  SamplerConfig& sampler = config.sampler;
  if (sampler.kind != SamplerKind::kTpe)
    return KeyOrSectionAt(top, "sampler", "type").Invalid(
        fmt::format("BOHB draws each configuration with the tpe sampler from the results at one "
                    "budget, and this sampler is {}",
                    ToString(sampler.kind)),
        fmt::format("write sampler: {{type: tpe, trials: {}}}, or use scheduler: {{type: "
                    "hyperband, ...}} to keep the {} sampler",
                    sampler.trials > 0 ? sampler.trials : 100, ToString(sampler.kind)));
  if (WritesKey(top, "sampler", "n_startup_trials"))
    return KeyOrSectionAt(top, "sampler", "n_startup_trials").Invalid(
        "under BOHB the model starts once a budget has min_points_in_model + 2 results, not "
        "after n_startup_trials",
        "remove n_startup_trials; set scheduler.min_points_in_model instead (default: the "
        "number of varying parameters + 1)");
  // The policy decides when there is a model; with 1, tpe given no history draws trial
  // k as the random sampler does (BOHB's random configurations).
  sampler.tpe.n_startup_trials = 1;
  if (!WritesKey(top, "sampler", "multivariate")) sampler.tpe.multivariate = true;
  return {};
}

}  // namespace gpusweep::config_detail
