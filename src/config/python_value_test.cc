// Python expressions pasted as values are refused with the literal to write.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using config_test::SpaceErrorOf;

constexpr std::string_view kHead = config_test::kSearchSpaceHead;

TEST(PythonValueTest, RangesAndPowerListsAreComputed) {
  EXPECT_THAT(SpaceErrorOf("  n: range(1, 10)\n"),
              AllOf(StartsWith("exp.yaml:6:6: search_space.n: 'range(1, 10)' is a Python "
                               "expression; gpusweep does not evaluate it"),
                    HasSubstr("write n: {type: int, low: 1, high: 9}")));
  EXPECT_THAT(SpaceErrorOf("  n: list(range(0, 20, 5))\n"),
              HasSubstr("write n: {type: int, low: 0, high: 19, step: 5}"));
  EXPECT_THAT(SpaceErrorOf("  b: [2 ** i for i in range(9)]\n"),
              HasSubstr("write b: {type: choice, values: [1, 2, 4, 8, 16, 32, 64, 128, 256]}"));
  EXPECT_THAT(SpaceErrorOf("  b: {type: choice, values: [2**i for i in range(4, 7)]}\n"),
              HasSubstr("write b: {type: choice, values: [16, 32, 64]}"));
  EXPECT_THAT(SpaceErrorOf("  b: {values: range(3)}\n"),
              HasSubstr("write b: {type: int, low: 0, high: 2}"));
  EXPECT_THAT(SpaceErrorOf("  k: \"[i * 8 for i in range(1, 4)]\"\n"),
              HasSubstr("write k: {type: choice, values: [8, 16, 24]}"));
  EXPECT_THAT(SpaceErrorOf("  d: np.linspace(0, 0.5, 3)\n"),
              HasSubstr("write d: {type: choice, values: [0, 0.25, 0.5]}"));
  EXPECT_THAT(SpaceErrorOf("  d: np.arange(1, 4)\n"),
              HasSubstr("write d: {type: choice, values: [1, 2, 3]}"));
  EXPECT_THAT(SpaceErrorOf("  d: math.sqrt(2)\n"), HasSubstr("write d: the values it gives"));
  EXPECT_THAT(SpaceErrorOf("  lr: np.logspace(-5, -1, 5)\n"),
              HasSubstr("write lr: {type: choice, values: [1e-05, 0.0001, 0.001, 0.01, 0.1]}"));
}

TEST(PythonValueTest, FunctionsAndWrappersAreRefused) {
  EXPECT_THAT(SpaceErrorOf("  f: \"lambda spec: 10 ** -spec.config.x\"\n"),
              HasSubstr("'lambda spec: 10 ** -spec.config.x' is a Python function; gpusweep "
                        "does not run it"));
  EXPECT_THAT(SpaceErrorOf("  f: {lambda spec: spec.config.x}\n"),
              HasSubstr("'lambda spec: ...' is a Python function"));
  EXPECT_THAT(SpaceErrorOf("  f: \"lambda: 3\"\n"), HasSubstr("is a Python function"));
  EXPECT_THAT(SpaceErrorOf("  n: scope.int(hp.quniform('n', 1, 10, 1))\n"),
              HasSubstr("write n: {type: uniform, low: 1, high: 10, q: 1} (an integer q already "
                        "gives integers)"));
  EXPECT_THAT(SpaceErrorOf("  n: np.random.choice([1, 2])\n"),
              HasSubstr("write n: the values it gives"));
  // Strings that are not Python stay constants.
  auto config = config_test::ParseAfter(kHead, "  cmd: echo(1)\n  s: \"for x in y\"\n");
  ASSERT_TRUE(config) << config.error().message;
}

}  // namespace
}  // namespace gpusweep
