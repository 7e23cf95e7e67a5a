#include <sched.h>
#include <unistd.h>

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& key) -> std::optional<std::string> {
    auto it = vars.find(key);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(TrialResourceEnvTest, GpuTrialSeesExactlyItsGpusInPciOrder) {
  EXPECT_THAT(TrialResourceEnv({2, 3}, 16, 2, FakeEnv({})),
              ElementsAre(Pair("CUDA_VISIBLE_DEVICES", "2,3"),
                          Pair("CUDA_DEVICE_ORDER", "PCI_BUS_ID")));
}

TEST(TrialResourceEnvTest, CpuTrialHidesGpusAndSplitsCores) {
  EXPECT_THAT(TrialResourceEnv({}, 8, 4, FakeEnv({})),
              UnorderedElementsAre(Pair("CUDA_VISIBLE_DEVICES", ""), Pair("OMP_NUM_THREADS", "2"),
                                   Pair("MKL_NUM_THREADS", "2"),
                                   Pair("OPENBLAS_NUM_THREADS", "2")));
}

TEST(TrialResourceEnvTest, CpuTrialKeepsUserThreadSettings) {
  // The parent's OMP_NUM_THREADS is inherited as is: not overridden.
  EXPECT_THAT(TrialResourceEnv({}, 8, 2, FakeEnv({{"OMP_NUM_THREADS", "16"}})),
              UnorderedElementsAre(Pair("CUDA_VISIBLE_DEVICES", ""),
                                   Pair("MKL_NUM_THREADS", "4"),
                                   Pair("OPENBLAS_NUM_THREADS", "4")));
}

TEST(TrialResourceEnvTest, CpuTrialGetsAtLeastOneThread) {
  for (auto [cores, slots] : {std::pair{2, 4}, std::pair{8, 0}}) {
    auto env = TrialResourceEnv({}, cores, slots, FakeEnv({}));
    std::map<std::string, std::string> vars(env.begin(), env.end());
    EXPECT_EQ(vars["OMP_NUM_THREADS"], slots == 0 ? "8" : "1");
  }
}

TEST(CpuSlotsTest, DefaultsToCoresAndHonoursConfig) {
  ResourcesConfig config;
  EXPECT_EQ(CpuSlots(config, 8), 8);
  config.cpu_slots = 3;
  EXPECT_EQ(CpuSlots(config, 8), 3);
  config.max_concurrent = 2;
  EXPECT_EQ(CpuSlots(config, 8), 2);
  config.cpu_slots = std::nullopt;
  config.max_concurrent = 16;
  EXPECT_EQ(CpuSlots(config, 8), 8);
  config.max_concurrent = 0;
  EXPECT_EQ(CpuSlots(config, 8), 1);
}

// Restores this process's CPU affinity when the test ends.
class AffinityGuard {
 public:
  AffinityGuard() { saved_ok_ = sched_getaffinity(0, sizeof(saved_), &saved_) == 0; }
  ~AffinityGuard() {
    if (saved_ok_) sched_setaffinity(0, sizeof(saved_), &saved_);
  }
  bool ok() const { return saved_ok_; }
  const cpu_set_t& saved() const { return saved_; }

 private:
  cpu_set_t saved_;
  bool saved_ok_ = false;
};

TEST(UsableCpuCoresTest, FollowsAffinity) {
  AffinityGuard guard;
  ASSERT_TRUE(guard.ok());
  const int cores = UsableCpuCores();
  EXPECT_EQ(cores, CPU_COUNT(&guard.saved()));
  EXPECT_LE(cores, sysconf(_SC_NPROCESSORS_CONF));

  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(UsableCpuCores(), 1);
}

}  // namespace
}  // namespace gpusweep
