// One config path: every key outside the trial source (sampler + search_space, or nas:)
// means the same for a sweep and a NAS experiment. Each case parses the same lines under
// both heads and compares every shared field; a case must also change something, so a
// key that one path ignored (NAS once dropped backend:) fails it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using config_test::TempDir;

// Both heads are five lines, so every later key sits on the same line under either.
constexpr std::string_view kSweepHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: random, trials: 2}\n"
    "search_space: {x: {type: uniform, low: 0, high: 1}}\n";
constexpr std::string_view kNasHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "nas: {operations: {conv: {filters: [16]}}}\n"
    "# (a NAS experiment's trial source is one section)\n";

// Every field the shared keys set, as one comparable value.
Json SharedFields(const ExperimentConfig& c) {
  const ResourcesConfig& r = c.resources;
  Json templates = Json::array();
  for (const TemplateSpec& t : c.templates)
    templates.push_back({t.src.string(), t.dst, t.position.line, t.text});
  const SlurmConfig& s = c.backend.slurm;
  return Json{
      {"resources", {static_cast<int>(r.gpus), r.gpu_list, r.gpus_per_trial, r.gpus_per_trial_line,
                     r.cpu_slots.value_or(-1), r.max_concurrent.value_or(-1),
                     r.trials_per_gpu.value_or(-1)}},
      {"timeout", c.timeout_seconds.value_or(-1)},
      {"kill_grace", c.kill_grace_seconds},
      {"templates", templates},
      {"output_dir", c.output_dir.value_or("").string()},
      {"max_failures", c.max_failures ? Json{c.max_failures->count, c.max_failures->fraction,
                                             c.max_failures->after}
                                      : Json()},
      {"backend", {static_cast<int>(c.backend.kind), c.backend.line, s.partition, s.account, s.qos,
                   s.time_seconds.value_or(-1), s.extra_args, s.cpus_per_trial,
                   s.poll_interval_seconds, s.max_poll_interval_seconds, s.max_jobs}},
  };
}

class OneConfigPathTest : public ::testing::TestWithParam<std::string_view> {
 protected:
  Json Parse(std::string_view head, std::string_view rest) {
    auto config = LoadConfig(dir_.Write("exp.yaml", std::string(head) + std::string(rest)));
    EXPECT_TRUE(config) << config.error().message;
    return config ? SharedFields(*config) : Json();
  }
  TempDir dir_;
};

TEST_P(OneConfigPathTest, MeansTheSameForASweepAndANasExperiment) {
  dir_.Write("setup.mustache", "lr = {{x}}\n");
  const Json sweep = Parse(kSweepHead, GetParam());
  const Json nas = Parse(kNasHead, GetParam());
  EXPECT_EQ(nas, sweep);
  EXPECT_NE(nas, Parse(kNasHead, "")) << "the NAS path ignored " << GetParam();
  EXPECT_NE(sweep, Parse(kSweepHead, "")) << "the sweep path ignored " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(
    SharedKeys, OneConfigPathTest,
    ::testing::Values(
        "backend: {type: slurm, partition: gpu}\n",
        "backend:\n  type: slurm\n  account: a\n  qos: q\n  time: 2h\n  cpus_per_trial: 4\n"
        "  poll_interval: 1s\n  max_poll_interval: 5s\n  max_jobs: 3\n  extra_args: [--exclusive]\n",
        "resources: {gpus: [0, 2], gpus_per_trial: 2, max_concurrent: 3}\n",
        "resources: {gpus: none, cpu_slots: 3}\n",
        "resources: {trials_per_gpu: 2}\n",
        "timeout: 90s\n",
        "kill_grace: 3s\n",
        "templates:\n  - {src: setup.mustache, dst: setup.py}\n",
        "output_dir: elsewhere\n",
        "max_failures: 4\n",
        "max_failures: {fraction: 0.5, after: 4}\n"));

// The defect this path fixes, as a user met it: a NAS search sent to SLURM.
TEST(OneConfigPathNasTest, NasWithASlurmBackendRunsOnSlurm) {
  auto config = ParseConfig(std::string(kNasHead) + "backend: {type: slurm, partition: gpu}\n",
                            "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_TRUE(config->nas);
  EXPECT_EQ(config->backend.kind, BackendKind::kSlurm);
  EXPECT_EQ(config->backend.slurm.partition, "gpu");
  EXPECT_EQ(config->backend.line, 6);
}

// A dry run keeps the backend: its evaluations run where the real search's would.
TEST(OneConfigPathNasTest, ADryRunKeepsItsBackend) {
  auto config = ParseConfig(
      "name: e\ncommand: [a]\nmetric: {name: m, mode: max}\n"
      "nas: {dry_run: true, operations: {conv: {filters: [16]}}}\n"
      "backend: {type: slurm, partition: gpu}\n",
      "exp.yaml");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->name, "e-dry-run");
  EXPECT_EQ(config->backend.kind, BackendKind::kSlurm);
}

}  // namespace
}  // namespace gpusweep
