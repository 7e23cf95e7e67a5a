#include "cli_harness.h"

#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace gpusweep::testing {
namespace {

std::vector<char*> Argv(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return argv;
}

pid_t Spawn(std::vector<std::string> args, const std::filesystem::path& cwd,
            const std::filesystem::path& log) {
  args.insert(args.begin(), GPUSWEEP_BINARY);
  std::vector<char*> argv = Argv(args);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool IsZombie(pid_t pid) {
  std::string stat = Slurp("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close == std::string::npos || (close + 2 < stat.size() && stat[close + 2] == 'Z');
}

}  // namespace

int WaitExit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

CommandResult RunGpusweep(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  auto log = cwd / ".gpusweep-command.log";
  CommandResult result;
  result.exit_code = WaitExit(Spawn(args, cwd, log));
  result.out = Slurp(log);
  std::filesystem::remove(log);
  return result;
}

CommandResult RunGpusweepInTerminal(const std::vector<std::string>& args,
                                    const std::filesystem::path& cwd) {
  std::vector<std::string> full = args;
  full.insert(full.begin(), GPUSWEEP_BINARY);
  std::vector<char*> argv = Argv(full);
  int terminal = -1;
  const pid_t pid = forkpty(&terminal, nullptr, nullptr, nullptr);
  if (pid == 0) {
    setenv("COLUMNS", "200", 1);  // wide enough that no column is dropped
    if (chdir(cwd.c_str()) != 0) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  CommandResult result;
  if (pid < 0) return result;
  char buffer[4096];
  for (ssize_t n; (n = read(terminal, buffer, sizeof buffer)) > 0;) result.out.append(buffer, n);
  close(terminal);  // read fails (EIO) once the child closed its side
  result.exit_code = WaitExit(pid);
  return result;
}

pid_t StartGpusweep(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                    const std::filesystem::path& log) {
  return Spawn(args, cwd, log);
}

std::vector<pid_t> LiveTrialProcesses(const std::filesystem::path& experiment_dir) {
  const std::string needle = "GPUSWEEP_TRIAL_DIR=" + experiment_dir.string();
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string environ = Slurp(entry.path() / "environ");
    std::replace(environ.begin(), environ.end(), '\0', '\n');
    if (environ.find(needle) == std::string::npos) continue;
    pid_t pid = std::stoi(name);
    if (!IsZombie(pid)) found.push_back(pid);
  }
  return found;
}

bool WaitUntil(double seconds, const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

}  // namespace gpusweep::testing
