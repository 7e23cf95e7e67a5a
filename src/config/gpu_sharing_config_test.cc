// resources: trials_per_gpu, gpu_memory_per_trial, min_free_gpu_memory,
// gpu_release_timeout, gpu_release_tolerance, and the memory sizes they are written in.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config/config_test_util.h"
#include "gpusweep/config.h"

namespace gpusweep {
namespace {

using config_test::ParseError;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::uint64_t kMiB = 1024ull * 1024;
constexpr std::uint64_t kGiB = 1024 * kMiB;

constexpr std::string_view kHead =
    "name: e\n"
    "command: [a]\n"
    "metric: {name: m, mode: max}\n"
    "sampler: {type: grid}\n";

Expected<ExperimentConfig> Parse(std::string_view resources) {
  return ParseConfig(std::string(kHead) + std::string(resources), "exp.yaml");
}

TEST(ParseByteSizeTest, AcceptsBytesAndUnits) {
  EXPECT_EQ(ParseByteSize("1073741824"), 1073741824u);
  EXPECT_EQ(ParseByteSize("10GiB"), 10 * kGiB);
  EXPECT_EQ(ParseByteSize("512MiB"), 512 * kMiB);
  EXPECT_EQ(ParseByteSize("512 mib"), 512 * kMiB);
  EXPECT_EQ(ParseByteSize("1.5GiB"), 3 * kGiB / 2);
  EXPECT_EQ(ParseByteSize("2GB"), 2000000000u);
  EXPECT_EQ(ParseByteSize("3KiB"), 3072u);
  EXPECT_EQ(ParseByteSize("1TiB"), 1024 * kGiB);
  EXPECT_EQ(ParseByteSize("0"), 0u);
}

TEST(ParseByteSizeTest, RejectsWhatIsNotASize) {
  for (std::string_view bad : {"", "GiB", "10G", "10 gigs", "-1GiB", "0.5", "1e30TiB", "1..2MiB"}) {
    auto parsed = ParseByteSize(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_THAT(parsed.error().message, HasSubstr("is not a memory size")) << bad;
    EXPECT_THAT(parsed.error().message, HasSubstr("e.g. 10GiB")) << bad;
  }
}

TEST(GpuSharingConfigTest, DefaultsAreExclusiveWithAReleaseCheck) {
  auto config = Parse("");
  ASSERT_TRUE(config) << config.error().message;
  const ResourcesConfig& r = config->resources;
  EXPECT_EQ(r.trials_per_gpu, std::nullopt);
  EXPECT_EQ(r.gpu_memory_per_trial, std::nullopt);
  EXPECT_EQ(r.min_free_gpu_memory, 0u);
  EXPECT_EQ(r.gpu_release_timeout_seconds, 30);
  EXPECT_EQ(r.gpu_release_tolerance, 256 * kMiB);
}

TEST(GpuSharingConfigTest, ReadsEveryKey) {
  auto config = Parse(
      "resources:\n"
      "  trials_per_gpu: 4\n"
      "  gpu_memory_per_trial: 10GiB\n"
      "  min_free_gpu_memory: 2GiB\n"
      "  gpu_release_timeout: 2m\n"
      "  gpu_release_tolerance: 64MiB\n");
  ASSERT_TRUE(config) << config.error().message;
  const ResourcesConfig& r = config->resources;
  EXPECT_EQ(r.trials_per_gpu, 4);
  EXPECT_EQ(r.gpu_memory_per_trial, 10 * kGiB);
  EXPECT_EQ(r.min_free_gpu_memory, 2 * kGiB);
  EXPECT_EQ(r.gpu_release_timeout_seconds, 120);
  EXPECT_EQ(r.gpu_release_tolerance, 64 * kMiB);
  auto bytes = Parse("resources: {gpu_memory_per_trial: 1048576, gpu_release_timeout: 5}\n");
  ASSERT_TRUE(bytes) << bytes.error().message;
  EXPECT_EQ(bytes->resources.gpu_memory_per_trial, kMiB);
  EXPECT_EQ(bytes->resources.gpu_release_timeout_seconds, 5);
}

TEST(GpuSharingConfigTest, BadValuesAreLocated) {
  const std::string head(kHead);
  EXPECT_THAT(ParseError(head + "resources: {trials_per_gpu: 0}\n"),
              StartsWith("exp.yaml:5:29: resources.trials_per_gpu: found the integer 0, "
                         "expected an integer >= 1"));
  EXPECT_THAT(ParseError(head + "resources: {gpu_memory_per_trial: 10G}\n"),
              StartsWith("exp.yaml:5:35: resources.gpu_memory_per_trial: '10G' is not a "
                         "memory size (unknown unit)"));
  EXPECT_THAT(ParseError(head + "resources: {gpu_memory_per_trial: 0}\n"),
              HasSubstr("resources.gpu_memory_per_trial: a trial cannot run in 0 bytes"));
  EXPECT_THAT(ParseError(head + "resources: {min_free_gpu_memory: -5}\n"),
              HasSubstr("resources.min_free_gpu_memory: the memory size is negative"));
  EXPECT_THAT(ParseError(head + "resources: {min_free_gpu_memory: [1]}\n"),
              HasSubstr("resources.min_free_gpu_memory: found a list, expected a memory size"));
  EXPECT_THAT(ParseError(head + "resources: {gpu_release_timeout: soon}\n"),
              HasSubstr("resources.gpu_release_timeout: 'soon' is not a duration"));
  EXPECT_THAT(ParseError(head + "resources: {trials_per_gpus: 2}\n"),
              HasSubstr("did you mean 'trials_per_gpu'?"));
}

}  // namespace
}  // namespace gpusweep
