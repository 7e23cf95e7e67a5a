// Invalid configurations: each class of mistake gives file:line:column, the key path,
// what is wrong and what would be valid.
#include <sys/stat.h>

#include <fstream>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "config/template_parser.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Lines 1-3 of most cases; the line under test follows from line 4 on.
constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n";

std::string ErrorFor(std::string_view yaml, const std::filesystem::path& path = "exp.yaml") {
  auto config = ParseConfig(yaml, path);
  if (config) return "<parsed without error>";
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidConfig) << config.error().message;
  return config.error().message;
}

std::string ErrorWithHead(std::string_view rest) {
  return ErrorFor(std::string(kHead) + std::string(rest));
}

TEST(ConfigErrorsTest, UnknownTopLevelKeySuggestsTheClosest) {
  const std::string message = ErrorWithHead(
      "sampler: {type: grid}\n"
      "search_spce:\n"
      "  lr: {type: choice, values: [1]}\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:5:1: search_spce: unknown key 'search_spce'; "
                                  "did you mean 'search_space'?"));
  EXPECT_THAT(message, HasSubstr("valid keys: name, command, shell, metric, sampler, "
                                 "search_space, resources, timeout, kill_grace, templates, "
                                 "output_dir"));
}

TEST(ConfigErrorsTest, UnknownNestedKeySuggestsTheClosest) {
  const std::string message = ErrorWithHead(
      "sampler: {type: random, trials: 2}\n"
      "search_space:\n"
      "  lr: {type: loguniform, low: 1.0e-4, hgih: 0.1}\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:6:39: search_space.lr.hgih: unknown key 'hgih'; "
                                  "did you mean 'high'?; valid keys: type, low, high"));
}

TEST(ConfigErrorsTest, UnknownKeyFarFromAnyValidOneListsThemWithoutGuessing) {
  const std::string message = ErrorWithHead("sampler: {type: grid}\nzzzzzz: 1\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:5:1: zzzzzz: unknown key 'zzzzzz'; valid keys: "));
  EXPECT_THAT(message, Not(HasSubstr("did you mean")));
}

TEST(ConfigErrorsTest, MisspelledTypeKeyIsCaughtBeforeMissingType) {
  const std::string message = ErrorWithHead(
      "sampler: {type: grid}\n"
      "search_space:\n"
      "  depth: {tpye: int, low: 1, high: 3}\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:6:11: search_space.depth.tpye: unknown key "
                                  "'tpye'; did you mean 'type'?"));
}

TEST(ConfigErrorsTest, MissingRequiredKeyPointsAtTheEnclosingMapping) {
  EXPECT_THAT(ErrorFor("command: [a]\nmetric: {name: m, mode: max}\nsampler: {type: grid}\n"),
              StartsWith("exp.yaml:1:1: name: missing required key 'name'; add e.g. name: "));
  EXPECT_THAT(ErrorFor("name: e\ncommand: [a]\nmetric:\n  name: val_acc\nsampler: {type: grid}\n"),
              StartsWith("exp.yaml:4:3: metric.mode: missing required key 'mode'; add mode: "
                         "min or mode: max"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random}\nsearch_space: {x: 1}\n"),
              StartsWith("exp.yaml:4:10: sampler.trials: missing required key 'trials'"));
}

// A mapping of plain values is a group of constants (nested_space.h: params.json holds
// it as written); one with a spec's key but no kind is a spec with a mistake.
TEST(ConfigErrorsTest, MappingParameterWithoutTypeExplainsMappingConstants) {
  const std::string message = ErrorWithHead(
      "sampler: {type: grid}\n"
      "search_space:\n"
      "  optimizer:\n"
      "    name: adam\n"
      "    step: 3\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:7:5: search_space.optimizer.type: missing "
                                  "required key 'type'"));
  EXPECT_THAT(message, HasSubstr("{type: constant, value: {...}}"));
}

TEST(ConfigErrorsTest, YamlSyntaxErrorsHaveAPosition) {
  EXPECT_THAT(ErrorFor("name: e\ncommand: [python3, train.py\nmetric: x\n"),
              StartsWith("exp.yaml:3:7: YAML syntax error: end of sequence flow not found"));
  EXPECT_THAT(ErrorFor("name: e\ncommand: a: b\n"),
              StartsWith("exp.yaml:2:11: YAML syntax error: illegal map value"));
}

