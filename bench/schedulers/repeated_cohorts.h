// repeated_cohorts.h — synchronous successive halving over an unbounded stream of
// configurations, for the time-bounded measurement: the way a user runs it until a
// deadline, one experiment (cohort) after another.
//
// Contract: RepeatedCohorts is a Scheduler over `configurations` trials split into
// consecutive cohorts of `cohort_size` (cohort k = trials k·size .. (k+1)·size − 1; a
// trailing partial cohort is never started). Cohort k is a scheduler of its own, built by
// `factory(cohort_size)` and fed local trial numbers (trial − k·size). Cohort k + 1 is
// built only when cohort k says kDone AND none of its jobs is running: until then the
// free workers wait (kWait), as between two experiments run back to back. Jobs and
// decisions carry global trial numbers. kDone when no whole cohort is left.
#pragma once

#include <functional>
#include <memory>

#include "gpusweep/scheduler.h"

namespace gpusweep::bench {

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(int configurations)>;

// Precondition: factory(cohort_size) returns a scheduler (not nullptr); cohort_size >= 1.
std::unique_ptr<Scheduler> MakeRepeatedCohorts(SchedulerFactory factory, int cohort_size,
                                               int configurations);

}  // namespace gpusweep::bench
