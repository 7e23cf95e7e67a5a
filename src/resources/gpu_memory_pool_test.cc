// GpuPool with memory readings: sharing limits, reservations, the release check,
// quarantine and recovery, foreign processes. Readings are written by hand here; the
// NVML path that produces them is tested in nvml_memory_test.cc and the run tests.
#include <climits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

constexpr std::uint64_t kGiB = 1024ull * 1024 * 1024;
constexpr std::uint64_t kTotal = 40 * kGiB;

// A reading of GPU `index` with `unlisted` bytes no process accounts for plus `processes`.
GpuMemoryReading Reading(int index, std::uint64_t unlisted,
                         std::vector<GpuProcessMemory> processes = {}) {
  std::uint64_t used = unlisted;
  for (const GpuProcessMemory& p : processes) used += p.used_bytes.value_or(0);
  return GpuMemoryReading{index, kTotal, used, kTotal - used, std::move(processes)};
}

// GpuSharing with the fields a test sets (designated initializers would leave the others
// to -Wmissing-field-initializers).
GpuSharing Sharing(int trials_per_gpu, std::optional<std::uint64_t> memory_per_trial = {},
                   std::uint64_t min_free = 0, double release_timeout = 30) {
  GpuSharing sharing;
  sharing.trials_per_gpu = trials_per_gpu;
  sharing.memory_per_trial = memory_per_trial;
  sharing.min_free_memory = min_free;
  sharing.release_timeout_seconds = release_timeout;
  return sharing;
}

std::vector<GpuNotice::Kind> Kinds(const std::vector<GpuNotice>& notices) {
  std::vector<GpuNotice::Kind> kinds;
  for (const GpuNotice& n : notices) kinds.push_back(n.kind);
  return kinds;
}

TEST(GpuSharingTest, FromConfig) {
  ResourcesConfig resources;
  EXPECT_EQ(GpuSharingFrom(resources).trials_per_gpu, 1);  // exclusive by default
  resources.gpu_memory_per_trial = 10 * kGiB;
  EXPECT_EQ(GpuSharingFrom(resources).trials_per_gpu, INT_MAX);  // memory decides
  EXPECT_EQ(TrialsPerGpu(GpuSharingFrom(resources), 80 * kGiB), 8);
  resources.trials_per_gpu = 4;
  EXPECT_EQ(TrialsPerGpu(GpuSharingFrom(resources), 80 * kGiB), 4);
  EXPECT_EQ(TrialsPerGpu(GpuSharingFrom(resources), 5 * kGiB), 1);  // never below one
}

TEST(GpuSharingTest, NeverMoreTrialsOnAGpuThanTheCount) {
  GpuPool pool({0, 1}, Sharing(3));
  std::vector<int> order;
  for (int trial = 0; trial < 6; ++trial) {
    auto got = pool.TryAcquire(1, trial);
    ASSERT_TRUE(got) << trial;
    order.push_back(got->front());
  }
  EXPECT_THAT(order, ElementsAre(0, 1, 0, 1, 0, 1));  // spread before stacking
  EXPECT_EQ(pool.TryAcquire(1, 6), std::nullopt);
  EXPECT_EQ(pool.free_count(), 0);
  pool.Release(2, 0);
  EXPECT_THAT(pool.TryAcquire(1, 6), Optional(ElementsAre(0)));
}

