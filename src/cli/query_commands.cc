// status, best, export, show: read-only views of an experiment, read through its one
// read model (view/experiment_view.h), which opens the journal read-only, so they work
// while a run is writing it.
#include <algorithm>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/decision_lines.h"
#include "cli/experiment_locator.h"
#include "cli/gpu_lines.h"
#include "cli/pbt_lines.h"
#include "cli/terminal.h"
#include "common/atomic_file.h"
#include "common/did_you_mean.h"
#include "gpusweep/cv.h"
#include "gpusweep/journal.h"
#include "gpusweep/nas.h"
#include "gpusweep/report.h"
#include "report/pareto_views.h"
#include "run/warm_start.h"
#include "view/experiment_view.h"

namespace gpusweep {
namespace {

// How many lines of a trial's output `show` prints.
constexpr std::size_t kLogTailLines = 20;

// The search space's parameter names in declaration order (the export's param columns).
std::vector<std::string> DeclaredNames(const SearchSpace& space) {
  std::vector<std::string> names;
  for (const ParamSpec& p : space.params) names.push_back(p.name);
  return names;
}

// The experiment as read (ExperimentView) and what this terminal adds to its reports.
struct OpenedForReading {
  ExperimentView view;
  ReportContext context;
  bool tty = false;  // stdout is a terminal: `show` writes a trial's output ControlsVisible
};

Expected<OpenedForReading> OpenForReading(const std::optional<std::string>& dir) {
  GS_ASSIGN_OR_RETURN(std::filesystem::path located,
                      LocateExperiment(dir, std::filesystem::current_path()));
  GS_ASSIGN_OR_RETURN(ExperimentView view, ExperimentView::Open(located));
  OpenedForReading opened{std::move(view), {}, false};
  const TerminalInfo terminal = InspectTerminal(stdout);
  opened.context = opened.view.report_context();
  opened.context.now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  opened.context.color = terminal.color;
  opened.context.width = terminal.width;
  opened.tty = terminal.is_tty;
  return opened;
}

// Accepts "7", "0007" or "trial_7"-free plain numbers only; Error names the input.
Expected<int> ParseTrialId(const std::string& text) {
  int number = -1;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size() || number < 0)
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("'{}' is not a trial id; use the trial number shown by "
                            "`gpusweep status` (e.g. 7 or 0007)",
                            text));
  return number;
}

// The last `lines` lines of a trial's output, read from at most its last kLogTailBytes
// (ReadLogTail; the dashboard shows the same bytes).
std::string LogTail(const std::filesystem::path& path, std::size_t lines) {
  const std::string text = ReadLogTail(path, kLogTailBytes);
  std::size_t begin = text.size();
  std::size_t seen = 0;
  // Back from the end: the start of the `lines`-th line from the last (a final newline
  // ends the last line, it does not start another).
  std::size_t end = !text.empty() && text.back() == '\n' ? text.size() - 1 : text.size();
  while (seen < lines) {
    const std::size_t newline = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    ++seen;
    if (newline == std::string::npos) {
      begin = 0;
      break;
    }
    begin = newline + 1;
    end = newline;
  }
  std::string tail = text.substr(begin);
  if (!tail.empty() && tail.back() != '\n') tail += '\n';
  return tail;
}

// `text` with each NUL byte shown as U+2400 (␀). A trial's log or a string it reported
// may hold NULs; written raw they cut the output short in C-string paths, break CSV
// readers, and hide what follows in a terminal.
void AppendNulsVisible(std::string& out, std::string_view text) {
  for (const char c : text) {
    if (c == '\0') out += "\u2400";
    else out += c;
  }
}

std::string NulsVisible(std::string_view text) {
  std::string visible;
  visible.reserve(text.size());
  AppendNulsVisible(visible, text);
  return visible;
}

// Writes `visible` whole (an explicit length, never up to the first NUL) and flushes.
Status EmitVisible(std::FILE* stream, std::string_view visible) {
  if (std::fwrite(visible.data(), 1, visible.size(), stream) != visible.size() ||
      std::fflush(stream) != 0)
    return Fail(errno == EPIPE ? ErrorCode::kOutputClosed : ErrorCode::kIo,
                fmt::format("could not write the output: {}",
                                            std::strerror(errno)));
  return {};
}

