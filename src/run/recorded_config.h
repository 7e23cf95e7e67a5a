// recorded_config.h — what the read side may know of the config an experiment ran with,
// read from its journal's experiment row (the YAML text as run), so the read side never
// parses a config itself. Its one caller is the read model, view/experiment_view.h.
#pragma once

#include "gpusweep/config.h"
#include "gpusweep/journal.h"

namespace gpusweep {

// The declared search space of the recorded config; empty when its YAML no longer
// parses where it was run from (templates moved or deleted since), which the callers
// treat as "no declared bounds", never as an error.
SearchSpace RecordedSearchSpace(const ExperimentRecord& record);

// The recorded config's hypervolume_reference (ExperimentConfig), in objective order;
// empty when it gives none or no longer parses (the reference is then derived).
std::vector<double> RecordedHypervolumeReference(const ExperimentRecord& record);

// scheduler.population of a pbt experiment's recorded config (a replay: 1); 0 for any
// other scheduler or a config that no longer parses.
int RecordedPbtPopulation(const ExperimentRecord& record);

}  // namespace gpusweep