TEST(ConfigErrorsTest, EmptyOrNonMappingFile) {
  EXPECT_THAT(ErrorFor(""), StartsWith("exp.yaml:1:1: (top level): the config is empty"));
  EXPECT_THAT(ErrorFor("- a\n- b\n"),
              StartsWith("exp.yaml:1:1: (top level): found a list, expected a mapping"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\n---\nname: f\n"),
              StartsWith("exp.yaml:6:1: (top level): the file holds more than one YAML document"));
}

TEST(ConfigErrorsTest, WrongTypesSayWhatWasFoundAndExpected) {
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: many}\n"),
              StartsWith("exp.yaml:4:33: sampler.trials: found the string 'many', expected an "
                         "integer >= 1"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: 2.5}\n"),
              HasSubstr("sampler.trials: found the number 2.5, expected an integer >= 1"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: \"8\"}\n"),
              HasSubstr("sampler.trials: found the string '8', expected an integer >= 1"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: 0}\n"),
              HasSubstr("sampler.trials: found the integer 0, expected an integer >= 1"));
  EXPECT_THAT(ErrorWithHead("sampler: [grid]\n"),
              StartsWith("exp.yaml:4:10: sampler: found a list, expected a mapping"));
  EXPECT_THAT(ErrorWithHead("shell: yes\nsampler: {type: grid}\n"),
              StartsWith("exp.yaml:4:8: shell: found the string 'yes', expected a boolean; use "
                         "true or false"));
  EXPECT_THAT(
      ErrorWithHead("sampler: {type: random, trials: 1}\nsearch_space: {x: {type: uniform, low: a, "
                    "high: 1}}\n"),
      HasSubstr("search_space.x.low: found the string 'a', expected a finite number"));
}

TEST(ConfigErrorsTest, EmptyValueErrorsPointAtTheKey) {
  EXPECT_THAT(ErrorWithHead("sampler:\nsearch_space: {x: 1}\n"),
              StartsWith("exp.yaml:4:1: sampler: found null, expected a mapping"));
}

TEST(ConfigErrorsTest, EnumValuesSuggestTheClosest) {
  EXPECT_THAT(ErrorFor("name: e\ncommand: [a]\nmetric: {name: m, mode: mxa}\n"),
              StartsWith("exp.yaml:3:25: metric.mode: unknown value 'mxa'; did you mean 'max'?; "
                         "valid values: min, max"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: randon, trials: 2}\n"),
              HasSubstr("sampler.type: unknown value 'randon'; did you mean 'random'?"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space: {x: {type: log_uniform}}\n"),
              HasSubstr("search_space.x.type: unknown value 'log_uniform'; did you mean "
                        "'loguniform'?"));
}

TEST(ConfigErrorsTest, SamplerKeysDependOnItsType) {
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid, trials: 4}\n"),
              StartsWith("exp.yaml:4:23: sampler.trials: unknown key 'trials'; valid keys: "
                         "type, repeats"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: 4, seed: -1}\nsearch_space: {x: 1}\n"),
              HasSubstr("sampler.seed: the seed is negative"));
}

TEST(ConfigErrorsTest, CommandAndShellMustAgree) {
  EXPECT_THAT(ErrorFor("name: e\ncommand: python3 train.py\n"),
              StartsWith("exp.yaml:2:10: command: a string command runs through a shell, which "
                         "needs shell: true; write command as a list"));
  EXPECT_THAT(ErrorFor("name: e\nshell: true\ncommand: [python3, train.py]\n"),
              StartsWith("exp.yaml:3:10: command: shell: true needs command to be one string"));
  EXPECT_THAT(ErrorFor("name: e\ncommand: []\n"),
              StartsWith("exp.yaml:2:10: command: the command is empty"));
}

TEST(ConfigErrorsTest, UnquotedMustacheInCommandListGetsAQuotingHint) {
  EXPECT_THAT(ErrorFor("name: e\ncommand: [python3, train.py, --lr, {{lr}}]\n"),
              StartsWith("exp.yaml:2:36: command[3]: found a mapping, expected a string; quote "
                         "Mustache templates, e.g. \"{{lr}}\""));
  EXPECT_THAT(ErrorFor("name: e\ncommand: [python3, \"{{lr\"]\n"),
              HasSubstr("command[1]: invalid Mustache template"));
}

