// spawn.cc — vfork+exec of a trial: own process group, clean signals, log redirection.
#include "process/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "common/unique_fd.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultPath = "/bin:/usr/bin";  // glibc's _CS_PATH

std::string_view PathFromEnv(const std::vector<std::string>& env) {
  for (const std::string& entry : env) {
    if (entry.starts_with("PATH=")) return std::string_view(entry).substr(5);
  }
  return kDefaultPath;
}

// 0 if `path` is an executable regular file, else the errno execve would most likely give.
int ExecutableError(const fs::path& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) return errno;
  if (!S_ISREG(info.st_mode)) return EACCES;
  if (::access(path.c_str(), X_OK) != 0) return errno;
  return 0;
}

tl::unexpected<Error> CommandError(const std::string& command, int error,
                                   std::string_view searched_path) {
  if (error == ENOENT || error == ENOTDIR) {
    std::string message = "command not found: " + command;
    if (!searched_path.empty()) message += " (PATH=" + std::string(searched_path) + ")";
    return Fail(ErrorCode::kProcess, message);
  }
  if (error == EACCES) return Fail(ErrorCode::kProcess, "permission denied: " + command);
  return Fail(ErrorCode::kProcess, "cannot start " + command + ": " + std::strerror(error));
}

// Opens the log for appending, close-on-exec so no other child inherits it, and at fd >= 3
// so the dup2 onto 1 and 2 can never clobber it.
Expected<UniqueFd> OpenLog(const fs::path& log_path) {
  // O_NOFOLLOW: a link left in the trial directory must not redirect the log elsewhere.
  UniqueFd fd(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644));
  if (!fd.valid()) {
    return Fail(ErrorCode::kIo,
                "cannot open log file " + log_path.string() + ": " + std::strerror(errno));
  }
  if (fd.get() < 3) {
    UniqueFd high(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3));
    if (!high.valid()) {
      return Fail(ErrorCode::kIo, "cannot duplicate log file descriptor: " +
                                      std::string(std::strerror(errno)));
    }
    fd = std::move(high);
  }
  return fd;
}

// Everything the child needs, prepared before vfork: between vfork and exec the child
// shares gpusweep's memory and may only make system calls.
struct ChildSetup {
  const char* executable;
  char* const* argv;
  char* const* envp;
  const char* cwd;
  int log_fd;
  int cgroup_dir_fd;         // -1: none
  bool in_cgroup_already;    // started by clone3 into cgroup_dir_fd
  int parent_death_signal;   // 0: none
  pid_t parent;
  int report_fd = -1;        // forked (not vfork'ed) child: where it reports a failure
  int error = 0;             // written by the child before it gives up
  const char* failed_step = "";
};

// What a forked child writes to report_fd when it cannot exec (same binary, so the
// step's address means the same string in the parent).
struct ChildFailure {
  int error;
  const char* step;
};

// Runs in the vfork child. Order matters: the child leaves gpusweep's process group
// and joins the trial's cgroup before exec, so nothing the trial ever forks is missed.
[[noreturn]] void RunChild(ChildSetup* setup) {
  const auto fail = [setup](const char* step) {
    setup->error = errno;
    setup->failed_step = step;
    if (setup->report_fd >= 0) {
      const ChildFailure failure{setup->error, step};
      (void)!::write(setup->report_fd, &failure, sizeof failure);
    }
    _exit(127);
  };
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) ::sigaction(sig, &default_action, nullptr);
  if (::setpgid(0, 0) != 0) fail("setpgid");
  if (setup->parent_death_signal != 0) {
    if (::prctl(PR_SET_PDEATHSIG, setup->parent_death_signal, 0, 0, 0) != 0) fail("prctl");
    if (::getppid() != setup->parent) _exit(127);  // gpusweep already died
  }
  if (setup->cgroup_dir_fd >= 0 && !setup->in_cgroup_already) {
    const int procs = ::openat(setup->cgroup_dir_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
    if (procs < 0 || ::write(procs, "0", 1) != 1) fail("join cgroup");
  }
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, 0) < 0) fail("open /dev/null");
  if (::dup2(setup->log_fd, 1) < 0 || ::dup2(setup->log_fd, 2) < 0) fail("dup2");
  if (::chdir(setup->cwd) != 0) fail("chdir");
  // Belt and braces next to O_CLOEXEC: code elsewhere in the process (or a library) may
  // have opened a descriptor without it, e.g. a lock file; a trial must never hold it.
  ::close_range(3, ~0U, 0);
  sigset_t empty;
  sigemptyset(&empty);
  ::sigprocmask(SIG_SETMASK, &empty, nullptr);
  ::execve(setup->executable, setup->argv, setup->envp);
  fail("exec");
  _exit(127);
}

