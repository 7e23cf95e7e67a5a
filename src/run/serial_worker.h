// serial_worker.h — one background thread that runs jobs in the order they came.
//
// The run loop hands it the journal's fsync after each group commit, so the sync runs
// while trials start. One long-lived thread instead of std::async's thread per commit:
// creating and tearing down a thread (stack mapping, clone, join) for every commit cost
// the loop more than the commit's own bookkeeping on tiny trials.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

#include "gpusweep/status.h"

namespace gpusweep {

class SerialWorker {
 public:
  SerialWorker() = default;
  // Runs every job already submitted, then joins the thread.
  ~SerialWorker();
  SerialWorker(const SerialWorker&) = delete;
  SerialWorker& operator=(const SerialWorker&) = delete;

  // Queues `job`; the future holds its Status once it ran. Jobs run one at a time, in
  // submission order, on one thread started by the first Submit.
  std::future<Status> Submit(std::function<Status()> job);

 private:
  void Loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<Status()>> jobs_;  // guarded by mutex_
  bool stopping_ = false;                          // guarded by mutex_
  std::thread thread_;
};

}  // namespace gpusweep