// Writes `text` whole, NULs visible.
Status Emit(std::FILE* stream, std::string_view text) { return EmitVisible(stream, NulsVisible(text)); }

// Streams an export to stdout or, atomically, to `output_path`: `write` gets the sink
// (NULs made visible piece by piece), and the file appears only when it succeeded.
// Pieces are gathered into 64 KiB writes: a row is one piece, and a system call per row
// was most of the time of a 100,000-row export.
Status StreamOutput(const std::optional<std::string>& output_path,
                    const std::function<Status(const TextSink&)>& write) {
  std::optional<AtomicFile> file;
  if (output_path) {
    GS_ASSIGN_OR_RETURN(AtomicFile created, AtomicFile::Create(std::filesystem::absolute(*output_path)));
    file.emplace(std::move(created));
  }
  std::string buffer;
  auto flush = [&]() -> Status {
    const Status written = file ? file->Write(buffer) : EmitVisible(stdout, buffer);
    buffer.clear();
    return written;
  };
  GS_TRY(write([&](std::string_view piece) -> Status {
    AppendNulsVisible(buffer, piece);  // no copy per row
    return buffer.size() >= 64 * 1024 ? flush() : Status{};
  }));
  GS_TRY(flush());
  return file ? file->Commit() : Status{};
}

Status WriteOutput(const std::string& text, const std::optional<std::string>& output_path) {
  if (!output_path) return Emit(stdout, text);
  // Atomic, so a failed export never leaves a half-written file behind.
  return WriteFileAtomically(std::filesystem::absolute(*output_path), NulsVisible(text));
}

// With several objectives or constraints, the reported metric --sort names (an
// objective, or a constraint's metric: ascending), which orders rows by itself rather
// than by Pareto rank; nullopt for any other key.
std::optional<MetricSpec> SortMetric(const std::string& key, const Objective& objective) {
  if (!objective.multi() && !objective.constrained()) return std::nullopt;
  for (const MetricSpec& m : objective.metrics())
    if (m.name == key) return objective.multi() ? std::optional<MetricSpec>(m) : std::nullopt;
  for (const ConstraintSpec& c : objective.constraints())
    if (c.metric == key) return MetricSpec{c.metric, Mode::kMin};
  return std::nullopt;
}

// --sort, --top and --state as StatusOptions; the names a trial's params may be sorted
// by come from the recorded trials.
Expected<StatusOptions> ParseStatusOptions(const StatusCommandArgs& args,
                                           const std::vector<TrialRecord>& trials,
                                           const Objective& objective) {
  const MetricSpec& metric = objective.primary();
  StatusOptions options;
  options.top = args.top;
  if (args.top > 0) options.sort = StatusSort::kObjective;
  if (args.state) {
    options.state = TrialStateFromString(*args.state);
    if (!options.state)
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--state '{}' is not a trial state; use completed, pruned, failed, "
                              "running, interrupted or paused",
                              *args.state));
  }
  if (!args.sort) return options;
  const std::string& key = *args.sort;
  if (key == "number" || key == "trial") options.sort = StatusSort::kNumber;
  else if (key == "duration") options.sort = StatusSort::kDuration;
  else if (const std::optional<MetricSpec> by = SortMetric(key, objective)) {
    options.sort = StatusSort::kMetric;
    options.sort_metric = *by;
  } else if (key == "objective" || key == "metric" || key == metric.name)
    options.sort = StatusSort::kObjective;
  else {
    std::vector<std::string> names;
    for (const TrialRecord& t : trials)
      for (const auto& [name, unused] : FlattenParams(t.params))
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      const std::vector<std::string> metrics = objective.MetricNames();
      std::vector<std::string_view> choices{"number", "duration", "objective"};
      choices.insert(choices.end(), metrics.begin(), metrics.end());
      choices.insert(choices.end(), names.begin(), names.end());
      const auto close = ClosestMatch(key, choices);
      const std::string objectives =
          objective.multi() || objective.constrained()
              ? fmt::format("objective (Pareto order), a metric ({})", fmt::join(metrics, ", "))
              : fmt::format("objective ({})", metric.name);
      return Fail(ErrorCode::kInvalidArgument,
                  fmt::format("--sort '{}' is neither a metric nor a param; use number, "
                              "duration, {} or a param ({}){}",
                              key, objectives, fmt::join(names, ", "),
                              close ? fmt::format("; did you mean '{}'?", *close) : ""));
    }
    options.sort = StatusSort::kParam;
    options.sort_param = key;
  }
  return options;
}

