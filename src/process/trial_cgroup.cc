// trial_cgroup.cc — cgroup v2 per trial (see trial_cgroup.h).
#include "process/trial_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "process/process_runner.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kCgroupPollInterval = std::chrono::milliseconds(20);
constexpr double kCgroupAfterKillWaitSeconds = 2.0;

// The mount point of the cgroup2 file system (field 5 of the mountinfo line whose file
// system type, after the " - " separator, is "cgroup2").
std::optional<fs::path> Cgroup2Mount() {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    const std::size_t separator = line.find(" - ");
    if (separator == std::string::npos || line.compare(separator + 3, 8, "cgroup2 ") != 0)
      continue;
    std::istringstream fields(line.substr(0, separator));
    std::string field;
    for (int i = 0; i < 5 && fields >> field; ++i) {
    }
    if (!field.empty()) return fs::path(field);
  }
  return std::nullopt;
}

// gpusweep's own cgroup v2 path ("0::/user.slice/..." in /proc/self/cgroup).
std::optional<std::string> OwnCgroup() {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line))
    if (line.starts_with("0::")) return line.substr(3);
  return std::nullopt;
}

bool WriteText(const fs::path& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

bool Populated(const fs::path& dir) {
  std::ifstream events(dir / "cgroup.events");
  std::string key;
  int value = 0;
  while (events >> key >> value)
    if (key == "populated") return value != 0;
  return false;  // gone
}

void AppendProcs(const fs::path& dir, std::vector<int>& pids) {
  std::ifstream procs(dir / "cgroup.procs");
  int pid = 0;
  while (procs >> pid) pids.push_back(pid);
}

std::vector<fs::path> ChildCgroups(const fs::path& dir) {
  std::vector<fs::path> children;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory(ec)) children.push_back(entry.path());
  return children;
}

// SIGKILL the whole subtree: cgroup.kill (Linux 5.14+) kills atomically, even a process
// forking in a loop; without it, signal the listed processes until none is left.
void KillTree(const fs::path& dir) {
  if (WriteText(dir / "cgroup.kill", "1")) return;
  for (int pid : ProcessesInCgroupTree(dir)) ::kill(pid, SIGKILL);
}

void SignalTree(const fs::path& dir, int sig) {
  if (sig == SIGKILL) return KillTree(dir);
  for (int pid : ProcessesInCgroupTree(dir)) ::kill(pid, sig);
}

bool WaitUntilEmpty(const fs::path& dir, double seconds) {
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(std::max(seconds, 0.0)));
  for (;;) {
    if (!Populated(dir)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kCgroupPollInterval);
  }
}

// Removes `dir` and the (empty) cgroups below it, deepest first.
void RemoveTree(const fs::path& dir) {
  for (const fs::path& child : ChildCgroups(dir)) RemoveTree(child);
  ::rmdir(dir.c_str());
}

// SIGTERM, grace, SIGKILL, then remove; returns how many processes it found.
int StopTree(const fs::path& dir, double grace_seconds) {
  const int found = static_cast<int>(ProcessesInCgroupTree(dir).size());
  if (found > 0) {
    SignalTree(dir, SIGTERM);
    if (!WaitUntilEmpty(dir, grace_seconds)) {
      KillTree(dir);
      WaitUntilEmpty(dir, kCgroupAfterKillWaitSeconds);
    }
  }
  RemoveTree(dir);
  return found;
}

// "run-<pid>-<ticks>" of a gpusweep that no longer exists (or is another process now).
bool DeadRun(const std::string& name) {
  int pid = 0;
  std::uint64_t ticks = 0;
  if (std::sscanf(name.c_str(), "run-%d-%lu", &pid, &ticks) != 2) return false;
  return ProcessStartTicks(pid) != std::optional<std::uint64_t>(ticks);
}

// Empty directories of dead runs, of any experiment (one killed with its guard and
// never resumed): removed so they do not pile up. Populated ones are left for that
// experiment's next run, which stops their processes first (StopOtherRuns).
void RemoveEmptyDeadRuns(const fs::path& base) {
  for (const fs::path& scope : ChildCgroups(base)) {
    if (!scope.filename().string().starts_with("gpusweep-")) continue;
    for (const fs::path& run : ChildCgroups(scope))
      if (DeadRun(run.filename().string()) && !Populated(run)) RemoveTree(run);
    ::rmdir(scope.c_str());  // only if now empty
  }
}

}  // namespace

