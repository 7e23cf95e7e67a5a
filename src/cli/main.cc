// gpusweep — the command-line front end. It parses arguments, calls one command, and
// is the only place where an Error becomes a message and an exit code.
#include <charconv>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/cli_docs.h"
#include "cli/commands.h"
#include "cli/version.h"
#include "common/did_you_mean.h"

namespace {

int Report(const gpusweep::Expected<int>& result) {
  if (result) return *result;
  // `gpusweep export ... | head`: like other Unix tools, no message when the reader of
  // stdout has gone away.
  if (result.error().code == gpusweep::ErrorCode::kOutputClosed)
    return gpusweep::ExitCodeFor(result.error().code);
  std::fprintf(stderr, "gpusweep: %s\n", result.error().message.c_str());
  return gpusweep::ExitCodeFor(result.error().code);
}

// CLI11 answers an unknown subcommand with "A subcommand is required"; name it instead.
std::optional<std::string> UnknownCommand(int argc, char** argv) {
  static constexpr std::string_view kCommands[] = {"run",  "check", "status", "best",  "export",
                                                   "show", "serve", "report", "doctor"};
  // The build's own (hidden): man page and completions from this parser.
  static constexpr std::string_view kHidden[] = {"help-man", "help-completion"};
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string_view word = argv[1];
  for (std::string_view command : kCommands)
    if (word == command) return std::nullopt;
  for (std::string_view command : kHidden)
    if (word == command) return std::nullopt;
  std::string message = "unknown command '" + std::string(word) + "'";
  if (auto close = gpusweep::ClosestMatch(word, kCommands)) message += "; did you mean '" + *close + "'?";
  return message + "; commands: run, check, status, best, export, show, serve, report, doctor (see gpusweep "
                   "--help)";
}

// CLI::PositiveNumber accepts 0 and answers "-5" with "not in range 0 to 1.79769e+308"
// (all 309 digits); a row count says what it wants.
std::string AtLeastOneRow(std::string& text) {
  int rows = 0;
  const char* end = text.data() + text.size();
  auto [parsed_to, error] = std::from_chars(text.data(), end, rows);
  if (error == std::errc() && parsed_to == end && rows >= 1) return {};
  return "'" + text + "' is not a number of rows >= 1; e.g. --top 10";
}

// With a token, it is all that keeps the network from every journal served, and the
// server does not slow guessing down. 16 characters (64 bits if hex digits; the generated
// token has 32) keep guessing out of reach; a word like "ab" does not.
constexpr std::size_t kMinTokenLength = 16;

std::string LongEnoughToken(std::string& token) {
  if (token.size() >= kMinTokenLength) return {};
  return "a token of " + std::to_string(token.size()) +
         " characters is easy to guess; use at least " + std::to_string(kMinTokenLength) +
         " (e.g. --token $(openssl rand -hex 16)), or leave --token out: binding off "
         "127.0.0.1 generates one";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpusweep;
  // `gpusweep run ... | head` must not kill the run (and leave trials "running") when
  // the reader goes away: a failed write is ignored instead. Trials get SIGPIPE's
  // default back when they are spawned.
  std::signal(SIGPIPE, SIG_IGN);
  if (auto unknown = UnknownCommand(argc, argv)) {
    std::fprintf(stderr, "gpusweep: %s\n", unknown->c_str());
    return 2;
  }
  CLI::App app{"gpusweep: hyperparameter sweeps over a machine's GPUs"};
  const std::string version = std::string(ProjectVersion()) + " (" + SourceRevision() + ")";
  app.set_version_flag("--version", "gpusweep " + version);
  app.require_subcommand(1);

  RunCommandArgs run_args;
  auto* run = app.add_subcommand("run", "run or resume the experiment a YAML config describes");
  run->add_option("config", run_args.config_path, "experiment config (YAML)")->required();
  run->add_option("--dir", run_args.dir, "experiment directory (default: ./runs/<name>)");
  run->add_option("--gpus", run_args.gpus, "only use these GPU indices, e.g. 0,2");
  run->add_option("--backend", run_args.backend,
                  "where trials run: local (processes here) or slurm (one SLURM job each); "
                  "overrides the config's backend.type")
      ->check(CLI::IsMember({"local", "slurm"}));
  run->add_flag("--retry-failed", run_args.retry_failed,
                "when resuming, run failed trials again (e.g. after fixing the script)");

  CheckCommandArgs check_args;
  auto* check = app.add_subcommand(
      "check", "validate a config as run would and print the plan; writes nothing");
  check->add_option("config", check_args.config_path, "experiment config (YAML)")->required();
  check->add_option("--dir", check_args.dir, "experiment directory run would use (printed)");
  check->add_option("--gpus", check_args.gpus, "only use these GPU indices, e.g. 0,2");
  check->add_option("--trials", check_args.trials, "how many of the first trials to show")
      ->check(CLI::Range(0, 1000));

  std::optional<std::string> dir;
  StatusCommandArgs status_args;
  auto* status = app.add_subcommand("status", "table of the experiment's trials");
  status->add_option("experiment_dir", status_args.dir,
                     "experiment directory (default: newest in ./runs)");
  status->add_option("--sort", status_args.sort,
                     "order rows by: number, duration, objective (or the metric's name), or a "
                     "param's name");
  status->add_option("--top", status_args.top,
                     "only the first N rows (best first unless --sort says otherwise)")
      ->check(CLI::Validator(AtLeastOneRow, "N>=1"));
  status->add_option("--state", status_args.state,
                     "only trials in this state: completed, pruned, failed, running, ...");
  status->add_flag("--all", status_args.all,
                   "list every trial (by default, beyond 1000 trials, the latest 1000)");
  status->add_flag("--group", status_args.group,
                   "one row per group of trials with the same params (repeats, seeds): "
                   "mean ± std, ranked");
  // One word per --ignore (comma-separated names), so that the directory after it is
  // not taken for another name.
  status->add_option("--ignore", status_args.ignore,
                     "params that do not tell groups apart, e.g. seed,init (default: seed)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->capture_default_str();
  BestCommandArgs best_args;
  auto* best = app.add_subcommand(
      "best", "the best trial: params, metric, trial directory (a NAS search: its result, the "
              "retrain or until then the latest confirm)");
  best->add_option("experiment_dir", best_args.dir,
                   "experiment directory (default: newest in ./runs)");
  best->add_flag("--json", best_args.json,
                 "several objectives or constraints: the Pareto front as JSON (objectives, "
                 "each member's values and params, the hypervolume)");
  best->add_flag("--single", best_args.single,
                 "the best single trial even when params ran several times (repeats, seeds); "
                 "in a NAS search the highest-scoring evaluation of any stage");
  best->add_flag("--replay", best_args.replay,
                 "population-based training: print a config that trains one member with the "
                 "best member's schedule of params (gpusweep best --replay > replay.yaml)")
      ->excludes("--json");
  best->add_option("--ignore", best_args.ignore,
                   "params that do not tell groups apart, e.g. seed,init (default: seed)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->capture_default_str();

  std::string format = "csv";
  std::optional<std::string> output;
  bool steps = false;
  auto* exporter = app.add_subcommand("export", "one row per trial, params flattened");
  exporter->add_option("experiment_dir", dir, "experiment directory (default: newest in ./runs)");
  exporter->add_option("--format", format,
                       "csv, json, or optuna (a study with each param's distribution; "
                       "docs/config.md has the loader)")
      ->check(CLI::IsMember({"csv", "json", "optuna"}))
      ->capture_default_str();
  exporter->add_flag("--steps", steps,
                     "one row per trial, attempt and reported step (learning curves)");
  exporter->add_option("-o,--output", output, "write to this file instead of stdout");

  std::string trial_id;
  auto* show = app.add_subcommand(
      "show", "one trial: params, state, exit, metrics, log tail (on a terminal, control "
              "characters in the log tail show as \\x1b, \\r, ...; piped, as written)");
  show->add_option("trial_id", trial_id, "trial number, e.g. 7")->required();
  show->add_option("experiment_dir", dir, "experiment directory (default: newest in ./runs)");

  ServeCommandArgs serve_args;
  auto* serve = app.add_subcommand("serve", "web dashboard of experiments (read-only)");
  serve->add_option("experiment_dirs", serve_args.dirs,
                    "experiment dirs or dirs holding them (default: ./runs or .)");
  serve->add_option("--host", serve_args.host, "address to bind")->capture_default_str();
  serve->add_option("--port", serve_args.port, "port (0: any free one)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve->add_option("--token", serve_args.token,
                    "required on every request, at least 16 characters (generated when "
                    "binding off 127.0.0.1)")
      ->check(CLI::Validator(LongEnoughToken, "TOKEN"));

  std::string report_output;
  auto* report = app.add_subcommand("report", "one self-contained HTML file of an experiment");
  report->add_option("experiment_dir", dir, "experiment directory (default: newest in ./runs)");
  report->add_option("-o,--output", report_output,
                     "the HTML file to write; a directory: <experiment name>.html in it")
      ->required();

  auto* doctor = app.add_subcommand(
      "doctor", "what this machine gives gpusweep: GPUs (NVML) and their free memory, "
                "cgroup v2 or the process-group fallback, the python3 trials run and "
                "whether it imports torch, SLURM's commands; what to do about each missing one");

  // Hidden (no group): the build writes gpusweep.1 and the completions with these.
  std::optional<std::string> docs_output;
  auto* man = app.add_subcommand("help-man", "")->group("");
  man->add_option("-o,--output", docs_output, "");
  std::string shell;
  auto* completion = app.add_subcommand("help-completion", "")->group("");
  completion->add_option("shell", shell, "")->required()->check(CLI::IsMember({"bash", "zsh"}));
  completion->add_option("-o,--output", docs_output, "");

  // A bad command line is said as every other error is: "gpusweep: ..." on stderr.
  app.failure_message([](const CLI::App* from, const CLI::Error& e) {
    return "gpusweep: " + CLI::FailureMessage::simple(from, e);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (*run) return Report(RunCommand(run_args));
  if (*check) return Report(CheckCommand(check_args));
  if (*doctor) return Report(DoctorCommand());
  if (*man) return Report(PrintText(ManPage(app, version), docs_output));
  if (*completion)
    return Report(PrintText(shell == "zsh" ? ZshCompletion(app) : BashCompletion(app), docs_output));
  if (*status) return Report(StatusCommand(status_args));
  if (*best) return Report(BestCommand(best_args));
  if (*serve) return Report(ServeCommand(serve_args));
  if (*report) return Report(ReportCommand(dir, report_output));
  if (*exporter)
    return Report(ExportCommand(dir,
                                format == "json"     ? ExportFormat::kJson
                                : format == "optuna" ? ExportFormat::kOptuna
                                                     : ExportFormat::kCsv,
                                steps ? ExportRows::kSteps : ExportRows::kTrials, output));
  return Report(ShowCommand(trial_id, dir));
}
