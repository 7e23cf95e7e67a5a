// kept_trials.h — what a run holds in memory of each recorded trial (issue 25: a run of
// 100,000 trials, and the resume of one, in < 64 MB).
//
// A policy that reads no finished trial (SearchPolicy::reads_finished_trials: a plain
// sweep over grid, random or Sobol) is given, of each finished trial, only FinishedRecord
// (trial.h: no params, only the objective's and constraints' metrics); every other
// record, and every record of a policy that reads them, is kept whole. "Finished":
// completed, pruned, or failed and not run again in this run (a failed trial that
// --retry-failed reruns keeps the params it reruns with). The journal always holds the
// whole records; only memory is spared.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpusweep/config.h"
#include "gpusweep/journal.h"
#include "gpusweep/policy.h"

namespace gpusweep {

// The capacity to reserve for the records of a run that will record `total_trials`
// trials: one allocation, not a doubling (whose copy was the run's peak at 100,000
// trials). Only touched pages count, so a large bound costs nothing; capped at 2^22.
std::size_t TrialCapacity(int total_trials);

class KeptTrials {
 public:
  // `policy` must outlive this object.
  KeptTrials(const SearchPolicy& policy, const ExperimentConfig& config, FailedTrials failed);

  // `record` as the run keeps it.
  TrialRecord Keep(const TrialRecord& record) const;
  // Every trial in `journal`, ordered by number, each as Keep leaves it. Of a policy that
  // reads no finished trial they are read one at a time (Journal::ForEachTrial), so a
  // resume never holds every whole record at once, into TrialCapacity(total_trials).
  // Errors: the journal's.
  Expected<std::vector<TrialRecord>> Load(Journal& journal, int total_trials) const;

 private:
  const SearchPolicy* policy_;
  FailedTrials failed_;
  // The metrics a FinishedRecord keeps; nullopt: every record whole.
  std::optional<std::vector<std::string>> finished_metrics_;
};

}  // namespace gpusweep