TEST(ConfigErrorsTest, InvalidNames) {
  EXPECT_THAT(ErrorFor("name: my experiment\n"),
              StartsWith("exp.yaml:1:7: name: 'my experiment' is not a valid experiment name"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space:\n  learning-rate: 1\n"),
              StartsWith("exp.yaml:6:3: search_space.learning-rate: 'learning-rate' is not a "
                         "valid parameter name"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space:\n  trial: 1\n"),
              StartsWith("exp.yaml:6:3: search_space.trial: 'trial' is reserved"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space: {config_dir: 1}\n"),
              HasSubstr("'config_dir' is reserved"));
}

TEST(ConfigErrorsTest, DuplicateKeysAreRejected) {
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space:\n  x: 1\n  x: 2\n"),
              StartsWith("exp.yaml:7:3: search_space.x: duplicate key 'x' (first at line 6)"));
}

TEST(ConfigErrorsTest, GridCannotEnumerateContinuousParameters) {
  const std::string message = ErrorWithHead(
      "sampler: {type: grid}\n"
      "search_space:\n"
      "  dropout: {type: uniform, low: 0.0, high: 0.5}\n");
  EXPECT_THAT(message, StartsWith("exp.yaml:6:19: search_space.dropout.type: the grid sampler "
                                  "cannot enumerate a continuous uniform parameter; use type: "
                                  "choice or type: int, or sampler type: random"));
}

TEST(ConfigErrorsTest, ParameterRangeChecks) {
  const std::string head =
      std::string(kHead) + "sampler: {type: random, trials: 2}\nsearch_space:\n";
  EXPECT_THAT(ErrorFor(head + "  lr: {type: loguniform, low: 0, high: 1}\n"),
              StartsWith("exp.yaml:6:31: search_space.lr.low: loguniform needs low > 0"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: uniform, low: 1, high: 1}\n"),
              StartsWith("exp.yaml:6:36: search_space.x.high: high (1) must be greater than "
                         "low (1)"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: int, low: 1, high: 3, step: 0}\n"),
              HasSubstr("search_space.x.step: step must be > 0"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: int, low: 4, high: 3}\n"),
              HasSubstr("search_space.x.high: high (3) is less than low (4)"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: int, low: 1.5, high: 3}\n"),
              HasSubstr("search_space.x.low: found the number 1.5, expected an integer"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: choice, values: []}\n"),
              HasSubstr("search_space.x.values: a choice needs at least one value"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: choice, values: [1, 2, 1]}\n"),
              HasSubstr("search_space.x.values[2]: duplicates search_space.x.values[0]"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: choice, values: [1, .inf]}\n"),
              HasSubstr("search_space.x.values[1]: the number .inf cannot be stored as JSON"));
  EXPECT_THAT(ErrorFor(head + "  x: {type: constant}\n"),
              HasSubstr("search_space.x.value: missing required key 'value'"));
}

TEST(ConfigErrorsTest, RecursiveAliasIsAnErrorNotACrash) {
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\nsearch_space:\n  a: &x [1, *x]\n"),
              StartsWith("exp.yaml:6:6: search_space.a: the value nests deeper than 128 levels"));
}

TEST(ConfigErrorsTest, RandomSamplerNeedsASearchSpace) {
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: 2}\n"),
              StartsWith("exp.yaml:1:1: (top level): the random sampler needs a search space"));
}

TEST(ConfigErrorsTest, GpusPerTrialListMustHaveOneEntryPerTrial) {
  // Grid: 2 x 2 values x 1 repeat = 4 trials.
  EXPECT_THAT(ErrorWithHead("sampler: {type: grid}\n"
                            "search_space: {a: {type: choice, values: [1, 2]}, b: {type: int, "
                            "low: 0, high: 1}}\n"
                            "resources:\n"
                            "  gpus_per_trial: [1, 1, 1]\n"),
              StartsWith("exp.yaml:7:19: resources.gpus_per_trial: the list has 3 entries but "
                         "the sampler runs 4 trials; give exactly one GPU count per trial"));
  EXPECT_THAT(ErrorWithHead("sampler: {type: random, trials: 3}\n"
                            "search_space: {a: {type: uniform, low: 0, high: 1}}\n"
                            "resources: {gpus_per_trial: [1, 2]}\n"),
              HasSubstr("resources.gpus_per_trial: the list has 2 entries but the sampler runs 3 "
                        "trials"));
}

