// The `backend:` section: local (default) or SLURM, and its located errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: grid}\n";

Expected<ExperimentConfig> Parse(std::string_view backend) {
  return ParseConfig(std::string(kHead) + std::string(backend), "exp.yaml");
}

TEST(BackendParserTest, LocalIsTheDefault) {
  auto config = Parse("");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->backend.kind, BackendKind::kLocal);
  config = Parse("backend: local\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->backend.kind, BackendKind::kLocal);
}

TEST(BackendParserTest, SlurmTakesItsOptions) {
  auto config = Parse(
      "backend:\n"
      "  type: slurm\n"
      "  partition: gpu\n"
      "  account: lab\n"
      "  qos: short\n"
      "  time: 2h\n"
      "  extra_args: [--constraint=a100, --mem=8G]\n"
      "  cpus_per_trial: 4\n"
      "  poll_interval: 500ms\n"
      "  max_poll_interval: 10s\n"
      "  max_jobs: 32\n");
  ASSERT_TRUE(config) << config.error().message;
  const SlurmConfig& slurm = config->backend.slurm;
  EXPECT_EQ(config->backend.kind, BackendKind::kSlurm);
  EXPECT_EQ(slurm.partition, "gpu");
  EXPECT_EQ(slurm.account, "lab");
  EXPECT_EQ(slurm.qos, "short");
  EXPECT_EQ(slurm.time_seconds, 7200);
  EXPECT_THAT(slurm.extra_args, ::testing::ElementsAre("--constraint=a100", "--mem=8G"));
  EXPECT_EQ(slurm.cpus_per_trial, 4);
  EXPECT_DOUBLE_EQ(slurm.poll_interval_seconds, 0.5);
  EXPECT_DOUBLE_EQ(slurm.max_poll_interval_seconds, 10);
  EXPECT_EQ(slurm.max_jobs, 32);

  auto short_form = Parse("backend: slurm\n");
  ASSERT_TRUE(short_form) << short_form.error().message;
  EXPECT_EQ(short_form->backend.kind, BackendKind::kSlurm);
  EXPECT_EQ(short_form->backend.slurm.poll_interval_seconds, 2);
  EXPECT_EQ(short_form->backend.slurm.max_poll_interval_seconds, 30);
}

TEST(BackendParserTest, MistakesAreLocatedAndSayWhatWouldBeValid) {
  auto error = [](std::string_view backend) {
    auto config = Parse(backend);
    return config ? std::string("<parsed without error>") : config.error().message;
  };
  EXPECT_THAT(error("backend: kubernetes\n"), HasSubstr("exp.yaml:5:"));
  EXPECT_THAT(error("backend: kubernetes\n"), HasSubstr("local"));
  EXPECT_THAT(error("backend: {type: slurm, partiton: gpu}\n"), HasSubstr("did you mean 'partition'"));
  EXPECT_THAT(error("backend: {partition: gpu}\n"), HasSubstr("type: slurm"));
  EXPECT_THAT(error("backend: {type: slurm, partition: 'a b'}\n"),
              HasSubstr("'a b' is not a SLURM partition name"));
  EXPECT_THAT(error("backend: {type: slurm, time: 30s}\n"), HasSubstr("whole minutes"));
  EXPECT_THAT(error("backend: {type: slurm, extra_args: [constraint=a100]}\n"),
              HasSubstr("not an sbatch option"));
  EXPECT_THAT(error("backend: {type: slurm, extra_args: --mem=1G}\n"), HasSubstr("a list"));
  EXPECT_THAT(error("backend: {type: slurm, poll_interval: 5s, max_poll_interval: 1s}\n"),
              HasSubstr("shorter than poll_interval"));
  EXPECT_THAT(error("backend: {type: slurm, cpus_per_trial: 0}\n"), HasSubstr("cpus_per_trial"));
  EXPECT_THAT(error("backend: {type: local, partition: gpu}\n"), HasSubstr("takes no options"));
}

}  // namespace
}  // namespace gpusweep
