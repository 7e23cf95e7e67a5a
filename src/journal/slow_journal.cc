// slow_journal.cc — a journal on a simulated slow disk (see journal.h: WithSlowDisk).
#include <chrono>
#include <thread>

#include "journal/forwarding_journal.h"

namespace gpusweep {
namespace {

class SlowJournal final : public ForwardingJournal {
 public:
  SlowJournal(std::unique_ptr<Journal> inner, double seconds)
      : ForwardingJournal(std::move(inner)),
        delay_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(seconds))) {}

  Status Apply(const std::vector<JournalWrite>& w, Durability d) override {
    std::this_thread::sleep_for(delay_);
    return ForwardingJournal::Apply(w, d);
  }
  Expected<std::function<Status()>> SyncLater() override {
    GS_ASSIGN_OR_RETURN(std::function<Status()> sync, ForwardingJournal::SyncLater());
    return std::function<Status()>([sync = std::move(sync), delay = delay_] {
      std::this_thread::sleep_for(delay);  // a slow fsync
      return sync();
    });
  }
  Status Sync() override {
    GS_ASSIGN_OR_RETURN(std::function<Status()> sync, SyncLater());
    return sync();
  }

 private:
  std::chrono::steady_clock::duration delay_;
};

}  // namespace

std::unique_ptr<Journal> WithSlowDisk(std::unique_ptr<Journal> journal, double seconds) {
  if (seconds <= 0) return journal;
  return std::make_unique<SlowJournal>(std::move(journal), seconds);
}

}  // namespace gpusweep