TEST(ConfigErrorsTest, GpuChecks) {
  const std::string head = std::string(kHead) + "sampler: {type: grid}\n";
  EXPECT_THAT(ErrorFor(head + "resources: {gpus: [0, 1, 0]}\n"),
              StartsWith("exp.yaml:5:26: resources.gpus[2]: GPU 0 is listed twice"));
  EXPECT_THAT(ErrorFor(head + "resources: {gpus: [0, -1]}\n"),
              HasSubstr("resources.gpus[1]: found the integer -1, expected an integer >= 0"));
  // resources line -> what its error says. A number is a count to a Ray user
  // (num_gpus) and an index without brackets to others: both readings are answered.
  const std::vector<std::pair<std::string, std::string>> gpus_errors{
      {"{gpus: []}", "resources.gpus: the GPU list is empty; use gpus: none"},
      {"{gpus: 0}", "resources.gpus: gpus takes which GPUs, not how many; write gpus: none for CPU-only trials"},
      {"{gpus: 2}", "write gpus: [2] for GPU 2 alone, gpus: auto for every GPU, and gpus_per_trial: 2 for 2 "
                    "GPUs per trial"},
      {"{gpus: atuo}", "resources.gpus: unknown value 'atuo'; did you mean 'auto'?"}};
  for (const auto& [resources, error] : gpus_errors)
    EXPECT_THAT(ErrorFor(head + "resources: " + resources + "\n"), HasSubstr(error)) << resources;
  EXPECT_THAT(ErrorFor(head + "resources: {gpus: [0], gpus_per_trial: 2}\n"),
              HasSubstr("resources.gpus_per_trial: a trial asks for 2 GPUs but gpus lists only 1"));
  EXPECT_THAT(ErrorFor(head + "resources: {gpus: none, gpus_per_trial: 1}\n"),
              HasSubstr("resources.gpus_per_trial: a trial asks for 1 GPU but gpus is none"));
  EXPECT_THAT(ErrorFor(head + "resources: {cpu_slots: 0}\n"),
              HasSubstr("resources.cpu_slots: found the integer 0, expected an integer >= 1"));
  EXPECT_THAT(ErrorFor(head + "resources: {cpu_slots: many}\n"),
              HasSubstr("resources.cpu_slots: found the string 'many', expected auto or an "
                        "integer >= 1"));
  EXPECT_THAT(ErrorFor(head + "resources: {max_concurrent: 0}\n"),
              HasSubstr("resources.max_concurrent: found the integer 0"));
}

TEST(ConfigErrorsTest, DurationsAreChecked) {
  const std::string head = std::string(kHead) + "sampler: {type: grid}\n";
  EXPECT_THAT(ErrorFor(head + "timeout: soon\n"),
              StartsWith("exp.yaml:5:10: timeout: 'soon' is not a duration"));
  EXPECT_THAT(ErrorFor(head + "timeout: 0s\n"),
              HasSubstr("timeout: a zero timeout would stop every trial at once"));
  EXPECT_THAT(ErrorFor(head + "kill_grace: -5\n"),
              StartsWith("exp.yaml:5:13: kill_grace: the duration is negative"));
  EXPECT_THAT(ErrorFor(head + "kill_grace: [1]\n"),
              HasSubstr("kill_grace: found a list, expected a duration"));
}

class TemplateErrorsTest : public ::testing::Test {
 protected:
  std::string ErrorForDst(std::string_view dst) {
    dir_.Write("t.mustache", "x = {{x}}\n");
    const std::string yaml = std::string(kHead) + "sampler: {type: grid}\ntemplates:\n" +
                             "  - {src: t.mustache, dst: '" + std::string(dst) + "'}\n";
    return ErrorFor(yaml, dir_.path() / "exp.yaml");
  }
  config_test::TempDir dir_;
};