// Whether --sort names a param or one metric of several (not number, duration or the
// objective): an order only the whole read gives.
bool SortsByParamOrMetric(const StatusCommandArgs& args, const Objective& objective) {
  if (!args.sort) return false;
  const std::string& key = *args.sort;
  if (SortMetric(key, objective)) return true;
  return !(key == "number" || key == "trial" || key == "duration" || key == "objective" ||
           key == "metric" || key == objective.primary().name);
}

// The status rows a status without --top lists of an experiment it does not list whole:
// the latest ones (`--all` lists every trial).
constexpr int kStatusDefaultRows = 1000;

// --ignore names must be params of the experiment: a typo would otherwise be ignored
// silently and split the groups it was meant to merge. "seed" is the default and may be
// absent (then there is nothing to ignore).
Status CheckIgnoredNames(const std::vector<std::string>& ignored,
                         const std::vector<TrialRecord>& trials) {
  std::vector<std::string> names;
  for (const TrialRecord& t : trials)
    if (t.params.is_object())
      for (const auto& [name, unused] : t.params.items())
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  if (names.empty()) return {};
  for (const std::string& name : ignored) {
    if (name == "seed" || std::find(names.begin(), names.end(), name) != names.end()) continue;
    const auto close =
        ClosestMatch(name, std::vector<std::string_view>(names.begin(), names.end()));
    return Fail(ErrorCode::kInvalidArgument,
                fmt::format("--ignore '{}' is not a param of this experiment; its params: {}{}",
                            name, fmt::join(names, ", "),
                            close ? fmt::format("; did you mean '{}'?", *close) : ""));
  }
  return {};
}


// The trials a sliced report read, for the checks that look at params' names.
std::vector<TrialRecord> StatusSampleTrials(const TrialSlice& slice) {
  std::vector<TrialRecord> sample = slice.rows;
  sample.insert(sample.end(), slice.best_group.begin(), slice.best_group.end());
  if (slice.best) sample.push_back(*slice.best);
  return sample;
}

Status StatusWarnDeadRun(const ExperimentView& view, long running, bool cluster_jobs) {
  if (running > 0 && !view.run_alive())
    std::fprintf(stderr,
                 "warning: no gpusweep is running this experiment, yet %ld trial%s marked "
                 "running: the run that started them died. `gpusweep run` on its config "
                 "resumes it %s.\n",
                 running, running == 1 ? " is" : "s are",
                 cluster_jobs ? "and re-attaches their SLURM jobs (still queued or running, or "
                                "reads how they ended); nothing is submitted twice"
                              : "(and stops their leftover processes)");
  return {};
}

Status EmitStatusFooter(ExperimentView& view) {
  GS_ASSIGN_OR_RETURN(std::string quarantined, QuarantineLines(view.journal()));
  GS_TRY(Emit(stdout, quarantined));
  GS_ASSIGN_OR_RETURN(std::optional<WarmStartHistory> warm_start, LoadWarmStart(view.journal()));
  constexpr std::size_t kWarmStartListed = 10;
  if (warm_start)
    std::fputs(WarmStartListing(*warm_start, view.objective(), kWarmStartListed).c_str(),
               stdout);
  return {};
}

