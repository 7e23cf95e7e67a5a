// gpu_lines.h — what the journal's GPU events (run/gpu_slots.h) say, as the lines
// `gpusweep status` and `gpusweep show` print.
#pragma once

#include <string>

#include "gpusweep/journal.h"

namespace gpusweep {

// The GPUs the latest run quarantined and did not get back, one line each
// ("GPU 0 quarantined: ..."), under a heading; "" when there are none.
Expected<std::string> QuarantineLines(Journal& journal);

// Trial `number`'s GPU memory (its latest attempt's peak, the declared reservation, and
// whether it used more): "GPU memory: peak 3.2 GiB (declared 10.0 GiB)\n"; "" when the
// journal has no reading of it (a CPU trial, or no NVML).
Expected<std::string> TrialGpuMemoryLine(Journal& journal, int number);

}  // namespace gpusweep
