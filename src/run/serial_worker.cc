// serial_worker.cc — see serial_worker.h.
#include "run/serial_worker.h"

namespace gpusweep {

SerialWorker::~SerialWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::future<Status> SerialWorker::Submit(std::function<Status()> job) {
  std::packaged_task<Status()> task(std::move(job));
  std::future<Status> done = task.get_future();
  {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(task));
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  wake_.notify_one();
  return done;
}

void SerialWorker::Loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopping, and nothing left to run
    std::packaged_task<Status()> task = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace gpusweep