// `status` read by queries (ExperimentView::Slice, or ParetoSlice for several
// objectives or constraints): what it prints, not every trial.
Expected<int> SlicedStatus(OpenedForReading& opened, const StatusCommandArgs& args) {
  ExperimentView& view = opened.view;
  const MetricSpec& metric = view.meta().metric;
  GS_ASSIGN_OR_RETURN(StatusOptions options, ParseStatusOptions(args, {}, view.objective()));
  TrialQuery query;
  query.mode = metric.mode;
  query.state = options.state;
  query.order = options.sort == StatusSort::kObjective ? TrialQuery::Order::kObjective
                                                       : TrialQuery::Order::kNumber;
  query.limit = options.top;
  const bool capped = options.top <= 0 && !args.all;
  if (capped) {  // one more than listed tells whether the cap cut rows
    query.order = query.order == TrialQuery::Order::kNumber ? TrialQuery::Order::kNumberDescending
                                                            : query.order;
    query.limit = kStatusDefaultRows + 1;
  }
  ExperimentView::ParetoSliceRead pareto;
  if (view.SliceableByPareto()) {
    GS_ASSIGN_OR_RETURN(pareto, view.ParetoSlice(query, args.ignore));
  } else {
    GS_ASSIGN_OR_RETURN(pareto.read, view.Slice(query, args.ignore));
  }
  ExperimentView::SliceRead& read = pareto.read;
  TrialSlice& slice = read.slice;
  if (capped && slice.rows.size() > static_cast<size_t>(kStatusDefaultRows)) {
    if (query.order == TrialQuery::Order::kNumberDescending)
      slice.rows.erase(slice.rows.begin());  // ascending now: the oldest goes
    else
      slice.rows.pop_back();
    slice.rows_note = CappedRowsNote(
        query.order == TrialQuery::Order::kObjective ? "best" : "latest", kStatusDefaultRows);
  }
  GS_TRY(CheckIgnoredNames(args.ignore, StatusSampleTrials(slice)));
  options.running_steps = std::move(read.running_steps);
  options.ignored = args.ignore;  // the slice's best group is grouped so
  if (view.SliceableByPareto()) {
    GS_TRY(Emit(stdout, FormatStatus(slice, pareto.ranked, opened.context, options)));
    GS_TRY(Emit(stdout, FormatRankedParetoStatus(pareto.ranked, view.objective(),
                                                 opened.context.hypervolume_reference)));
  } else {
    GS_TRY(Emit(stdout, FormatStatus(slice, opened.context, options)));
  }
  GS_TRY(EmitStatusFooter(view));
  bool cluster_jobs = false;
  if (slice.counts.running > 0) {
    GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> running,
                        view.QueryTrials({TrialQuery::Order::kNumber, metric.mode,
                                          TrialState::kRunning, false, 0}));
    cluster_jobs = std::any_of(running.begin(), running.end(),
                               [](const TrialRecord& t) { return !t.job_id.empty(); });
  }
  GS_TRY(StatusWarnDeadRun(view, slice.counts.running, cluster_jobs));
  return 0;
}

}  // namespace

bool IsPbt(const ExperimentView& view) {
  return view.meta().scheduler && view.meta().scheduler->type == "pbt";
}

// Population-based training: each member's lineage (status) or the best one's schedule
// (best), from the trials and the parents their jobs' events name.
Expected<std::string> PbtLines(ExperimentView& view, const std::vector<TrialRecord>& trials,
                               bool schedule) {
  if (!IsPbt(view)) return std::string();
  GS_ASSIGN_OR_RETURN(const PbtLineage lineage, view.pbt_lineage());
  const MetricSpec& metric = view.meta().metric;
  return schedule ? PbtScheduleLines(trials, lineage, metric, view.resource())
                  : PbtPopulationLines(trials, lineage, metric);
}

