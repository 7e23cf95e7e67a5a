// serve and report: the dashboard (src/web) behind the CLI. Both read journals only.
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>

#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "cli/commands.h"
#include "cli/decision_lines.h"
#include "cli/experiment_locator.h"
#include "gpusweep/experiment_files.h"
#include "web/report_file.h"
#include "web/server.h"

namespace gpusweep {
namespace {

Expected<std::string> RandomToken() {
  unsigned char bytes[16];
  if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes))
    return Fail(ErrorCode::kIo, "cannot make a token: getrandom failed; pass --token");
  std::string token;
  for (unsigned char b : bytes) token += fmt::format("{:02x}", b);
  return token;
}

std::vector<std::filesystem::path> DefaultRoots() {
  const std::filesystem::path cwd = std::filesystem::current_path();
  std::error_code ec;
  if (!std::filesystem::exists(ExperimentFiles{cwd}.journal(), ec) &&
      std::filesystem::is_directory(cwd / kRunsDirName, ec))
    return {cwd / kRunsDirName};
  return {cwd};
}

// Stops the server on SIGINT/SIGTERM. The signals are blocked in every thread (the
// server's workers inherit the mask) and taken by one sigwait()ing thread.
class StopOnSignal {
 public:
  StopOnSignal() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  }
  ~StopOnSignal() {
    if (waiter_.joinable()) {
      pthread_kill(waiter_.native_handle(), SIGTERM);  // wakes it when no signal came
      waiter_.join();
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  void Install(std::function<void()> stop) {
    waiter_ = std::thread([this, stop = std::move(stop)] {
      int signal = 0;
      sigwait(&signals_, &signal);
      stop();
    });
  }

 private:
  sigset_t signals_{}, previous_{};
  std::thread waiter_;
};

// Where `report -o output` writes: `output` itself, or <experiment name>.html inside it
// when it is a directory (as cp puts a file into one; reports of several experiments
// can share a folder). A trailing slash on what is not a directory is refused rather
// than taken for a file name.
Expected<std::filesystem::path> ReportPath(const std::string& output,
                                           const std::filesystem::path& experiment) {
  const std::filesystem::path path = output;
  std::error_code ec;
  if (std::filesystem::is_directory(std::filesystem::absolute(path), ec)) {
    std::filesystem::path name = experiment.lexically_normal();
    if (!name.has_filename()) name = name.parent_path();
    return path / (name.filename().string() + ".html");
  }
  if (output.ends_with('/'))
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("-o {}: no such directory; create it first, or name the file to "
                            "write (e.g. -o report.html)",
                            output));
  return path;
}

}  // namespace

Expected<int> ServeCommand(const ServeCommandArgs& args) {
  web::ServeOptions options;
  for (const std::string& dir : args.dirs) options.roots.emplace_back(dir);
  if (options.roots.empty()) options.roots = DefaultRoots();
  options.host = args.host;
  options.port = args.port;
  options.token = args.token.value_or("");
  options.decisions = TrialDecisionLines;
  if (!web::IsLoopbackHost(options.host) && options.token.empty()) {
    GS_ASSIGN_OR_RETURN(options.token, RandomToken());
  }
  StopOnSignal stop;
  GS_TRY(web::Serve(
      options,
      [&](int port) {
        const std::string host = options.host.find(':') != std::string::npos
                                     ? "[" + options.host + "]"
                                     : options.host;
        std::printf("gpusweep serve: http://%s:%d/%s  (Ctrl-C to stop)\n", host.c_str(), port,
                    options.token.empty() ? "" : ("?token=" + options.token).c_str());
        std::fflush(stdout);
      },
      [&](std::function<void()> stop_server) { stop.Install(std::move(stop_server)); }));
  return 0;
}

Expected<int> ReportCommand(const std::optional<std::string>& dir, const std::string& output) {
  GS_ASSIGN_OR_RETURN(std::filesystem::path experiment,
                      LocateExperiment(dir, std::filesystem::current_path()));
  GS_ASSIGN_OR_RETURN(std::filesystem::path path, ReportPath(output, experiment));
  GS_ASSIGN_OR_RETURN(std::string page, web::BuildReport(experiment, TrialDecisionLines));
  // Atomic, so a failed report never leaves a half-written file behind.
  GS_TRY(WriteFileAtomically(std::filesystem::absolute(path), page));
  std::fprintf(stderr, "wrote %s (%zu KiB): open it in a browser, no network needed\n",
               path.c_str(), page.size() / 1024);
  return 0;
}

}  // namespace gpusweep
