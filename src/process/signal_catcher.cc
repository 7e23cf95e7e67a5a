// signal_catcher.cc — record-only signal handlers plus a ppoll sleep (see signal_catcher.h).
#include "process/signal_catcher.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <ctime>

namespace gpusweep {
namespace {

constexpr std::array<int, 4> kCaughtSignals = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};

// Shared with the async handlers: lock-free atomics are async-signal-safe.
std::atomic<int> g_interrupt_signal{0};
std::atomic<int> g_wake_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free);

void RecordSignal(int sig) {
  const int saved_errno = errno;  // write() may clobber the interrupted code's errno
  if (sig != SIGCHLD) g_interrupt_signal.store(sig);
  const int fd = g_wake_fd.load();
  if (fd >= 0) {
    const char byte = 0;
    [[maybe_unused]] ssize_t ignored = ::write(fd, &byte, 1);  // full pipe: already awake
  }
  errno = saved_errno;
}

timespec ToTimespec(double seconds) {
  timespec ts;
  ts.tv_sec = static_cast<time_t>(std::floor(seconds));
  ts.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
  return ts;
}

}  // namespace

SignalCatcher::SignalCatcher() {
  sigset_t caught;
  sigemptyset(&caught);
  for (int sig : kCaughtSignals) sigaddset(&caught, sig);
  pthread_sigmask(SIG_BLOCK, &caught, &previous_mask_);
  sleep_mask_ = previous_mask_;
  for (int sig : kCaughtSignals) sigdelset(&sleep_mask_, sig);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    wake_read_.Reset(fds[0]);
    wake_write_.Reset(fds[1]);
    g_wake_fd.store(fds[1]);
  }  // else: degrade to the ppoll mask alone, which suffices in a single-threaded program
  g_interrupt_signal.store(0);

  struct sigaction action = {};
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kCaughtSignals.size(); ++i) {
    // SA_RESTART spares other threads EINTRs; ppoll is never restarted, so it still wakes.
    // SA_NOCLDSTOP: a stopped child is not an event we act on.
    action.sa_flags = SA_RESTART | (kCaughtSignals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
    sigaction(kCaughtSignals[i], &action, &previous_actions_[i]);
  }
}

SignalCatcher::~SignalCatcher() {
  for (std::size_t i = 0; i < kCaughtSignals.size(); ++i) {
    sigaction(kCaughtSignals[i], &previous_actions_[i], nullptr);
  }
  g_wake_fd.store(-1);
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void SignalCatcher::SleepUntilSignal(std::optional<double> timeout_seconds) {
  pollfd wake = {wake_read_.get(), POLLIN, 0};
  const nfds_t fd_count = wake_read_.valid() ? 1 : 0;
  timespec timeout;
  if (timeout_seconds) timeout = ToTimespec(*timeout_seconds);
  // Returns 0 on timeout, > 0 for the pipe, or -1 with EINTR when a handler ran: all
  // three just mean "go and look"; the caller loops with the remaining time.
  ::ppoll(fd_count ? &wake : nullptr, fd_count, timeout_seconds ? &timeout : nullptr,
          &sleep_mask_);
  DrainWakePipe();
}

int SignalCatcher::TakeInterrupt() { return g_interrupt_signal.exchange(0); }

void SignalCatcher::DrainWakePipe() {
  if (!wake_read_.valid()) return;
  char buffer[64];
  while (::read(wake_read_.get(), buffer, sizeof buffer) > 0) {
  }
}

}  // namespace gpusweep
