#include <dlfcn.h>
#include <stdlib.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "resources/fake_nvml_test_util.h"
#include "resources/nvml_probe.h"

namespace gpusweep {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

TEST(NvmlProbeTest, RealProbeWithoutNvmlReportsNoGpu) {
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbe()->ListGpus();
  void* real = dlopen(kNvmlLibrary, RTLD_NOW | RTLD_LOCAL);
  if (real == nullptr) {
    ASSERT_TRUE(gpus) << gpus.error().message;
    EXPECT_THAT(*gpus, IsEmpty());
    return;
  }
  dlclose(real);
  // A machine with a driver: whatever it reports must be well-formed.
  ASSERT_TRUE(gpus) << gpus.error().message;
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    EXPECT_EQ((*gpus)[i].index, static_cast<int>(i));
    EXPECT_THAT((*gpus)[i].uuid, ::testing::StartsWith("GPU-"));
    EXPECT_GT((*gpus)[i].memory_total_bytes, 0u);
  }
}

TEST(NvmlProbeTest, MissingLibraryMeansNoGpu) {
  Expected<std::vector<GpuInfo>> gpus =
      MakeNvmlProbeForLibrary("/nonexistent/libnvidia-ml.so.1")->ListGpus();
  ASSERT_TRUE(gpus);
  EXPECT_THAT(*gpus, IsEmpty());
}

TEST(NvmlProbeTest, ListsEveryGpuAndShutsNvmlDown) {
  FakeNvml fake(GS_FAKE_NVML_PATH);
  ASSERT_TRUE(fake.loaded()) << dlerror();
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ListGpus();
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_THAT(*gpus, SizeIs(2));
  EXPECT_EQ((*gpus)[0].index, 0);
  EXPECT_EQ((*gpus)[0].name, "Fake A100");
  EXPECT_EQ((*gpus)[0].uuid, "GPU-aaaa0000");
  EXPECT_EQ((*gpus)[0].memory_total_bytes, 40ULL << 30);
  EXPECT_EQ((*gpus)[1].index, 1);
  EXPECT_EQ((*gpus)[1].name, "Fake H100");
  EXPECT_EQ((*gpus)[1].uuid, "GPU-bbbb1111");
  EXPECT_EQ((*gpus)[1].memory_total_bytes, 80ULL << 30);
  EXPECT_EQ(fake.init_calls(), 1);
  EXPECT_EQ(fake.open_sessions(), 0);
}

TEST(NvmlProbeTest, DriverNotLoadedMeansNoGpu) {
  ScopedFakeMode mode("driver_not_loaded");
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ListGpus();
  ASSERT_TRUE(gpus) << gpus.error().message;
  EXPECT_THAT(*gpus, IsEmpty());
}

TEST(NvmlProbeTest, NoDevicesMeansNoGpu) {
  ScopedFakeMode mode("no_devices");
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ListGpus();
  ASSERT_TRUE(gpus) << gpus.error().message;
  EXPECT_THAT(*gpus, IsEmpty());
}

TEST(NvmlProbeTest, FailingInitIsAnErrorWithNvmlText) {
  ScopedFakeMode mode("init_fails");
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ListGpus();
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::kResource);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlInit_v2 failed: Unknown Error (code 999)"));
}

TEST(NvmlProbeTest, FailingDeviceQueryIsAnErrorAndStillShutsDown) {
  FakeNvml fake(GS_FAKE_NVML_PATH);
  ASSERT_TRUE(fake.loaded()) << dlerror();
  ScopedFakeMode mode("name_fails");
  Expected<std::vector<GpuInfo>> gpus = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ListGpus();
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::kResource);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlDeviceGetName(GPU 1) failed: GPU is lost"));
  EXPECT_EQ(fake.open_sessions(), 0);
}

TEST(NvmlProbeTest, LibraryLackingAFunctionIsAnError) {
  Expected<std::vector<GpuInfo>> gpus =
      MakeNvmlProbeForLibrary(GS_FAKE_NVML_NO_UUID_PATH)->ListGpus();
  ASSERT_FALSE(gpus);
  EXPECT_EQ(gpus.error().code, ErrorCode::kResource);
  EXPECT_THAT(gpus.error().message, HasSubstr("nvmlDeviceGetUUID"));
}

}  // namespace
}  // namespace gpusweep