TEST(GpuSharingTest, ReservationsKeepTwoLaunchesFromTakingTheSameMemory) {
  GpuPool pool({0}, Sharing(8, 10 * kGiB));
  pool.Observe({Reading(0, 15 * kGiB)}, 1);  // 25 GiB free
  EXPECT_TRUE(pool.TryAcquire(1, 0));
  EXPECT_TRUE(pool.TryAcquire(1, 1));
  // Same reading, same instant: 25 GiB free but 20 GiB promised to trials 0 and 1.
  EXPECT_EQ(pool.TryAcquire(1, 2), std::nullopt);
  EXPECT_TRUE(pool.Waiting());
  auto notices = pool.TakeNotices();
  ASSERT_THAT(Kinds(notices), ElementsAre(GpuNotice::Kind::kLowMemory));
  EXPECT_THAT(notices[0].message,
              HasSubstr("GPU 0 not used for now: 25.0 GiB free, 20.0 GiB of it reserved by its "
                        "running trials, a trial needs 10.0 GiB"));
  // They allocated 4 GiB each: 6 GiB each is still theirs, 17 GiB is free.
  pool.Attribute(0, {100});
  pool.Attribute(1, {101});
  pool.Observe({Reading(0, 15 * kGiB, {{100, 4 * kGiB}, {101, 4 * kGiB}})}, 2);
  EXPECT_EQ(pool.TryAcquire(1, 2), std::nullopt);  // 17 - 12 = 5 GiB < 10 GiB
  EXPECT_THAT(pool.TakeNotices(), IsEmpty());       // told once until it gets a trial
  pool.Observe({Reading(0, 5 * kGiB, {{100, 10 * kGiB}, {101, 10 * kGiB}})}, 3);
  EXPECT_TRUE(pool.TryAcquire(1, 2));  // 10 GiB free, nothing left reserved
}

TEST(GpuSharingTest, NeverMoreMemoryThanFree) {
  // Random declared sizes would be a test of arithmetic; instead: fill one GPU with
  // trials that each really allocate what they declared, then it is full.
  GpuPool pool({0}, Sharing(100, 6 * kGiB));
  std::vector<GpuProcessMemory> processes;
  int started = 0;
  for (int round = 0; round < 10; ++round) {
    pool.Observe({Reading(0, 1 * kGiB, processes)}, round);
    while (pool.TryAcquire(1, started)) {
      pool.Attribute(started, {1000 + started});
      processes.push_back({1000 + started, 6 * kGiB});
      ++started;
    }
  }
  EXPECT_EQ(started, 6);  // 6 * 6 GiB <= 39 GiB free < 7 * 6 GiB
}

TEST(GpuMemoryFloorTest, ForeignMemoryIsReportedAndRespected) {
  GpuPool pool({0, 1}, Sharing(1, {}, 8 * kGiB));
  const std::vector<GpuMemoryReading> busy{Reading(0, 0, {{4242, 35 * kGiB}}), Reading(1, 0)};
  pool.Observe(busy, 1);
  EXPECT_THAT(pool.TakeNotices(), IsEmpty());  // once could be a trial's new child
  pool.Observe(busy, 2);
  auto notices = pool.TakeNotices();
  ASSERT_THAT(Kinds(notices), ElementsAre(GpuNotice::Kind::kForeignMemory));
  EXPECT_EQ(notices[0].message,
            "GPU 0: pid 4242 holds 35.0 GiB; gpusweep did not start it (5.0 GiB of 40.0 GiB free)");
  EXPECT_THAT(pool.TryAcquire(1, 0), Optional(ElementsAre(1)));  // GPU 0 has 5 GiB < 8 GiB
  EXPECT_EQ(pool.TryAcquire(1, 1), std::nullopt);
  EXPECT_THAT(Kinds(pool.TakeNotices()), ElementsAre(GpuNotice::Kind::kLowMemory));
  pool.Observe({Reading(0, 0), Reading(1, 0)}, 3);  // the other job ended
  EXPECT_THAT(pool.TryAcquire(1, 1), Optional(ElementsAre(0)));
}

// A trial on GPU 0 that allocated 10 GiB (pid 100) and ended at t=10.
class GpuReleaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pool_.Observe({Reading(0, kGiB / 2)}, 0);
    ASSERT_THAT(pool_.TryAcquire(1, 7), Optional(ElementsAre(0)));
    pool_.Attribute(7, {100});
    pool_.Observe({Reading(0, kGiB / 2, {{100, 10 * kGiB}})}, 5);
    EXPECT_THAT(pool_.Release(7, 10), Optional(10 * kGiB));  // its peak
  }
  GpuPool pool_{{0}, Sharing(1)};
};

