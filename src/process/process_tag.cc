// process_tag.cc — /proc scans for GPUSWEEP_PROCESS_TAG (see process_tag.h).
#include "process/process_tag.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "common/unique_fd.h"

namespace gpusweep {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTagPollInterval = std::chrono::milliseconds(20);
constexpr double kTagAfterKillWaitSeconds = 2.0;

bool ParsePid(std::string_view text, int* pid) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *pid);
  return error == std::errc() && end == text.data() + text.size() && *pid > 0;
}

}  // namespace

std::string ProcessTag(int pid) {
  UniqueFd fd(::open(("/proc/" + std::to_string(pid) + "/environ").c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return {};
  std::string environ;
  char buffer[8192];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    environ.append(buffer, static_cast<std::size_t>(n));
  }
  // Built with fmt: GCC 12 at -O2 takes `std::string(view) + "="` for an out-of-bounds
  // memcpy (-Warray-bounds, a known false positive of its string inlining).
  const std::string key = fmt::format("{}=", kProcessTagVariable);
  for (std::size_t begin = 0; begin < environ.size();) {
    std::size_t end = environ.find('\0', begin);
    if (end == std::string::npos) end = environ.size();
    if (environ.compare(begin, key.size(), key) == 0)
      return environ.substr(begin + key.size(), end - begin - key.size());
    begin = end + 1;
  }
  return {};
}

namespace {

bool IsZombie(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t name_end = text.rfind(')');
  return name_end == std::string::npos || name_end + 2 >= text.size() ||
         text[name_end + 2] == 'Z' || text[name_end + 2] == 'X';
}

// The program a process runs now (/proc/<pid>/comm; empty once it is gone).
std::string ProgramOf(int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

std::vector<int> ProcessesTagged(std::string_view prefix, std::string_view exclude_prefix) {
  std::vector<int> pids;
  std::unique_ptr<DIR, int (*)(DIR*)> proc(::opendir("/proc"), &::closedir);
  if (!proc || prefix.empty()) return pids;
  const int self = ::getpid();
  while (const dirent* entry = ::readdir(proc.get())) {
    int pid = 0;
    if (!ParsePid(entry->d_name, &pid) || pid == self) continue;
    const std::string tag = ProcessTag(pid);
    if (!tag.starts_with(prefix)) continue;
    if (!exclude_prefix.empty() && tag.starts_with(exclude_prefix)) continue;
    if (!IsZombie(pid)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::vector<int> OwnChildren() {
  std::vector<int> children;
  std::unique_ptr<DIR, int (*)(DIR*)> tasks(::opendir("/proc/self/task"), &::closedir);
  if (!tasks) return children;
  while (const dirent* entry = ::readdir(tasks.get())) {
    int tid = 0;
    if (!ParsePid(entry->d_name, &tid)) continue;
    std::ifstream file("/proc/self/task/" + std::to_string(tid) + "/children");
    int pid = 0;
    while (file >> pid) children.push_back(pid);
  }
  return children;
}

int StopTagged(std::string_view prefix, std::string_view exclude_prefix, double grace_seconds) {
  // Every scan SIGTERMs what it sees for the first time: a process that was in the middle
  // of an exec during an earlier scan showed no environment (so no tag) then, and one
  // forked since was not there yet; both deserve the grace, not a bare SIGKILL. It also
  // SIGTERMs again what has exec'd another program since: a shell's fork signalled
  // between its fork and its exec takes the TERM in the trap handler it inherited, and
  // then runs on as the new program (a trap's `sleep 300 &` did, and outlived the grace).
  std::map<int, std::string> signalled;  // pid -> the program it ran when signalled
  const auto terminate_new = [&] {
    const std::vector<int> tagged = ProcessesTagged(prefix, exclude_prefix);
    for (int pid : tagged) {
      std::string program = ProgramOf(pid);
      const auto [it, first_time] = signalled.try_emplace(pid, program);
      if (!first_time && it->second == program) continue;
      it->second = std::move(program);
      ::kill(pid, SIGTERM);
    }
    return tagged.empty();
  };
  if (terminate_new()) return 0;
  // Done after two empty scans in a row, a poll apart: a process forked by a dying one
  // (a shell's trap) can be in the middle of its exec during one scan and unseen.
  const auto wait = [&](double seconds, bool terminate) {
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(std::max(seconds, 0.0)));
    for (int empty_scans = 0; empty_scans < 2;) {
      const bool empty =
          terminate ? terminate_new() : ProcessesTagged(prefix, exclude_prefix).empty();
      empty_scans = empty ? empty_scans + 1 : 0;
      if (empty_scans == 2) break;
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(kTagPollInterval);
    }
    return true;
  };
  if (!wait(grace_seconds, true)) {
    for (int pid : ProcessesTagged(prefix, exclude_prefix)) ::kill(pid, SIGKILL);
    wait(kTagAfterKillWaitSeconds, false);
  }
  return static_cast<int>(signalled.size());
}

}  // namespace gpusweep