// The child of StartInCgroup, on a stack of its own.
int ChildEntry(void* setup) { RunChild(static_cast<ChildSetup*>(setup)); }

#if defined(__x86_64__)
constexpr bool kCloneOnStack = true;
// clone3 with CLONE_VM | CLONE_VFORK onto `args->stack`, as posix_spawn clones, but
// with CLONE_INTO_CGROUP: no copy of gpusweep's page tables and no copy-on-write
// faults after it (a tenth of the controller's time on tiny trials with a fork-like
// clone). The child runs `fn(arg)` and exits with its value; the parent sleeps until
// the child exec'd or exited. Returns the pid or -errno. glibc has no clone3 wrapper
// that takes a function, hence the few instructions: fn and arg travel in callee-saved
// registers, which the child finds as the parent left them.
long Clone3OnStack(clone_args* args, int (*fn)(void*), void* arg) {
  register long fn_register asm("r12") = reinterpret_cast<long>(fn);
  register long arg_register asm("r13") = reinterpret_cast<long>(arg);
  long result = SYS_clone3;
  asm volatile(
      "syscall\n\t"
      "test %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      "xor %%ebp, %%ebp\n\t"  // the child: outermost frame
      "mov %%r13, %%rdi\n\t"
      "call *%%r12\n\t"
      "mov %%eax, %%edi\n\t"
      "mov %[exit_number], %%eax\n\t"
      "syscall\n\t"
      "hlt\n\t"
      "1:\n\t"
      : "+a"(result)
      : "D"(args), "S"(sizeof *args), "r"(fn_register), "r"(arg_register),
        [exit_number] "i"(SYS_exit)
      : "rcx", "r11", "memory", "cc");
  return result;
}
#else
constexpr bool kCloneOnStack = false;
long Clone3OnStack(clone_args*, int (*)(void*), void*) { return -ENOSYS; }
#endif

// The child's stack while it shares gpusweep's memory (until exec), with a guard page
// below it so an overflow faults instead of writing over the heap.
class ChildStack {
 public:
  static constexpr std::size_t kBytes = std::size_t{256} << 10;
  ChildStack()
      : base_(::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0)) {
    if (base_ == MAP_FAILED) return;
    if (::mprotect(base_, static_cast<std::size_t>(::getpagesize()), PROT_NONE) != 0) {
      ::munmap(base_, kBytes);
      base_ = MAP_FAILED;
    }
  }
  ~ChildStack() {
    if (base_ != MAP_FAILED) ::munmap(base_, kBytes);
  }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  bool valid() const { return base_ != MAP_FAILED; }
  std::uint64_t low() const { return reinterpret_cast<std::uint64_t>(base_); }

 private:
  void* base_;
};

