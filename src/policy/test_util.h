// test_util.h — what the policy tests share: a sampler whose params do not matter.
#pragma once

#include <memory>

#include <gtest/gtest.h>

#include "gpusweep/sampler.h"
#include "search/param_specs_for_tests.h"

namespace gpusweep::policy_test {

// A random sampler of `trials` trials over one parameter: for tests about jobs, not params.
inline std::unique_ptr<Sampler> Random(int trials) {
  SamplerConfig config;
  config.kind = SamplerKind::kRandom;
  config.trials = trials;
  auto sampler = MakeSampler(config, SearchSpace{{test_support::Real("x", ParamKind::kUniform, 0, 1)}},
                             Mode::kMax);
  EXPECT_TRUE(sampler.has_value());
  return std::move(*sampler);
}

}  // namespace gpusweep::policy_test
