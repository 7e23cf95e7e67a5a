// Ranking and the live progress line.
#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "gpusweep/cv.h"
#include "gpusweep/objective.h"
#include "gpusweep/report.h"
#include "report/pareto_views.h"
#include "report/text.h"

namespace gpusweep {
namespace {

bool Better(const TrialRecord* a, const TrialRecord* b, Mode mode) {
  if (const auto order = Order(mode, a->objective, b->objective); order != 0) return order < 0;
  return a->number < b->number;
}

// Mean duration of trials that finished for good, nullopt when none has.
std::optional<double> MeanFinishedDuration(const std::vector<TrialRecord>& trials) {
  double sum = 0;
  int count = 0;
  for (const TrialRecord& t : trials) {
    const bool finished = t.state == TrialState::kCompleted || t.state == TrialState::kFailed;
    if (!finished || t.start_time <= 0 || t.end_time < t.start_time) continue;
    sum += t.end_time - t.start_time;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

}  // namespace

namespace {

// The trials RankTrials ranks, in number order.
std::vector<const TrialRecord*> Rankable(const std::vector<TrialRecord>& trials) {
  std::vector<const TrialRecord*> ranked;
  for (const TrialRecord& t : trials) {
    if (t.state == TrialState::kCompleted && t.objective && !std::isnan(*t.objective))
      ranked.push_back(&t);
  }
  return ranked;
}

}  // namespace

std::vector<const TrialRecord*> RankTrials(const std::vector<TrialRecord>& trials,
                                           const MetricSpec& metric) {
  std::vector<const TrialRecord*> ranked = Rankable(trials);
  std::sort(ranked.begin(), ranked.end(), [&](const TrialRecord* a, const TrialRecord* b) {
    return Better(a, b, metric.mode);
  });
  return ranked;
}

std::vector<const TrialRecord*> RankTrials(const std::vector<TrialRecord>& trials,
                                           const MetricSpec& metric, std::size_t limit) {
  std::vector<const TrialRecord*> ranked = Rankable(trials);
  const std::size_t kept = std::min(limit, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(kept),
                    ranked.end(), [&](const TrialRecord* a, const TrialRecord* b) {
                      return Better(a, b, metric.mode);
                    });
  ranked.resize(kept);
  return ranked;
}

Progress ComputeProgress(const std::vector<TrialRecord>& trials, const ReportContext& ctx,
                         int concurrency, double started_at) {
  Progress p;
  for (const TrialRecord& t : trials) {
    switch (t.state) {
      case TrialState::kCompleted: ++p.done; break;
      case TrialState::kFailed: ++p.done, ++p.failed; break;
      case TrialState::kRunning: ++p.running; break;
      case TrialState::kInterrupted: ++p.interrupted; break;
      case TrialState::kPruned:
      case TrialState::kPaused: ++p.done; break;
    }
  }
  p.queued = std::max(0, ctx.total_trials - p.done - p.running);
  if (ctx.cv.enabled()) {  // the best configuration's mean, never a single fold's value
    const std::vector<CvConfiguration> configurations = GroupFolds(trials, ctx.cv);
    if (const auto ranked = RankConfigurations(configurations, ctx.metric); !ranked.empty()) {
      p.best = ranked.front()->mean;
      p.best_configuration = ranked.front()->configuration;
    }
  } else if (ctx.nas) {  // the search's result, never a search evaluation's score
    if (const std::optional<NasResult> result = FindNasResult(trials)) {
      p.best = result->trial->objective;
      p.best_trial = result->trial->number;
      p.best_stage = NasResultStage(*result);
    }
  } else if (ctx.pareto) {  // constraint-domination: infeasible trials are never the best
    const std::vector<ParetoTrial> ranked = RankParetoTrials(trials, *ctx.pareto);
    if (ctx.pareto->multi()) {
      p.pareto_front = static_cast<int>(std::count_if(ranked.begin(), ranked.end(), [](const ParetoTrial& t) {
        return t.rank == 0 && t.violation == 0;
      }));
    } else if (!ranked.empty() && ranked.front().violation == 0) {
      p.best = ranked.front().values[0];
      p.best_trial = ranked.front().number;
    }
  } else if (const auto ranked = RankTrials(trials, ctx.metric); !ranked.empty()) {
    p.best = ranked.front()->objective;
    p.best_trial = ranked.front()->number;
  }
  p.elapsed_seconds = std::max(0.0, ctx.now - started_at);

  if (p.running == 0 && p.queued == 0) {
    p.eta_seconds = 0;
  } else if (const auto mean = MeanFinishedDuration(trials)) {
    double work = p.queued * *mean;
    for (const TrialRecord& t : trials) {
      if (t.state == TrialState::kRunning)
        work += std::max(0.0, *mean - report::TrialDuration(t, ctx.now).value_or(0));
    }
    p.eta_seconds = work / std::max(1, concurrency);
  }
  return p;
}

std::string FormatProgressLine(const Progress& p, const ReportContext& ctx) {
  std::string line = fmt::format("{}  done {}/{}  running {}  queued {}", ctx.experiment_name,
                                 p.done, ctx.total_trials, p.running, p.queued);
  if (p.failed > 0) line += fmt::format("  failed {}", p.failed);
  if (p.interrupted > 0) line += fmt::format("  interrupted {}", p.interrupted);
  const char* best = ctx.nas ? "result" : "best";
  if (p.pareto_front) {
    line += fmt::format("  Pareto front {}", *p.pareto_front);
  } else if (p.best) {
    line += fmt::format("  {} {}={}", best, ctx.metric.name, report::FormatNumber(*p.best));
    if (p.best_trial && !p.best_stage.empty())
      line += fmt::format(" (#{}, {})", *p.best_trial, p.best_stage);
    else if (p.best_trial)
      line += fmt::format(" (#{})", *p.best_trial);
    if (p.best_configuration) line += fmt::format(" (config {})", *p.best_configuration);
  } else {
    line += fmt::format("  {} -", best);
  }
  line += "  elapsed " + FormatDuration(p.elapsed_seconds);
  line += "  ETA " + (p.eta_seconds ? FormatDuration(*p.eta_seconds) : std::string("-"));
  return report::Elide(line, ctx.width);
}

}  // namespace gpusweep
