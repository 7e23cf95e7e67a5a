// spawn.cc — posix_spawn of a trial: own process group, clean signals, log redirection.
#include "process/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/unique_fd.h"

namespace gpusweep {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultPath = "/bin:/usr/bin";  // glibc's _CS_PATH

// Owns a posix_spawnattr_t for the duration of one spawn.
class SpawnAttributes {
 public:
  SpawnAttributes() : init_error_(posix_spawnattr_init(&attr_)) {}
  ~SpawnAttributes() {
    if (init_error_ == 0) posix_spawnattr_destroy(&attr_);
  }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  int init_error() const { return init_error_; }
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_;
  int init_error_;
};

// Owns a posix_spawn_file_actions_t for the duration of one spawn.
class SpawnFileActions {
 public:
  SpawnFileActions() : init_error_(posix_spawn_file_actions_init(&actions_)) {}
  ~SpawnFileActions() {
    if (init_error_ == 0) posix_spawn_file_actions_destroy(&actions_);
  }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;
  int init_error() const { return init_error_; }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
  int init_error_;
};

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
  UniqueFd fd(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
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

// Returns 0 or the first posix_spawnattr_* error.
int ConfigureAttributes(posix_spawnattr_t* attr) {
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD}) sigaddset(&default_signals, sig);
  const short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (int error = posix_spawnattr_setflags(attr, flags)) return error;
  if (int error = posix_spawnattr_setpgroup(attr, 0)) return error;  // pgid = own pid
  if (int error = posix_spawnattr_setsigmask(attr, &empty_mask)) return error;
  return posix_spawnattr_setsigdefault(attr, &default_signals);
}

// Returns 0 or the first posix_spawn_file_actions_* error.
int ConfigureFileActions(posix_spawn_file_actions_t* actions, int log_fd, const fs::path& cwd) {
  if (int error = posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0)) {
    return error;
  }
  if (int error = posix_spawn_file_actions_adddup2(actions, log_fd, 1)) return error;
  if (int error = posix_spawn_file_actions_adddup2(actions, log_fd, 2)) return error;
  // Belt and braces next to O_CLOEXEC: code elsewhere in the process (or a library) may
  // have opened a descriptor without it, e.g. a lock file; a trial must never hold it.
  if (int error = posix_spawn_file_actions_addclosefrom_np(actions, 3)) return error;
  return posix_spawn_file_actions_addchdir_np(actions, cwd.c_str());
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

Expected<int> SpawnInNewProcessGroup(const SpawnRequest& request) {
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

  SpawnAttributes attributes;
  SpawnFileActions actions;
  int error = attributes.init_error() ? attributes.init_error() : actions.init_error();
  if (error == 0) error = ConfigureAttributes(attributes.get());
  if (error == 0) error = ConfigureFileActions(actions.get(), log_fd.get(), cwd);
  if (error != 0) return CommandError(request.argv[0], error, "");

  std::vector<char*> argv = NullTerminated(request.argv);
  std::vector<char*> envp = NullTerminated(request.env);
  pid_t pid = 0;
  // glibc's posix_spawn returns only after the exec succeeded or failed (CLONE_VFORK),
  // so on success the new process group already exists, and on failure glibc has
  // reaped the child and returns the exec's errno.
  error = posix_spawn(&pid, executable.c_str(), actions.get(), attributes.get(), argv.data(),
                      envp.data());
  if (error != 0) return CommandError(request.argv[0], error, "");
  return static_cast<int>(pid);
}

}  // namespace gpusweep
