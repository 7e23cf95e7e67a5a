#include "backend/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "common/unique_fd.h"
#include "process/spawn.h"

namespace gpusweep {
namespace {

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Expected<Pipe> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Fail(ErrorCode::kProcess, fmt::format("pipe: {}", std::strerror(errno)));
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

std::vector<char*> Pointers(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// Reads both pipes until they close or the deadline passes; true if they closed.
bool Drain(int out_fd, int err_fd, CommandResult& result,
           std::chrono::steady_clock::time_point deadline) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buffer[65536];
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = poll(fds, 2, static_cast<int>(std::min<long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        const std::size_t room = kMaxOutputBytes - std::min(kMaxOutputBytes, sinks[i]->size());
        sinks[i]->append(buffer, std::min(room, static_cast<std::size_t>(n)));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
}

}  // namespace

Expected<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env, double timeout_seconds) {
  if (argv.empty()) return Fail(ErrorCode::kProcess, "empty command");
  GS_ASSIGN_OR_RETURN(std::filesystem::path program,
                      ResolveExecutable(argv[0], env, std::filesystem::current_path()));
  GS_ASSIGN_OR_RETURN(Pipe out, MakePipe());
  GS_ASSIGN_OR_RETURN(Pipe err, MakePipe());
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = argv;
  args[0] = program.string();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program.c_str(), &actions, &attributes,
                                  Pointers(args).data(), Pointers(env).data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0)
    return Fail(ErrorCode::kProcess, fmt::format("{}: cannot start: {}", argv[0],
                                                 std::strerror(spawned)));
  out.write.Reset();
  err.write.Reset();
  CommandResult result;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_seconds));
  if (!Drain(out.read.get(), err.read.get(), result, deadline)) {
    kill(pid, SIGKILL);
    result.timed_out = true;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) && !result.timed_out ? WEXITSTATUS(status) : -1;
  return result;
}

std::string LastLine(const CommandResult& result) {
  for (const std::string* text : {&result.err, &result.out}) {
    std::size_t end = text->find_last_not_of(" \n\r\t");
    if (end == std::string::npos) continue;
    const std::size_t start = text->rfind('\n', end);
    return text->substr(start == std::string::npos ? 0 : start + 1,
                        end - (start == std::string::npos ? 0 : start + 1) + 1);
  }
  return result.timed_out ? "timed out" : "no output";
}

}  // namespace gpusweep
