#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// Four GPUs; UUIDs 0 and 1 share the prefix "GPU-8f3c" so prefix matching can be
// ambiguous.
class FakeProbe : public GpuProbe {
 public:
  Expected<std::vector<GpuInfo>> ListGpus() override {
    return std::vector<GpuInfo>{
        {0, "Fake A", "GPU-8f3c0000-0000-0000-0000-000000000000", 80ULL << 30},
        {1, "Fake A", "GPU-8f3c1111-1111-1111-1111-111111111111", 80ULL << 30},
        {2, "Fake B", "GPU-12ab2222-2222-2222-2222-222222222222", 40ULL << 30},
        {3, "Fake B", "GPU-77ee3333-3333-3333-3333-333333333333", 40ULL << 30},
    };
  }
};

std::vector<GpuInfo> FourGpus() { return *FakeProbe().ListGpus(); }

ResourcesConfig Auto() { return ResourcesConfig{}; }

ResourcesConfig List(std::vector<int> gpus) {
  ResourcesConfig config;
  config.gpus = GpuMode::kList;
  config.gpu_list = std::move(gpus);
  return config;
}

ResourcesConfig NoGpus() {
  ResourcesConfig config;
  config.gpus = GpuMode::kNone;
  return config;
}

struct VisibleCase {
  std::optional<std::string> cuda_visible_devices;
  std::vector<int> expected;
  bool expect_warning;
};

// Readable test names in ctest output.
void PrintTo(const VisibleCase& c, std::ostream* os) {
  *os << "CUDA_VISIBLE_DEVICES=" << (c.cuda_visible_devices ? "\"" + *c.cuda_visible_devices + "\""
                                                            : std::string("unset"));
}

class CudaVisibleDevicesTest : public ::testing::TestWithParam<VisibleCase> {};

TEST_P(CudaVisibleDevicesTest, IntersectsDetectedGpus) {
  const VisibleCase& c = GetParam();
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), c.cuda_visible_devices, Auto(), std::nullopt);
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_EQ(allowed->indices, c.expected);
  EXPECT_THAT(allowed->warnings, SizeIs(c.expect_warning ? 1 : 0));
}

INSTANTIATE_TEST_SUITE_P(
    Table, CudaVisibleDevicesTest,
    ::testing::Values(VisibleCase{std::nullopt, {0, 1, 2, 3}, false},
                      VisibleCase{"1,3", {1, 3}, false},
                      VisibleCase{"3, 1", {1, 3}, false},  // sorted; spaces tolerated
                      VisibleCase{"", {}, false},          // empty means no GPU
                      VisibleCase{"GPU-12ab", {2}, false},  // unique UUID prefix
                      VisibleCase{"GPU-8F3C1111,0", {0, 1}, false},
                      VisibleCase{"GPU-77ee3333-3333-3333-3333-333333333333", {3}, false},
                      VisibleCase{"2,x,3", {2}, true},     // garbage ends the list
                      VisibleCase{"1,7,2", {1}, true},     // unknown index ends the list
                      VisibleCase{"0,GPU-8f3c,2", {0}, true},  // ambiguous prefix
                      VisibleCase{"GPU-ffff,1", {}, true},     // no UUID matches
                      VisibleCase{"0,0,1", {0}, true},         // duplicate ends the list
                      VisibleCase{"MIG-1234", {}, true},
                      VisibleCase{"1,", {1}, true},            // empty entry
                      VisibleCase{"-1", {}, false}));          // the usual "hide all"

TEST(ResolveAllowedGpusTest, WarningNamesTheIgnoredEntry) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus(FourGpus(), "2,x,3", Auto(), std::nullopt);
  ASSERT_TRUE(allowed);
  ASSERT_THAT(allowed->warnings, SizeIs(1));
  EXPECT_THAT(allowed->warnings[0], HasSubstr("\"x\""));
  EXPECT_THAT(allowed->warnings[0], HasSubstr("2,x,3"));
}

TEST(ResolveAllowedGpusTest, NoDetectedGpuGivesEmptyWithoutWarnings) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus({}, "0,1", Auto(), std::nullopt);
  ASSERT_TRUE(allowed);
  EXPECT_THAT(allowed->indices, IsEmpty());
  EXPECT_THAT(allowed->warnings, IsEmpty());
}

TEST(ResolveAllowedGpusTest, ConfigListIsUsedExactly) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus(FourGpus(), std::nullopt, List({3, 1}),
                                                     std::nullopt);
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_THAT(allowed->indices, ElementsAre(1, 3));
}

