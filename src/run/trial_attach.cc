// TrialLoop::Attach: supervising a job an earlier, dead run started (see reattach.h).
#include <algorithm>
#include <csignal>

#include <fmt/format.h>

#include "run/trial_loop.h"

#include "gpusweep/experiment_files.h"

namespace gpusweep {

void TrialLoop::Attach(AttachedJob job) {
  TrialRecord record = std::move(job.record);
  // The same number of GPUs (or a CPU slot) as it holds; the indices are this loop's
  // bookkeeping only: on a cluster the job's real GPUs are SLURM's business. A sweep
  // whose max_concurrent shrank since may hold more than it would start now.
  std::optional<std::vector<int>> resources = AcquireResources(record.number, static_cast<int>(record.gpus.size()));
  if (resources) {
    record.gpus = std::move(*resources);
  } else {
    record.gpus.clear();
    ++cpu_slots_in_use_;  // what ReleaseResources({}) gives back
  }
  const TrialFiles files = ExperimentFiles{options_.experiment_dir}.trial(record.number);
  // Its job, as the policy's replay left it running (a policy rebuilt from trial records
  // sees a plain start of the trial).
  Job running = job.job.value_or(Job{Job::Kind::kStart, record.number});
  Active active{job.id, record, MetricsReader(files.metrics()), {}, {}, {},
                false, {}, running, false, false, false, std::nullopt, 0, {}};
  if (policy_->judges_reports()) {
    // Its answers so far are in the file; the next ones follow them.
    Expected<VerdictFile> verdicts = VerdictFile::Reopen(files.verdicts());
    if (verdicts) active.verdicts = std::move(*verdicts);
    else observer_.OnWarning(fmt::format("trial {}: {}", record.number, verdicts.error().message));
  }
  if (job.stopped) {
    // The dead run pruned it: the stop is sent again (the job may have outlived the
    // grace period nobody enforced), and its end is judged as a prune, not as someone
    // else's scancel.
    active.pruned = true;
    active.stop_reason = "pruned: " + job.stopped->reason;
    services_.processes->SignalGroup(job.id, SIGTERM);
    active.kill_at = services_.monotonic_clock() + config_.kill_grace_seconds;
  }
  if (config_.timeout_seconds) {
    const double ran = services_.wall_clock() - record.start_time;
    active.deadline = services_.monotonic_clock() + std::max(0.0, *config_.timeout_seconds - ran);
  }
  // What this attempt reported so far is partly journaled already: those lines count for
  // its objective but are not stored twice.
  std::size_t journaled = 0;
  if (Expected<std::vector<IntermediateResult>> results = journal_.LoadResults(record.number))
    journaled = static_cast<std::size_t>(std::count_if(
        results->begin(), results->end(),
        [&](const IntermediateResult& r) { return r.attempt == record.attempt; }));
  MetricsBatch batch = active.metrics.Poll();
  const std::size_t known = std::min(journaled, batch.lines.size());
  for (std::size_t i = 0; i < known; ++i) {
    for (const auto& [key, value] : batch.lines[i].values.items())
      active.record.last_metrics[key] = value;
    active.lines.push_back(std::move(batch.lines[i]));
  }
  batch.lines.erase(batch.lines.begin(), batch.lines.begin() + static_cast<std::ptrdiff_t>(known));
  std::vector<IntermediateResult> fresh;
  Events events;
  AbsorbMetrics(active, std::move(batch), fresh, events);
  if (!fresh.empty()) Record(JournalWrite::Kind::kAppendResults, {}, std::move(fresh), std::move(events));
  Store(active.record);
  active_.emplace(job.id, std::move(active));
}

}  // namespace gpusweep