Expected<int> StatusCommand(const StatusCommandArgs& args) {
  GS_ASSIGN_OR_RETURN(OpenedForReading opened, OpenForReading(args.dir));
  ExperimentView& view = opened.view;
  // cv, NAS and PBT (ExperimentView::ReadWhole), --group, --sort by duration or a param:
  // every trial is read.
  const bool sliced = (view.Sliceable() || view.SliceableByPareto()) && !args.group &&
                      !SortsByParamOrMetric(args, view.objective()) &&
                      !(args.sort && *args.sort == "duration");
  if (sliced) return SlicedStatus(opened, args);
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, view.Trials());
  GS_ASSIGN_OR_RETURN(StatusOptions options, ParseStatusOptions(args, trials, view.objective()));
  if (!args.all) options.cap = kStatusDefaultRows;  // as SlicedStatus lists them
  GS_TRY(CheckIgnoredNames(args.ignore, trials));
  // A running trial shows the value it last reported, so `status` during a sweep tells
  // how each trial is doing.
  GS_ASSIGN_OR_RETURN(options.running_steps, view.FillRunningObjectives(trials));
  if (args.group) {
    if (args.sort || args.top > 0 || args.state)
      return Fail(ErrorCode::kInvalidArgument,
                  "--group ranks groups by their mean; it does not go with --sort, --top or "
                  "--state");
    GS_TRY(Emit(stdout, FormatGroups(trials, opened.context, GroupingOptions{args.ignore, false})));
  } else {
    GS_TRY(Emit(stdout, FormatStatus(trials, opened.context, options)));
  }
  GS_ASSIGN_OR_RETURN(std::string population, PbtLines(view, trials, false));
  GS_TRY(Emit(stdout, population));
  if (const Objective objective = view.objective(); objective.multi() || objective.constrained()) {
    const bool cv = opened.context.cv.enabled();
    GS_TRY(Emit(stdout, FormatParetoStatus(cv ? ConfigurationRecords(trials, opened.context.cv) : trials,
                                           objective, opened.context.hypervolume_reference,
                                           cv ? "configuration" : "trial")));
  }
  GS_ASSIGN_OR_RETURN(std::optional<NasProgress> nas, view.Nas(trials));
  if (nas)
    for (const std::string& line : NasProgressLines(*nas)) GS_TRY(Emit(stdout, line + "\n"));
  GS_TRY(EmitStatusFooter(view));
  const auto running = std::count_if(trials.begin(), trials.end(), [](const TrialRecord& t) {
    return t.state == TrialState::kRunning;
  });
  // Cluster jobs (a journaled job id) outlive their controller and are followed again;
  // local trials' processes are stopped and the trials run again.
  const bool cluster_jobs = std::any_of(trials.begin(), trials.end(), [](const TrialRecord& t) {
    return t.state == TrialState::kRunning && !t.job_id.empty();
  });
  GS_TRY(StatusWarnDeadRun(view, static_cast<long>(running), cluster_jobs));
  return 0;
}

// `best --replay`: the config that trains one member with the best member's schedule.
Expected<int> BestReplay(OpenedForReading& opened) {
  ExperimentView& view = opened.view;
  if (!IsPbt(view))
    return Fail(ErrorCode::kInvalidArgument,
                "--replay writes the schedule of a population-based training experiment "
                "(scheduler: {type: pbt}); this experiment has none");
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, view.Trials());
  GS_ASSIGN_OR_RETURN(const PbtLineage lineage, view.pbt_lineage());
  const MetricSpec& metric = view.meta().metric;
  const PbtSchedule schedule = BestPbtSchedule(trials, lineage, metric);
  if (schedule.best == nullptr) {
    GS_TRY(Emit(stderr, FormatNoBest(trials, opened.context)));
    return 1;
  }
  if (!view.recorded())
    return Fail(ErrorCode::kNotFound, "the journal holds no config text to rewrite");
  std::vector<Params> params;
  for (const PbtScheduleSegment& segment : schedule.segments) params.push_back(segment.params);
  const std::string comment =
      fmt::format("gpusweep best --replay of {}: the schedule of trial {} ({} {:.6g}); save "
                  "this file beside {} (its paths are relative to it)",
                  view.recorded()->name, schedule.best->number, metric.name,
                  *schedule.best->objective, view.recorded()->config_path);
  GS_ASSIGN_OR_RETURN(std::string yaml, PbtReplayYaml(view.recorded()->config_yaml, params,
                                                      schedule.segments.back().to, comment));
  GS_TRY(Emit(stdout, yaml));
  return 0;
}

// `best` with several objectives or constraints and no cv, from ranking rows (Journal::
// LoadRankingRows: one SQL pass, the metrics extracted by SQLite, no record per trial)
// whose front members alone are then read whole: 0.7 s and 198 MB at 100,000 trials
// when every trial was read (issue 25). nullopt when no trial completed: the caller says
// why from every trial.
Expected<std::optional<int>> BestOfRankingRows(OpenedForReading& opened, const Objective& objective,
                                               const BestCommandArgs& args) {
  std::vector<ParetoTrial> order;
  {
    GS_ASSIGN_OR_RETURN(const RankingRows rows,
                        opened.view.journal().LoadRankingRows(objective.MetricNames()));
    order = RankParetoRows(rows, objective);
  }  // the rows freed before the members are read
  if (order.empty()) return std::optional<int>();
  // The members (ParetoBestMembers: the first front) read whole, each entry pointed at
  // its record: the same metrics, so the same ranking, now with params. Reserved so
  // that the pointers stay put.
  std::vector<TrialRecord> members;
  members.reserve(ParetoBestMembers(order).size());
  for (ParetoTrial& entry : order) {
    if (entry.rank != order.front().rank) break;  // in Pareto order: the first front ends
    GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> whole, opened.view.Trial(entry.number));
    if (!whole)  // journal rows are never deleted: a damaged journal
      return Fail(ErrorCode::kJournal,
                  fmt::format("trial {} was ranked but could not be read back from the journal", entry.number));
    members.push_back(std::move(*whole));
    entry.trial = &members.back();
  }
  GS_TRY(CheckIgnoredNames(args.ignore, members));
  if (args.json) {
    GS_TRY(Emit(stdout, RankedParetoBestJson(order, objective, opened.context.hypervolume_reference, {},
                                             opened.context.experiment_dir)
                                .dump(2) + "\n"));
    return std::optional<int>(0);
  }
  const std::optional<std::string> front = FormatRankedParetoBest(order, opened.context, objective);
  if (!front) return std::optional<int>();
  GS_TRY(Emit(stdout, *front));
  return std::optional<int>(0);
}

