// problems.h — the synthetic conditional problems of the conditional benchmark
// (bench/README.md, "conditional"), on a trial's flat params (dotted leaf names, only the
// active ones, as a sampler suggests them). Written again in problems.py; `gs_bench_cond
// points` lets run.sh check that both give the same values.
#pragma once

#include <string>
#include <vector>

#include "gpusweep/json.h"

namespace gpusweep::bench {

struct SyntheticProblem {
  std::string name;     // also spaces/<name>.yaml
  double minimum;       // the known best value
  double (*evaluate)(const Params& flat);
};

const std::vector<SyntheticProblem>& SyntheticProblems();

}  // namespace gpusweep::bench
