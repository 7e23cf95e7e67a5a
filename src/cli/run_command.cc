#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/install_paths.h"
#include "cli/interpreter_hint.h"
#include "cli/terminal.h"
#include "cli/terminal_observer.h"
#include "gpusweep/nas.h"
#include "run/experiment_meta.h"
#include "run/trial_env.h"
#include "view/experiment_view.h"
#include "gpusweep/experiment.h"
#include "gpusweep/resources.h"

namespace gpusweep {
namespace {

double WallClock() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr int kSummaryRows = 10;

// The summary, read back from the journal as `status` reads it: the run's records are
// freed first (of a plain sweep they hold no params, SearchPolicy::reads_finished_trials),
// and when the reports can use a slice (one objective, no cv, NAS or scheduler) only the
// top rows and groups of 100,000 trials are read (grouping every trial in memory, with
// the run's records still held, was the run's peak, issue 25). Otherwise every record.
// A journal that cannot be opened now leaves the run's records, as kept (the next
// command says what is wrong with it); one that opens but cannot be read is an error.
Status PrintSummary(const ExperimentConfig& config, const ReportContext& context,
                    const std::filesystem::path& dir, std::vector<TrialRecord>& trials) {
  if (Expected<ExperimentView> view = ExperimentView::Open(dir)) {
    if (view->Sliceable()) {
      std::vector<TrialRecord>().swap(trials);
      GS_ASSIGN_OR_RETURN(ExperimentView::SliceRead read, view->SummarySlice(kSummaryRows));
      std::fputs(FormatSummary(read.slice, context, kSummaryRows).c_str(), stdout);
      return {};
    }
    std::vector<TrialRecord>().swap(trials);
    GS_ASSIGN_OR_RETURN(trials, view->Trials());
  }
  std::fputs(FormatSummary(trials, context, kSummaryRows).c_str(), stdout);
  if (config.nas)  // the tournament's outcome: blocks, eliminations, stage records
    for (const std::string& line :
         NasProgressLines(ReplayNas(*config.nas, ObjectiveOf(config), trials)))
      std::fputs((line + "\n").c_str(), stdout);
  return {};
}

}  // namespace

Expected<int> RunCommand(const RunCommandArgs& args) {
  GS_ASSIGN_OR_RETURN(ExperimentConfig config, LoadConfig(args.config_path));
  if (args.backend)  // the section's options (partition, ...) stay as the config sets them
    config.backend.kind = *args.backend == "slurm" ? BackendKind::kSlurm : BackendKind::kLocal;
  const auto cwd = std::filesystem::current_path();
  RunOptions options;
  options.experiment_dir = args.dir ? std::filesystem::absolute(*args.dir)
                                    : DefaultExperimentDir(config, cwd);
  options.experiment_dir = options.experiment_dir.lexically_normal();
  if (args.gpus) {
    GS_ASSIGN_OR_RETURN(options.cli_gpus, ParseGpuList(*args.gpus));
  }
  options.python_helper_dir = PythonHelperDir();
  options.failed_trials = args.retry_failed ? FailedTrials::kRetry : FailedTrials::kKeep;
  if (const char* slow = std::getenv("GPUSWEEP_TEST_SLOW_DISK_MS"))  // torture tests only
    options.slow_disk_seconds = std::atof(slow) / 1000.0;

  TerminalInfo terminal = InspectTerminal(stdout);
  ReportContext context;
  context.experiment_name = config.name;
  context.experiment_dir = options.experiment_dir;
  context.program = SuggestedProgram();
  context.metric = config.metric;
  context.scheduler = SummarizeScheduler(config.scheduler);
  context.cv = config.cv;
  context.nas = config.nas.has_value();
  context.color = terminal.color;
  context.width = terminal.width;
  // Several objectives or constraints: the progress line and the summary rank the Pareto
  // front, as status does.
  if (Objective objective = ObjectiveOf(config); objective.multi() || objective.constrained()) {
    if (objective.multi() && config.hypervolume_reference.size() == objective.size())
      context.hypervolume_reference = config.hypervolume_reference;
    context.pareto = std::move(objective);
  }
  TerminalObserver observer(stdout, terminal, context, WallClock);

  Expected<RunOutcome> outcome = RunExperiment(config, options, observer);
  observer.Close();
  if (!outcome) {
    Error error = outcome.error();  // e.g. max_failures reached: its message has the reason
    if (auto hint = InterpreterHint(config, error.message, CurrentEnvironment()))
      error.message += "\n" + *hint;
    return tl::unexpected(std::move(error));
  }

  context.now = WallClock();
  context.total_trials = outcome->info.total_trials;
  const int code = RankTrials(outcome->trials, config.metric).empty() ? 1 : 0;
  const std::optional<std::string> hint = InterpreterHint(config, outcome->trials, CurrentEnvironment());
  GS_TRY(PrintSummary(config, context, options.experiment_dir, outcome->trials));
  if (hint) std::fputs((*hint + "\n").c_str(), stdout);
  std::fflush(stdout);
  return code;
}

}  // namespace gpusweep
