#include "run/serial_worker.h"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace gpusweep {
namespace {

TEST(SerialWorkerTest, RunsJobsInOrderOnOneOtherThreadAndReportsTheirStatus) {
  SerialWorker worker;
  std::vector<int> order;  // written only by the worker's thread, read after the futures
  std::vector<std::thread::id> threads;
  std::vector<std::future<Status>> done;
  for (int i = 0; i < 20; ++i)
    done.push_back(worker.Submit([&, i]() -> Status {
      order.push_back(i);
      threads.push_back(std::this_thread::get_id());
      if (i == 7) return Fail(ErrorCode::kIo, "job 7 failed");
      return {};
    }));
  for (int i = 0; i < 20; ++i) {
    const Status status = done[i].get();
    EXPECT_EQ(static_cast<bool>(status), i != 7) << i;
  }
  ASSERT_EQ(order.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[i], i);
  for (const std::thread::id& id : threads) {
    EXPECT_EQ(id, threads.front());
    EXPECT_NE(id, std::this_thread::get_id());
  }
}

TEST(SerialWorkerTest, DestructionRunsWhatWasQueued) {
  std::atomic<int> ran = 0;
  std::future<Status> last;
  {
    SerialWorker worker;
    for (int i = 0; i < 5; ++i) last = worker.Submit([&]() -> Status {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ++ran;
      return {};
    });
  }
  EXPECT_EQ(ran.load(), 5);
  EXPECT_TRUE(last.get());
}

}  // namespace
}  // namespace gpusweep