Expected<int> BestCommand(const BestCommandArgs& args) {
  GS_ASSIGN_OR_RETURN(OpenedForReading opened, OpenForReading(args.dir));
  if (args.replay) return BestReplay(opened);
  // Several objectives or constraints: the Pareto front (report/pareto_views.h). Not for
  // NAS: its result is the retrain (or latest confirm), constraints or not.
  const Objective objective = opened.view.objective();
  const bool front = (objective.multi() || objective.constrained()) && !opened.context.nas;
  if (args.json && !front)  // before any path: --json is never a text report
    return Fail(ErrorCode::kInvalidArgument,
                opened.context.nas
                    ? "--json lists a Pareto front: a NAS experiment's result is one trial (its "
                      "retrain); use export --format json for it and the search's state"
                    : "--json lists a Pareto front: this experiment has one metric and no "
                      "constraints; use export --format json for every trial");
  if (opened.view.Sliceable()) {  // the counts, the best trial and group: not every trial
    GS_ASSIGN_OR_RETURN(ExperimentView::SliceRead read, opened.view.Slice(std::nullopt, args.ignore));
    GS_TRY(CheckIgnoredNames(args.ignore, StatusSampleTrials(read.slice)));
    std::optional<std::string> best =
        FormatBest(read.slice, opened.context, GroupingOptions{args.ignore, args.single});
    if (!best) {
      GS_TRY(Emit(stderr, FormatNoBest(read.slice, opened.context)));
      return 1;
    }
    GS_TRY(Emit(stdout, *best));
    return 0;
  }
  if (front && !opened.context.cv.enabled()) {
    GS_ASSIGN_OR_RETURN(std::optional<int> code, BestOfRankingRows(opened, objective, args));
    if (code) return *code;
  }
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, opened.view.Trials());
  GS_TRY(CheckIgnoredNames(args.ignore, trials));
  if (front) {
    // Under cv the front is of configurations, each valued by its folds' means.
    const CvConfig& cv = opened.context.cv;
    const std::vector<TrialRecord> ranked = cv.enabled() ? ConfigurationRecords(trials, cv) : trials;
    if (args.json) {
      GS_TRY(Emit(stdout, ParetoBestJson(ranked, objective, opened.context.hypervolume_reference, cv,
                                         opened.context.experiment_dir)
                              .dump(2) + "\n"));
      return 0;
    }
    if (std::optional<std::string> front = FormatParetoBest(ranked, opened.context, objective)) {
      GS_TRY(Emit(stdout, *front));
      return 0;
    }
    GS_TRY(Emit(stderr, FormatNoBest(trials, opened.context)));
    return 1;
  }
  std::optional<std::string> best =
      FormatBest(trials, opened.context, GroupingOptions{args.ignore, args.single});
  if (!best) {
    GS_TRY(Emit(stderr, FormatNoBest(trials, opened.context)));
    return 1;
  }
  GS_TRY(Emit(stdout, *best));
  GS_ASSIGN_OR_RETURN(std::string schedule, PbtLines(opened.view, trials, true));
  GS_TRY(Emit(stdout, schedule));
  return 0;
}

Expected<int> PrintText(const std::string& text, const std::optional<std::string>& output_path) {
  GS_TRY(WriteOutput(text, output_path));
  return 0;
}

