#include "run/fold_sampler.h"

#include "gpusweep/cv.h"

namespace gpusweep {

FoldSampler::FoldSampler(std::unique_ptr<Sampler> inner, const CvConfig& cv)
    : inner_(std::move(inner)), cv_(cv) {}

int FoldSampler::total_trials() const { return inner_->total_trials() * cv_.folds; }

Suggestion FoldSampler::Suggest(int number, const std::vector<TrialRecord>& history) const {
  const int configuration = FoldOf(number, cv_.folds).configuration;
  for (const TrialRecord& trial : history)
    if (trial.number >= 0 && FoldOf(trial.number, cv_.folds).configuration == configuration &&
        !trial.params.empty())
      return Suggestion{number, trial.repeat, trial.params};
  std::vector<TrialRecord> configurations;
  for (const TrialRecord& trial : history)
    if (trial.number < 0) configurations.push_back(trial);
  for (const CvConfiguration& c : GroupFolds(history, cv_))
    configurations.push_back(ConfigurationRecord(c));
  Suggestion suggestion = inner_->Suggest(configuration, configurations);
  suggestion.number = number;
  return suggestion;
}

}  // namespace gpusweep