TEST(ResolveAllowedGpusTest, ConfigListWithUndetectedGpuFails) {
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), std::nullopt, List({1, 5}), std::nullopt);
  ASSERT_FALSE(allowed);
  EXPECT_EQ(allowed.error().code, ErrorCode::kInvalidConfig);
  EXPECT_THAT(allowed.error().message, HasSubstr("resources.gpus: lists GPU 5"));
  EXPECT_THAT(allowed.error().message, HasSubstr("GPU 5"));
  EXPECT_THAT(allowed.error().message, HasSubstr("not a detected GPU"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: 0,1,2,3"));
}

TEST(ResolveAllowedGpusTest, ConfigListWithHiddenGpuNamesCudaVisibleDevices) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus(FourGpus(), "1,3", List({2}), std::nullopt);
  ASSERT_FALSE(allowed);
  EXPECT_EQ(allowed.error().code, ErrorCode::kInvalidConfig);
  EXPECT_THAT(allowed.error().message, HasSubstr("GPU 2"));
  EXPECT_THAT(allowed.error().message, HasSubstr("CUDA_VISIBLE_DEVICES=\"1,3\" hides it"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: 1,3"));
}

TEST(ResolveAllowedGpusTest, ConfigListWithoutAnyGpuFails) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus({}, std::nullopt, List({0}), std::nullopt);
  ASSERT_FALSE(allowed);
  EXPECT_THAT(allowed.error().message, HasSubstr("no GPU was detected"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: none"));
}

TEST(ResolveAllowedGpusTest, ConfigNoneAllowsNothing) {
  Expected<AllowedGpus> allowed = ResolveAllowedGpus(FourGpus(), std::nullopt, NoGpus(),
                                                     std::nullopt);
  ASSERT_TRUE(allowed);
  EXPECT_THAT(allowed->indices, IsEmpty());
}

TEST(ResolveAllowedGpusTest, CliNarrowsTheAllowedSet) {
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), "0,1,2", Auto(), std::vector<int>{2, 0});
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_THAT(allowed->indices, ElementsAre(0, 2));

  allowed = ResolveAllowedGpus(FourGpus(), std::nullopt, List({0, 1}), std::vector<int>{1});
  ASSERT_TRUE(allowed) << allowed.error().message;
  EXPECT_THAT(allowed->indices, ElementsAre(1));

  allowed = ResolveAllowedGpus(FourGpus(), std::nullopt, Auto(), std::vector<int>{});
  ASSERT_TRUE(allowed);
  EXPECT_THAT(allowed->indices, IsEmpty());
}

TEST(ResolveAllowedGpusTest, CliGpuHiddenByCudaVisibleDevicesFails) {
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), "0,1", Auto(), std::vector<int>{0, 2});
  ASSERT_FALSE(allowed);
  EXPECT_EQ(allowed.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(allowed.error().message, HasSubstr("--gpus names GPU 2"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: 0,1"));
}

TEST(ResolveAllowedGpusTest, CliGpuOutsideConfigListFails) {
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), std::nullopt, List({0, 1}), std::vector<int>{3});
  ASSERT_FALSE(allowed);
  EXPECT_THAT(allowed.error().message, HasSubstr("GPU 3"));
  EXPECT_THAT(allowed.error().message, HasSubstr("the list in resources.gpus"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: 0,1"));
}

TEST(ResolveAllowedGpusTest, CliGpuWithConfigNoneFails) {
  Expected<AllowedGpus> allowed =
      ResolveAllowedGpus(FourGpus(), std::nullopt, NoGpus(), std::vector<int>{0});
  ASSERT_FALSE(allowed);
  EXPECT_THAT(allowed.error().message, HasSubstr("resources.gpus: none"));
  EXPECT_THAT(allowed.error().message, HasSubstr("available GPUs: none"));

  // The caller may not probe at all when the config says none.
  allowed = ResolveAllowedGpus({}, std::nullopt, NoGpus(), std::vector<int>{0});
  ASSERT_FALSE(allowed);
  EXPECT_THAT(allowed.error().message, HasSubstr("resources.gpus: none"));
}

TEST(ParseGpuListTest, ParsesIndicesInOrder) {
  EXPECT_THAT(*ParseGpuList("0,2,3"), ElementsAre(0, 2, 3));
  EXPECT_THAT(*ParseGpuList(" 3 , 1 "), ElementsAre(3, 1));
  EXPECT_THAT(*ParseGpuList("7"), ElementsAre(7));
  EXPECT_THAT(*ParseGpuList("none"), IsEmpty());
}

TEST(ParseGpuListTest, RejectsGarbage) {
  for (std::string_view bad : {"", " ", "0,,1", "0,", "a", "1a", "-1", "1.5", "0;1",
                               "99999999999999999999"}) {
    Expected<std::vector<int>> parsed = ParseGpuList(bad);
    ASSERT_FALSE(parsed) << "accepted \"" << bad << "\"";
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(ParseGpuListTest, RejectsDuplicates) {
  Expected<std::vector<int>> parsed = ParseGpuList("0,2,0");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument);
  EXPECT_THAT(parsed.error().message, HasSubstr("GPU 0 is listed twice"));
}

}  // namespace
}  // namespace gpusweep
