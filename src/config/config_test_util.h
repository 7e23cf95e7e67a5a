// config_test_util.h — a temporary directory for tests that need real files.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "common/temp_dir_for_tests.h"
#include "gpusweep/config.h"

namespace gpusweep::config_test {

using test_support::TempDir;

// The message of the kInvalidConfig error `yaml` (as exp.yaml) gives, or
// "<parsed without error>".
inline std::string ParseError(std::string_view yaml) {
  auto config = ParseConfig(yaml, "exp.yaml");
  if (config) return "<parsed without error>";
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidConfig);
  return config.error().message;
}

// A config up to an empty `search_space:`, for cases that write one parameter after it.
inline constexpr std::string_view kSearchSpaceHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: random, trials: 2}\n"
    "search_space:\n";

// `head` (the keys every case of a test shares) followed by `rest`, parsed as exp.yaml;
// and the error message that gives (as ParseError).
inline Expected<ExperimentConfig> ParseAfter(std::string_view head, std::string_view rest) {
  return ParseConfig(std::string(head) + std::string(rest), "exp.yaml");
}
inline std::string ParseErrorAfter(std::string_view head, std::string_view rest) {
  return ParseError(std::string(head) + std::string(rest));
}

// Cases of one parameter written after kSearchSpaceHead: the parameter parsed (a parse
// error fails the calling test and gives an empty ParamSpec), and the error message.
inline ParamSpec FirstParamOf(std::string_view space) {
  auto config = ParseAfter(kSearchSpaceHead, space);
  EXPECT_TRUE(config) << space << ": " << config.error().message;
  if (!config || config->search_space.params.empty()) return ParamSpec{};
  return config->search_space.params.front();
}
inline std::string SpaceErrorOf(std::string_view space) {
  return ParseErrorAfter(kSearchSpaceHead, space);
}

}  // namespace gpusweep::config_test