TEST_F(GpuReleaseTest, MemoryStillHeldDelaysReuse) {
  pool_.Settle(10);
  EXPECT_EQ(pool_.TryAcquire(1, 8), std::nullopt);  // no reading since it ended
  EXPECT_TRUE(pool_.Waiting());
  pool_.Observe({Reading(0, kGiB / 2, {{100, 10 * kGiB}})}, 11);  // the driver lags
  pool_.Settle(11);
  EXPECT_EQ(pool_.TryAcquire(1, 8), std::nullopt);
  pool_.Observe({Reading(0, kGiB / 2)}, 12);
  pool_.Settle(12);
  EXPECT_FALSE(pool_.Waiting());
  EXPECT_THAT(pool_.TryAcquire(1, 8), Optional(ElementsAre(0)));
  EXPECT_THAT(pool_.TakeNotices(), IsEmpty());
}

TEST_F(GpuReleaseTest, UnaccountedMemoryBeyondTheToleranceDelaysReuse) {
  // No process listed (e.g. one in another PID namespace) but 3 GiB more used than before.
  pool_.Observe({Reading(0, kGiB / 2 + 3 * kGiB)}, 11);
  pool_.Settle(11);
  EXPECT_EQ(pool_.TryAcquire(1, 8), std::nullopt);
  pool_.Observe({Reading(0, kGiB / 2 + 100 * 1024 * 1024)}, 12);  // within 256 MiB
  pool_.Settle(12);
  EXPECT_TRUE(pool_.TryAcquire(1, 8));
}

TEST_F(GpuReleaseTest, AProcessThatAppearedWhileItRanCountsAsItsOwn) {
  pool_.Observe({Reading(0, kGiB / 2, {{555, 2 * kGiB}})}, 11);  // never attributed
  pool_.Settle(11);
  EXPECT_EQ(pool_.TryAcquire(1, 8), std::nullopt);
}

TEST_F(GpuReleaseTest, PastTheTimeoutTheGpuIsQuarantinedThenRecovers) {
  const GpuMemoryReading stuck = Reading(0, kGiB / 2, {{100, 10 * kGiB}});
  pool_.Observe({stuck}, 39);
  pool_.Settle(39);
  EXPECT_THAT(pool_.TakeNotices(), IsEmpty());  // 29 s: still waiting
  pool_.Observe({stuck}, 40);
  pool_.Settle(40);
  auto notices = pool_.TakeNotices();
  ASSERT_THAT(Kinds(notices), ElementsAre(GpuNotice::Kind::kQuarantined));
  EXPECT_EQ(notices[0].gpu, 0);
  EXPECT_EQ(notices[0].trial, 7);
  EXPECT_EQ(notices[0].bytes, 10 * kGiB);
  EXPECT_THAT(notices[0].pids, ElementsAre(100));
  EXPECT_EQ(notices[0].message,
            "GPU 0 quarantined: trial 7 ended 30s ago but 10.0 GiB of GPU memory is still held "
            "(pid 100: 10.0 GiB); no trial goes to GPU 0 until it is freed, the sweep goes on "
            "with the other GPUs");
  EXPECT_THAT(pool_.Quarantined(), ElementsAre(0));
  EXPECT_TRUE(pool_.AllQuarantined());
  EXPECT_FALSE(pool_.Waiting());  // nothing will change by itself soon
  EXPECT_EQ(pool_.free_count(), 0);
  EXPECT_EQ(pool_.TryAcquire(1, 8), std::nullopt);
  pool_.Observe({Reading(0, kGiB / 2)}, 90);
  pool_.Settle(90);
  notices = pool_.TakeNotices();
  ASSERT_THAT(Kinds(notices), ElementsAre(GpuNotice::Kind::kRecovered));
  EXPECT_EQ(notices[0].message, "GPU 0 is in use again: the memory trial 7 left behind was freed");
  EXPECT_THAT(pool_.Quarantined(), IsEmpty());
  EXPECT_TRUE(pool_.TryAcquire(1, 8));
}