TEST_F(TemplateErrorsTest, DestinationsMayNotEscapeTheTrialDirectory) {
  const std::string prefix = (dir_.path() / "exp.yaml").string() + ":6:28: templates[0].dst: ";
  EXPECT_THAT(ErrorForDst("../x"), StartsWith(prefix + "'../x' is outside the trial directory"));
  EXPECT_THAT(ErrorForDst("/abs"), StartsWith(prefix + "'/abs' is absolute"));
  EXPECT_THAT(ErrorForDst("a/../../b"),
              StartsWith(prefix + "'a/../../b' is outside the trial directory"));
  EXPECT_THAT(ErrorForDst("a/.."), StartsWith(prefix + "'a/..' is outside the trial directory"));
  EXPECT_THAT(ErrorForDst("sub/"), StartsWith(prefix + "'sub/' names a directory"));
  EXPECT_THAT(ErrorForDst(""), StartsWith(prefix + "dst is empty"));
  EXPECT_THAT(ErrorForDst("./output.log"),
              StartsWith(prefix + "'./output.log' is written by gpusweep in every trial"));
  EXPECT_EQ(ErrorForDst("sub/dir/x.py"), "<parsed without error>");
  EXPECT_EQ(ErrorForDst("a/../b.py"), "<parsed without error>");  // stays inside
}

TEST_F(TemplateErrorsTest, SourceMustExistAndBeValidMustache) {
  const std::string head = std::string(kHead) + "sampler: {type: grid}\ntemplates:\n";
  EXPECT_THAT(ErrorFor(head + "  - {src: missing.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr(":6:11: templates[0].src: '" + (dir_.path() / "missing.mustache").string() +
                        "' is not a readable file"));
  dir_.Write("bad.mustache", "x = {{x\n");
  EXPECT_THAT(ErrorFor(head + "  - {src: bad.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr("templates[0].src: '" + (dir_.path() / "bad.mustache").string() +
                        "' is not a valid Mustache template"));
  dir_.Write("ok.mustache", "");
  EXPECT_THAT(ErrorFor(head + "  - {src: ok.mustache, dst: x}\n  - {src: ok.mustache, dst: ./x}\n",
                       dir_.path() / "exp.yaml"),
              HasSubstr(":7:5: templates[1]: dst 'x' is also written by templates[0]"));
  EXPECT_THAT(ErrorFor(head + "  - {src: ok.mustache}\n", dir_.path() / "exp.yaml"),
              HasSubstr(":6:5: templates[0].dst: missing required key 'dst'"));
}

// A FIFO would block open() and read() forever, a directory or device is no text, a
// huge file would be rendered into every trial: each is a config error at the src.
TEST_F(TemplateErrorsTest, SourceMustBeARegularFileOfBoundedSize) {
  const std::string head = std::string(kHead) + "sampler: {type: grid}\ntemplates:\n";
  const std::string at = ":6:11: templates[0].src: '";
  const std::filesystem::path fifo = dir_.path() / "fifo.mustache";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_THAT(ErrorFor(head + "  - {src: fifo.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr(at + fifo.string() + "' is not a readable file: it is a FIFO, not a "
                                             "regular file"));
  std::filesystem::create_symlink(fifo, dir_.path() / "link.mustache");
  EXPECT_THAT(ErrorFor(head + "  - {src: link.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr("it is a FIFO, not a regular file"));
  std::filesystem::create_directory(dir_.path() / "dir.mustache");
  EXPECT_THAT(ErrorFor(head + "  - {src: dir.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr("it is a directory, not a regular file"));
  std::filesystem::create_symlink("/dev/zero", dir_.path() / "zero.mustache");
  EXPECT_THAT(ErrorFor(head + "  - {src: zero.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr("it is a character device, not a regular file"));
  const std::filesystem::path huge = dir_.path() / "huge.mustache";
  std::ofstream(huge).close();
  std::filesystem::resize_file(huge, config_detail::kMaxTextFileBytes + 1);  // sparse
  EXPECT_THAT(ErrorFor(head + "  - {src: huge.mustache, dst: x}\n", dir_.path() / "exp.yaml"),
              HasSubstr(at + huge.string() + "' is 16777217 bytes, over the 16777216-byte "
                                             "limit for a config or template file"));
  // The limit itself is allowed, one byte more is not.
  const std::filesystem::path small = dir_.path() / "small.mustache";
  std::ofstream(small) << "0123456789";
  const auto whole = config_detail::ReadTextFile(small, 10);
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(*whole, "0123456789");
  const auto over = config_detail::ReadTextFile(small, 9);
  ASSERT_FALSE(over);
  EXPECT_THAT(over.error().message, HasSubstr("is 10 bytes, over the 9-byte limit"));
}

}  // namespace
}  // namespace gpusweep
