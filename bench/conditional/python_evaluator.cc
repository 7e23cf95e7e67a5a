#include "bench/conditional/python_evaluator.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

namespace gpusweep::bench {

Expected<std::unique_ptr<PythonEvaluator>> PythonEvaluator::Start(const std::vector<std::string>& argv) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0)
    return Fail(ErrorCode::kIo, "pipe() failed for the evaluator");
  const pid_t pid = fork();
  if (pid < 0) return Fail(ErrorCode::kIo, "fork() failed for the evaluator");
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    close(to_child[1]);
    close(from_child[0]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  return std::unique_ptr<PythonEvaluator>(
      new PythonEvaluator(pid, fdopen(to_child[1], "w"), fdopen(from_child[0], "r")));
}

PythonEvaluator::~PythonEvaluator() {
  std::fclose(to_);  // EOF on its stdin: the evaluator exits
  std::fclose(from_);
  int status = 0;
  waitpid(pid_, &status, 0);
}

Expected<double> PythonEvaluator::Evaluate(const Params& flat) {
  const std::string line = flat.dump() + "\n";
  if (std::fputs(line.c_str(), to_) < 0 || std::fflush(to_) != 0)
    return Fail(ErrorCode::kIo, "the evaluator's stdin closed");
  char buffer[128];
  if (std::fgets(buffer, sizeof buffer, from_) == nullptr)
    return Fail(ErrorCode::kIo, "the evaluator exited without a value");
  char* end = nullptr;
  const double value = std::strtod(buffer, &end);
  if (end == buffer) return Fail(ErrorCode::kIo, std::string("evaluator said: ") + buffer);
  return value;
}

}  // namespace gpusweep::bench
