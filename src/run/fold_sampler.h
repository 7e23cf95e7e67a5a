// fold_sampler.h — the sampler the run loop sees under `cv:`: fold trials in, one
// suggestion per configuration out (gpusweep/cv.h has the numbering).
//
// The wrapped sampler never sees a fold: it is asked for configuration c with a
// history of configurations (ConfigurationRecord: the folds' mean as the objective),
// so TPE learns from cross-validated means, not from single folds. Every fold of a
// configuration gets the same params: a fold whose sibling is already in the history
// takes the sibling's params, so a model-based sampler whose history moved on between
// two folds cannot give them different params. Pure, like every sampler.
#pragma once

#include <memory>

#include "gpusweep/config.h"
#include "gpusweep/sampler.h"

namespace gpusweep {

class FoldSampler : public Sampler {
 public:
  // Precondition: cv.enabled(), inner != nullptr.
  FoldSampler(std::unique_ptr<Sampler> inner, const CvConfig& cv);
  // The wrapped sampler's configurations times cv.folds.
  int total_trials() const override;
  // Fold trial `number`'s params: its configuration's (see above). `history`: fold
  // trials (numbers >= 0) and warm-start configurations (numbers < 0, passed on as
  // they are).
  Suggestion Suggest(int number, const std::vector<TrialRecord>& history) const override;
  int configurations() const { return inner_->total_trials(); }

 private:
  std::unique_ptr<Sampler> inner_;
  CvConfig cv_;
};

}  // namespace gpusweep
