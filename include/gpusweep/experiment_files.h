// experiment_files.h — the one place that names an experiment's files. Every module
// that reads or writes inside an experiment directory gets the path from here; none
// composes one from strings ("gpusweep.db", "trials/...") of its own, so the layout
// can change in one file and the front ends cannot drift from what the run writes.
//
//   <dir>/                     ExperimentFiles{dir}; runs/<name>/ by default
//     gpusweep.db              journal()   the SQLite journal. Written by the running
//                                          gpusweep only (run, under the lock); read
//                                          read-only by status, best, export, show,
//                                          serve and report (src/view).
//     gpusweep.lock            lock()      flock'ed by the running gpusweep, holds its
//                                          pid (journal's ExperimentLock); "is a run
//                                          alive" is "is it held".
//     experiment.json          meta()      name, metric, planned trials, config path,
//                                          scheduler, cv: written by run before its first
//                                          trial (run/experiment_meta.h), read by the
//                                          front ends through src/view.
//     trials/                  trials_dir()
//       0007/                  trial(7)    trial 7's working directory (TrialFiles):
//         params.json          params()       its parameters (run writes, the trial reads)
//         output.log           output_log()   its stdout and stderr
//         metrics.jsonl        metrics()      what this attempt reported
//         metrics.<kept>.jsonl, output.<kept>.log   an earlier attempt's ("attempt1"),
//                                          or files no journaled attempt owns ("unrecorded")
//         verdicts.jsonl       verdicts()     an iterative scheduler's answers
//         gpusweep-job.sh      job_script()   backend slurm: the job script
//         gpusweep-exit.<id>   exit_record(id) backend slurm: the job's exit status
//         checkpoint/          checkpoint()   a PBT trial's checkpoint ($GPUSWEEP_CHECKPOINT_DIR):
//                                          run copies its parent's here before it starts;
//                                          the trial saves here (docs/protocol.md)
//           gpusweep-checkpoint.json  checkpoint_marker()  written last by the trial:
//                                          {"trial": n, "resource": r}; the checkpoint is
//                                          trial n's own and complete
//         checkpoint.incoming/ checkpoint_incoming()  run's copy of the parent's, renamed
//                                          to checkpoint/ once whole
//
// The recorded config (the YAML text as run, its path and identity) is not a file: it
// is the journal's experiment row (ExperimentRecord), so it survives the YAML's
// templates moving; src/view gives it to the front ends.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpusweep/trial.h"

namespace gpusweep {

// File names inside an experiment directory (the journal's own tests and copies need
// the bare names; everything else uses ExperimentFiles).
inline constexpr std::string_view kJournalFileName = "gpusweep.db";
inline constexpr std::string_view kLockFileName = "gpusweep.lock";
inline constexpr std::string_view kMetaFileName = "experiment.json";
inline constexpr std::string_view kTrialsDirName = "trials";
// Where `gpusweep run` puts an experiment without an explicit directory, and where the
// read commands and `serve` look for experiments: <cwd>/runs/<name>.
inline constexpr std::string_view kRunsDirName = "runs";

// One trial's directory and the files gpusweep and the trial exchange in it. The names
// are also constants: the run writes them relative to an open directory (*at calls),
// and config refuses templates that would overwrite them.
struct TrialFiles {
  static constexpr const char* kParams = "params.json";
  static constexpr const char* kOutputLog = "output.log";
  static constexpr const char* kMetrics = "metrics.jsonl";
  static constexpr const char* kVerdicts = "verdicts.jsonl";
  static constexpr const char* kJobScript = "gpusweep-job.sh";
  static constexpr const char* kExitRecordPrefix = "gpusweep-exit.";
  static constexpr const char* kCheckpoint = "checkpoint";
  static constexpr const char* kCheckpointIncoming = "checkpoint.incoming";
  static constexpr const char* kCheckpointMarker = "gpusweep-checkpoint.json";

  std::filesystem::path dir;

  std::filesystem::path params() const { return dir / kParams; }
  std::filesystem::path output_log() const { return dir / kOutputLog; }
  std::filesystem::path metrics() const { return dir / kMetrics; }
  std::filesystem::path verdicts() const { return dir / kVerdicts; }
  std::filesystem::path job_script() const { return dir / kJobScript; }
  std::filesystem::path checkpoint() const { return dir / kCheckpoint; }
  std::filesystem::path checkpoint_incoming() const { return dir / kCheckpointIncoming; }
  std::filesystem::path checkpoint_marker() const { return checkpoint() / kCheckpointMarker; }
  std::filesystem::path exit_record(std::string_view job_id) const {
    return dir / (std::string(kExitRecordPrefix) + std::string(job_id));
  }
  // Names an earlier attempt's files are kept under: `kept` is "attempt<N>" or
  // "unrecorded" (see the table above).
  static std::string KeptOutputLog(std::string_view kept) { return fmt::format("output.{}.log", kept); }
  static std::string KeptMetrics(std::string_view kept) { return fmt::format("metrics.{}.jsonl", kept); }
};

// An experiment directory's files. A value: it opens nothing and checks nothing.
struct ExperimentFiles {
  std::filesystem::path dir;

  // The directory `gpusweep run` uses for experiment `name` started in `cwd`.
  static ExperimentFiles Default(const std::filesystem::path& cwd, std::string_view name) {
    return {cwd / kRunsDirName / name};
  }

  std::filesystem::path journal() const { return dir / kJournalFileName; }
  std::filesystem::path lock() const { return dir / kLockFileName; }
  std::filesystem::path meta() const { return dir / kMetaFileName; }
  std::filesystem::path trials_dir() const { return dir / kTrialsDirName; }
  TrialFiles trial(int number) const { return {trials_dir() / TrialDirName(number)}; }
  std::filesystem::path trial_dir(int number) const { return trial(number).dir; }
};

}  // namespace gpusweep