TEST(GpuReleaseSharedTest, OtherTrialsMemoryDoesNotHoldAReleaseBack) {
  GpuPool pool({0}, Sharing(2));
  pool.Observe({Reading(0, 0)}, 0);
  ASSERT_TRUE(pool.TryAcquire(1, 1));
  ASSERT_TRUE(pool.TryAcquire(1, 2));
  pool.Attribute(1, {101});
  pool.Attribute(2, {102});
  pool.Observe({Reading(0, 0, {{101, 5 * kGiB}, {102, 7 * kGiB}})}, 1);
  pool.Release(1, 2);
  pool.Observe({Reading(0, 0, {{102, 9 * kGiB}})}, 3);  // trial 2 still allocating
  pool.Settle(3);
  EXPECT_FALSE(pool.Waiting());
  EXPECT_TRUE(pool.TryAcquire(1, 3));
}

TEST(GpuReleaseSharedTest, StrangersHoldASharedGpuOnlyWhenPidsCanBeMatched) {
  // NVML's pids never match the trials' (gpusweep in a container of its own): a process
  // that appeared may be a sibling's, so only the trial's own pids would count.
  GpuPool blind({0}, Sharing(2));
  blind.Observe({Reading(0, 0)}, 0);
  ASSERT_TRUE(blind.TryAcquire(1, 1));
  ASSERT_TRUE(blind.TryAcquire(1, 2));
  blind.Attribute(1, {101});
  blind.Attribute(2, {102});
  blind.Observe({Reading(0, 0, {{90001, kGiB}, {90002, kGiB}})}, 1);
  blind.Release(1, 2);
  blind.Observe({Reading(0, 0, {{90002, kGiB}})}, 3);
  blind.Settle(3);
  EXPECT_TRUE(blind.TryAcquire(1, 3));
  // The same with pids that match: the stranger 555 appeared while trial 1 ran.
  GpuPool seeing({0}, Sharing(2));
  seeing.Observe({Reading(0, 0)}, 0);
  ASSERT_TRUE(seeing.TryAcquire(1, 1));
  ASSERT_TRUE(seeing.TryAcquire(1, 2));
  seeing.Attribute(1, {101});
  seeing.Attribute(2, {102});
  seeing.Observe({Reading(0, 0, {{101, kGiB}, {102, kGiB}})}, 1);
  seeing.Release(1, 2);
  seeing.Observe({Reading(0, 0, {{102, kGiB}, {555, kGiB}})}, 3);
  seeing.Settle(3);
  EXPECT_EQ(seeing.TryAcquire(1, 3), std::nullopt);
}

TEST(GpuReleaseSharedTest, AnUnreadableGpuIsQuarantinedAfterTheTimeout) {
  GpuPool pool({0, 1}, Sharing(1, {}, 0, 5));
  pool.Observe({Reading(0, 0), Reading(1, 0)}, 0);
  ASSERT_THAT(pool.TryAcquire(1, 1), Optional(ElementsAre(0)));
  pool.Release(1, 1);
  pool.Observe({Reading(1, 0)}, 3);  // GPU 0 could not be read any more
  pool.Settle(3);
  EXPECT_TRUE(pool.Waiting());
  pool.Observe({Reading(1, 0)}, 6);
  pool.Settle(6);
  auto notices = pool.TakeNotices();
  ASSERT_THAT(Kinds(notices), ElementsAre(GpuNotice::Kind::kQuarantined));
  EXPECT_THAT(notices[0].message, HasSubstr("its memory could not be read since trial 1 ended"));
  EXPECT_THAT(pool.TryAcquire(1, 2), Optional(ElementsAre(1)));  // the others go on
  EXPECT_FALSE(pool.AllQuarantined());
}

}  // namespace
}  // namespace gpusweep