// clone3(CLONE_INTO_CGROUP): the child starts in the trial's cgroup. On x86-64 the
// child shares memory until exec (CLONE_VM | CLONE_VFORK, own stack) and reports a
// failure in `setup` itself; elsewhere the clone is fork-like (own copy of memory) and
// a failure comes back through a close-on-exec pipe. nullopt if clone3 or
// CLONE_INTO_CGROUP is unavailable here (before Linux 5.7): the caller falls back to vfork.
std::optional<pid_t> StartInCgroup(ChildSetup& setup) {
  clone_args args = {};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<std::uint64_t>(setup.cgroup_dir_fd);
  setup.in_cgroup_already = true;
  if (kCloneOnStack) {
    ChildStack stack;
    if (stack.valid()) {
      args.flags |= CLONE_VM | CLONE_VFORK;
      args.stack = stack.low();
      args.stack_size = ChildStack::kBytes;
      const long pid = Clone3OnStack(&args, ChildEntry, &setup);
      if (pid > 0) return static_cast<pid_t>(pid);
      setup.in_cgroup_already = false;
      return std::nullopt;
    }
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return std::nullopt;
  UniqueFd read_end(report[0]);
  UniqueFd write_end(report[1]);
  setup.report_fd = write_end.get();
  const pid_t pid = static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
  if (pid == 0) RunChild(&setup);
  setup.report_fd = -1;
  if (pid < 0) {
    setup.in_cgroup_already = false;
    return std::nullopt;
  }
  write_end = UniqueFd();
  ChildFailure failure{};
  ssize_t n;
  while ((n = ::read(read_end.get(), &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  if (n == static_cast<ssize_t>(sizeof failure)) {
    setup.error = failure.error;
    setup.failed_step = failure.step;
  }
  return pid;
}

std::vector<char*> NullTerminated(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

Expected<fs::path> ResolveExecutable(const std::string& command,
                                     const std::vector<std::string>& env, const fs::path& cwd) {
  if (command.empty()) return Fail(ErrorCode::kProcess, "cannot start a trial: empty command");
  if (command.find('/') != std::string::npos) {
    fs::path path = fs::path(command).is_absolute() ? fs::path(command) : cwd / command;
    if (int error = ExecutableError(path)) return CommandError(command, error, "");
    return path;
  }
  const std::string_view search_path = PathFromEnv(env);
  int error = ENOENT;
  std::size_t begin = 0;
  while (begin <= search_path.size()) {
    std::size_t end = search_path.find(':', begin);
    if (end == std::string_view::npos) end = search_path.size();
    fs::path dir(search_path.substr(begin, end - begin));
    if (dir.empty()) dir = ".";
    fs::path candidate = (dir.is_absolute() ? dir : cwd / dir) / command;
    const int candidate_error = ExecutableError(candidate);
    if (candidate_error == 0) return candidate;
    // Like execvp: an existing but unusable candidate is reported over "not found".
    if (candidate_error == EACCES) error = EACCES;
    begin = end + 1;
  }
  return CommandError(command, error, search_path);
}

Expected<int> SpawnInNewProcessGroup(const SpawnRequest& request, const SpawnPlacement& placement) {
  if (request.argv.empty()) {
    return Fail(ErrorCode::kProcess, "cannot start a trial: empty command");
  }
  std::error_code ec;
  if (!fs::is_directory(request.cwd, ec)) {
    return Fail(ErrorCode::kIo,
                "trial working directory does not exist: " + request.cwd.string());
  }
  const fs::path cwd = fs::absolute(request.cwd, ec);
  GS_ASSIGN_OR_RETURN(fs::path executable,
                      ResolveExecutable(request.argv[0], request.env, cwd));
  GS_ASSIGN_OR_RETURN(UniqueFd log_fd, OpenLog(request.log_path));

  std::vector<std::string> environment = request.env;
  if (!placement.extra_env.empty()) environment.push_back(placement.extra_env);
  std::vector<char*> argv = NullTerminated(request.argv);
  std::vector<char*> envp = NullTerminated(environment);
  ChildSetup setup{executable.c_str(), argv.data(), envp.data(), cwd.c_str(), log_fd.get(),
                   placement.cgroup_dir_fd, false, placement.parent_death_signal, ::getpid()};
  // No handler of gpusweep may run in the child before it resets them.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &previous);
  // Both ways return when the child exec'd or exited, so on success the new process
  // group (and cgroup membership) already exists, and a failure is known here.
  std::optional<pid_t> cloned;
  if (setup.cgroup_dir_fd >= 0) cloned = StartInCgroup(setup);
  const pid_t pid = cloned ? *cloned : ::vfork();
  if (pid == 0) RunChild(&setup);
  const int vfork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) return CommandError(request.argv[0], vfork_error, "");
  if (setup.failed_step[0] != '\0') {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (std::string_view(setup.failed_step) == "exec")
      return CommandError(request.argv[0], setup.error, "");
    return Fail(ErrorCode::kProcess, fmt::format("cannot start {}: {}: {}", request.argv[0],
                                                 setup.failed_step, std::strerror(setup.error)));
  }
  return static_cast<int>(pid);
}

}  // namespace gpusweep
