// process_group.cc — /proc inspection and clean-up of trial process groups left behind
// by an earlier gpusweep that was killed.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "process/process_runner.h"
#include "common/unique_fd.h"

namespace gpusweep {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kGroupPollInterval = std::chrono::milliseconds(20);
constexpr double kGroupAfterKillWaitSeconds = 1.0;

// The fields of /proc/<pid>/stat that we use (proc(5) numbering in comments).
struct ProcStat {
  char state = '?';              // field 3: R, S, D, Z, ...
  int process_group = 0;         // field 5
  std::uint64_t start_ticks = 0; // field 22
};

std::optional<std::string> ReadSmallFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  std::string content;
  char buffer[1024];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return content;
    content.append(buffer, static_cast<std::size_t>(n));
  }
}

template <class T>
bool ParseNumber(std::string_view text, T* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

// The process name (field 2) is in parentheses and may itself contain spaces and ')',
// so the other fields are counted from the last ')'.
std::optional<ProcStat> ReadProcStat(int pid) {
  std::optional<std::string> text = ReadSmallFile("/proc/" + std::to_string(pid) + "/stat");
  if (!text) return std::nullopt;
  const std::size_t name_end = text->rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3
  std::string_view rest = std::string_view(*text).substr(name_end + 1);
  while (!rest.empty()) {
    const std::size_t start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::size_t end = std::min(rest.find_first_of(" \n"), rest.size());
    fields.push_back(rest.substr(0, end));
    rest.remove_prefix(end);
  }
  ProcStat stat;
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  stat.state = fields[0][0];
  if (!ParseNumber(fields[2], &stat.process_group)) return std::nullopt;
  if (!ParseNumber(fields[19], &stat.start_ticks)) return std::nullopt;
  return stat;
}

bool IsLive(const ProcStat& stat) { return stat.state != 'Z' && stat.state != 'X'; }

// True while group `pgid` has a live member, or the leader (if `leader_ticks` is set:
// the process `pgid` with that start time) is alive, possibly having left its group.
bool StaleProcessesRemain(int pgid, std::optional<std::uint64_t> leader_ticks) {
  if (!ProcessesInGroup(pgid).empty()) return true;
  if (!leader_ticks) return false;
  std::optional<ProcStat> leader = ReadProcStat(pgid);
  return leader && IsLive(*leader) && leader->start_ticks == *leader_ticks;
}

// Polls until StaleProcessesRemain is false; false if `seconds` passed first.
bool WaitUntilGone(int pgid, std::optional<std::uint64_t> leader_ticks, double seconds) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::max(seconds, 0.0)));
  for (;;) {
    if (!StaleProcessesRemain(pgid, leader_ticks)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kGroupPollInterval);
  }
}

// True if group `pgid` still has a live member that we may signal.
bool GroupHasLiveMembers(int pgid) {
  return ::kill(-pgid, 0) == 0 && !ProcessesInGroup(pgid).empty();
}

}  // namespace

std::optional<std::uint64_t> ProcessStartTicks(int pid) {
  if (pid <= 0) return std::nullopt;
  std::optional<ProcStat> stat = ReadProcStat(pid);
  if (!stat) return std::nullopt;
  return stat->start_ticks;
}

std::vector<int> ProcessesInGroup(int pgid) {
  std::vector<int> pids;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), &::closedir);
  if (!proc || pgid <= 0) return pids;
  while (const dirent* entry = ::readdir(proc.get())) {
    int pid = 0;
    if (!ParseNumber(std::string_view(entry->d_name), &pid)) continue;
    std::optional<ProcStat> stat = ReadProcStat(pid);  // may have exited meanwhile
    if (stat && stat->process_group == pgid && IsLive(*stat)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

bool KillStaleProcessGroup(int pid, std::uint64_t start_ticks, double grace_seconds) {
  if (pid <= 1) return false;  // kill(-1) and kill(0) mean "everyone" / "our own group"
  const std::optional<std::uint64_t> ticks = ProcessStartTicks(pid);
  if (ticks) {
    // A different start time means the pid was reused; then the old group is gone too,
    // since Linux does not reuse a pid while a process group with that id exists.
    if (*ticks != start_ticks) return false;
  } else if (!GroupHasLiveMembers(pid)) {
    return false;
  }
  if (::kill(-pid, SIGTERM) != 0) {
    // ESRCH: the leader is alive but no longer leads group `pid`; signal it alone.
    if (errno != ESRCH || !ticks || ::kill(pid, SIGTERM) != 0) return false;
  }
  if (WaitUntilGone(pid, ticks, grace_seconds)) return true;
  ::kill(-pid, SIGKILL);
  if (ticks) ::kill(pid, SIGKILL);
  WaitUntilGone(pid, ticks, kGroupAfterKillWaitSeconds);
  return true;
}

}  // namespace gpusweep
