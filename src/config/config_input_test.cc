// Hostile bytes in the experiment YAML: each is a located config error, never a value
// cut short on its way to the trial.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string ErrorFor(std::string_view yaml) {
  auto config = ParseConfig(yaml, "exp.yaml");
  if (config) return "<parsed without error>";
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidConfig) << config.error().message;
  return config.error().message;
}

constexpr std::string_view kHead =
    "name: e\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: grid}\n";

TEST(ConfigInputTest, NulByteInAChoiceValueIsAnError) {
  const std::string message = ErrorFor(std::string(kHead).append(
                                       "command: [a, '{{x}}']\n"
                                       "search_space:\n"
                                       "  x: {type: choice, values: [ok, \"a\\0b\"]}\n"));
  EXPECT_THAT(message, StartsWith("exp.yaml:6:34: search_space.x.values[1]: the string holds "
                                  "a NUL byte"));
  EXPECT_THAT(message, HasSubstr("remove the \\0 escape"));
}

TEST(ConfigInputTest, NulByteInAConstantOrTheCommandIsAnError) {
  EXPECT_THAT(ErrorFor(std::string(kHead).append(
                       "command: [a]\n"
                       "search_space:\n"
                       "  x: {type: constant, value: {deep: [\"\\0\"]}}\n")),
              StartsWith("exp.yaml:6:38: search_space.x.value.deep[0]: the string holds a NUL"));
  EXPECT_THAT(ErrorFor(std::string(kHead).append("command: [a, \"--b=\\0c\"]\n")),
              StartsWith("exp.yaml:4:14: command[1]: the string holds a NUL byte"));
}

// yaml-cpp 0.7's LoadAll never returned on these (found by fuzz/config_fuzzer).
TEST(ConfigInputTest, StrayCommaAtADocumentStartIsASyntaxErrorNotAHang) {
  for (const char* text : {",", ",ame: {{^ist-gnn        # Ra     nd", "# c\n  ,[b #"}) {
    EXPECT_THAT(ErrorFor(text), HasSubstr("YAML syntax error: the parser cannot continue here; "
                                          "look for a stray ',' outside brackets"))
        << text;
  }
  EXPECT_THAT(ErrorFor("name: e\n---\n,"),
              StartsWith("exp.yaml:3:1: (top level): the file holds more than one YAML document"));
  EXPECT_THAT(ErrorFor(std::string(kHead).append("command: [a]\n---\nname: f\n")),
              StartsWith("exp.yaml:6:1: (top level): the file holds more than one YAML document"));
}

}  // namespace
}  // namespace gpusweep