std::vector<int> ProcessesInCgroupTree(const fs::path& dir) {
  std::vector<int> pids;
  AppendProcs(dir, pids);
  for (const fs::path& child : ChildCgroups(dir)) {
    std::vector<int> below = ProcessesInCgroupTree(child);
    pids.insert(pids.end(), below.begin(), below.end());
  }
  return pids;
}

std::optional<CgroupTree> CgroupTree::Create(const std::string& scope,
                                             const std::string& run_name) {
  const std::optional<fs::path> mount = Cgroup2Mount();
  const std::optional<std::string> own = OwnCgroup();
  if (!mount || !own) return std::nullopt;
  const fs::path base = *mount / fs::path(*own).relative_path();
  RemoveEmptyDeadRuns(base);
  const fs::path scope_dir = base / ("gpusweep-" + scope);
  if (::mkdir(scope_dir.c_str(), 0755) != 0 && errno != EEXIST) return std::nullopt;
  const fs::path run_dir = scope_dir / run_name;
  if (::mkdir(run_dir.c_str(), 0755) != 0 && errno != EEXIST) {
    ::rmdir(scope_dir.c_str());
    return std::nullopt;
  }
  // mkdir may succeed where moving a process in is refused (no write access to the
  // common ancestor's cgroup.procs): probe with a trial directory nobody joins.
  CgroupTree tree(scope_dir, run_dir);
  if (!tree.PrepareTrial(-1)) {
    tree.RemoveRun();
    return std::nullopt;
  }
  tree.RemoveTrial(-1);
  return tree;
}

fs::path CgroupTree::TrialDir(int serial) const {
  return run_dir_ / (serial < 0 ? std::string("probe") : fmt::format("trial-{}", serial));
}

Expected<UniqueFd> CgroupTree::PrepareTrial(int serial) const {
  const fs::path dir = TrialDir(serial);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Fail(ErrorCode::kProcess,
                fmt::format("cannot create cgroup {}: {}", dir.string(), std::strerror(errno)));
  // Opening cgroup.procs for writing checks the right to move a process in (write
  // access to it and to the common ancestor's), which CLONE_INTO_CGROUP needs too.
  UniqueFd procs(::open((dir / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!procs.valid() || !dir_fd.valid())
    return Fail(ErrorCode::kProcess, fmt::format("cannot open {}/cgroup.procs: {}", dir.string(),
                                                 std::strerror(errno)));
  return dir_fd;
}

void CgroupTree::SignalTrial(int serial, int sig) const { SignalTree(TrialDir(serial), sig); }

bool CgroupTree::RemoveTrial(int serial) const {
  return ::rmdir(TrialDir(serial).c_str()) == 0 || errno == ENOENT;
}

std::vector<int> CgroupTree::TrialProcesses(int serial) const {
  return ProcessesInCgroupTree(TrialDir(serial));
}

int CgroupTree::StopOtherRuns(double grace_seconds) const {
  int found = 0;
  for (const fs::path& run : ChildCgroups(scope_dir_))
    if (run != run_dir_) found += StopTree(run, grace_seconds);
  return found;
}

int CgroupTree::StopOwnRun(double grace_seconds) const {
  const int found = StopTree(run_dir_, grace_seconds);
  ::rmdir(scope_dir_.c_str());  // fails (rightly) while another run uses the scope
  return found;
}

void CgroupTree::RemoveRun() const {
  RemoveTree(run_dir_);
  ::rmdir(scope_dir_.c_str());
}

CgroupAvailability CheckCgroupContainment() {
  const std::optional<fs::path> mount = Cgroup2Mount();
  if (!mount) return {false, "no cgroup2 file system is mounted"};
  const std::optional<std::string> own = OwnCgroup();
  if (!own) return {false, "this process is in no cgroup v2 (/proc/self/cgroup has no 0:: line)"};
  const fs::path base = *mount / fs::path(*own).relative_path();
  // The same steps as a run's: the scope and run directories, and a probe trial's
  // cgroup.procs opened for writing.
  const std::string name = fmt::format("run-{}-{}", ::getpid(), ProcessStartTicks(::getpid()).value_or(0));
  const std::optional<CgroupTree> tree = CgroupTree::Create(fmt::format("doctor{}", ::getpid()), name);
  if (!tree)
    return {false, fmt::format("cannot create a cgroup under {} and move a process into it "
                               "(not root, and no delegated subtree)", base.string())};
  tree->RemoveRun();
  return {true, base.string()};
}

}  // namespace gpusweep
