// NvmlProbe::ReadMemory against the fake libnvidia-ml, whose memory a script file sets.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/temp_dir_for_tests.h"
#include "resources/fake_nvml_test_util.h"
#include "resources/nvml_probe.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;

class NvmlMemoryTest : public ::testing::Test {
 protected:
  void Script(const std::string& text) {
    // Written aside and renamed, so a reading never sees half a file.
    const auto next = dir_.path() / "script.next";
    std::ofstream(next) << text;
    std::filesystem::rename(next, script_);
  }
  test_support::TempDir dir_;
  std::filesystem::path script_ = dir_.path() / "script";
  ScopedFakeEnv env_{"FAKE_NVML_SCRIPT", script_.c_str()};
};

TEST_F(NvmlMemoryTest, ReadsUsedFreeAndProcesses) {
  const int me = static_cast<int>(getpid());
  Script("gpu 0 used 1073741824\n"
         "proc 0 " + std::to_string(me) + " 4294967296\n"
         "proc 1 " + std::to_string(me) + " 2147483648\n");
  auto probe = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH);
  auto readings = probe->ReadMemory({0, 1});
  ASSERT_TRUE(readings) << readings.error().message;
  ASSERT_THAT(*readings, SizeIs(2));
  const GpuMemoryReading& gpu0 = (*readings)[0];
  EXPECT_EQ(gpu0.index, 0);
  EXPECT_EQ(gpu0.total_bytes, 40 * kGiB);
  EXPECT_EQ(gpu0.used_bytes, 5 * kGiB);
  EXPECT_EQ(gpu0.free_bytes, 35 * kGiB);
  ASSERT_THAT(gpu0.processes, SizeIs(1));
  EXPECT_EQ(gpu0.processes[0].pid, me);
  EXPECT_EQ(gpu0.processes[0].used_bytes, 4 * kGiB);
  EXPECT_EQ((*readings)[1].used_bytes, 2 * kGiB);
  EXPECT_EQ((*readings)[1].total_bytes, 80 * kGiB);
}

TEST_F(NvmlMemoryTest, KeepsOneSessionOpenUntilTheProbeGoes) {
  FakeNvml fake(GS_FAKE_NVML_PATH);
  ASSERT_TRUE(fake.loaded());
  const int before = fake.init_calls();
  {
    auto probe = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(probe->ReadMemory({0}));
    EXPECT_EQ(fake.init_calls(), before + 1);
    EXPECT_EQ(fake.open_sessions(), 1);
  }
  EXPECT_EQ(fake.open_sessions(), 0);
}

TEST_F(NvmlMemoryTest, ADeadProcessLingersAsScriptedThenGoes) {
  // A child that has exited and been reaped: its pid is dead.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  Script("proc 0 " + std::to_string(child) + " 1073741824 keep\n");
  auto probe = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH);
  auto kept = probe->ReadMemory({0});
  ASSERT_TRUE(kept);
  EXPECT_THAT((*kept)[0].processes, SizeIs(1));  // the driver still lists it
  Script("proc 0 " + std::to_string(child) + " 1073741824\n");
  auto gone = probe->ReadMemory({0});
  ASSERT_TRUE(gone);
  EXPECT_THAT((*gone)[0].processes, IsEmpty());
  EXPECT_EQ((*gone)[0].used_bytes, 0u);
}

TEST_F(NvmlMemoryTest, AFailingGpuIsAnErrorNamingTheCall) {
  ScopedFakeMode mode("memory_fails");
  auto readings = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ReadMemory({0, 1});
  ASSERT_FALSE(readings);
  EXPECT_EQ(readings.error().code, ErrorCode::kResource);
  EXPECT_THAT(readings.error().message, HasSubstr("nvmlDeviceGetMemoryInfo(GPU 1) failed: GPU is lost"));
}

TEST_F(NvmlMemoryTest, NoNvmlMeansNoReadings) {
  auto readings = MakeNvmlProbeForLibrary("/nonexistent/libnvidia-ml.so.1")->ReadMemory({0});
  ASSERT_TRUE(readings);
  EXPECT_THAT(*readings, IsEmpty());
  ScopedFakeMode mode("driver_not_loaded");
  auto unloaded = MakeNvmlProbeForLibrary(GS_FAKE_NVML_PATH)->ReadMemory({0});
  ASSERT_TRUE(unloaded);
  EXPECT_THAT(*unloaded, IsEmpty());
}

}  // namespace
}  // namespace gpusweep