Expected<int> ExportCommand(const std::optional<std::string>& dir, ExportFormat format,
                            ExportRows rows, const std::optional<std::string>& output_path) {
  GS_ASSIGN_OR_RETURN(OpenedForReading opened, OpenForReading(dir));
  ExperimentView& view = opened.view;
  if (format == ExportFormat::kOptuna && rows == ExportRows::kSteps)
    return Fail(ErrorCode::kInvalidArgument,
                "--steps goes with --format csv or json; --format optuna already holds each "
                "trial's intermediate values");
  // Optuna's study and a NAS experiment's JSON (the tournament beside the trials) are
  // one JSON value built whole; every other export streams (issue 25), both of its
  // passes in one snapshot of the journal.
  if (format == ExportFormat::kOptuna || (format == ExportFormat::kJson && view.is_nas())) {
    GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, view.Trials());
    std::string text;
    if (format == ExportFormat::kOptuna) {
      GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> results, view.Results(trials));
      text = ExportOptuna(trials, results, view.search_space_json(), opened.context);
    } else {
      text = ExportJson(trials, view.meta().cv, opened.context.pareto);
      GS_ASSIGN_OR_RETURN(std::optional<NasProgress> nas, view.Nas(trials));
      if (nas) text = Json{{"trials", Json::parse(text)}, {"nas", NasProgressJson(*nas)}}.dump(2) + "\n";
    }
    GS_TRY(WriteOutput(text, output_path));
    return 0;
  }
  const ExportText text_format = format == ExportFormat::kCsv ? ExportText::kCsv : ExportText::kJson;
  TrialExportOptions options{view.meta().cv, opened.context.pareto, DeclaredNames(view.search_space()), {}};
  if (IsPbt(view)) {
    GS_ASSIGN_OR_RETURN(PbtLineage lineage, view.pbt_lineage());
    options.pbt = {lineage.population, std::move(lineage.parents)};
  }
  Journal& journal = view.journal();
  GS_TRY(StreamOutput(output_path, [&](const TextSink& out) {
    return journal.InSnapshot([&]() -> Status {
      if (rows == ExportRows::kSteps)
        return WriteStepsExport(text_format, [&](const Journal::ResultVisitor& visit) {
          return journal.ForEachResult(visit);
        }, out);
      return WriteTrialExport(text_format, [&](const Journal::TrialVisitor& visit) {
        return journal.ForEachTrial(TrialQuery{}, visit);
      }, out, options);
    });
  }));
  return 0;
}

Expected<int> ShowCommand(const std::string& trial_id, const std::optional<std::string>& dir) {
  GS_ASSIGN_OR_RETURN(int number, ParseTrialId(trial_id));
  GS_ASSIGN_OR_RETURN(OpenedForReading opened, OpenForReading(dir));
  ExperimentView& view = opened.view;
  GS_ASSIGN_OR_RETURN(std::optional<TrialRecord> trial, view.Trial(number));
  if (!trial && number >= view.meta().total_trials)
    return Fail(ErrorCode::kNotFound,
                fmt::format("there is no trial {} in {}: it plans trials 0 to {}", number,
                            view.dir().string(), view.meta().total_trials - 1));
  if (!trial)
    return Fail(ErrorCode::kNotFound,
                fmt::format("trial {} of {} is still queued: it has not started yet", number,
                            view.dir().string()));
  GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> results, view.Results(number));
  std::string tail = LogTail(view.files().trial(number).output_log(), kLogTailLines);
  // What the trial wrote, shown rather than obeyed on a terminal (failure reasons are
  // sanitized when recorded); piped, as written (docs/config.md).
  if (opened.tty) tail = ControlsVisible(tail);
  GS_ASSIGN_OR_RETURN(std::vector<SchedulerEventRecord> events, view.SchedulerEvents(number));
  const std::vector<std::string> decisions = TrialDecisionLines(events, view.resource(), *trial);
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> siblings, view.FoldSiblings(number));  // cv
  GS_TRY(Emit(stdout, FormatTrial(*trial, results, tail, opened.context,
                                  decisions, siblings)));
  GS_ASSIGN_OR_RETURN(std::string memory, TrialGpuMemoryLine(view.journal(), number));
  GS_TRY(Emit(stdout, memory));
  return 0;
}

}  // namespace gpusweep
