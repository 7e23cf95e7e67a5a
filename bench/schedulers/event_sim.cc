#include "event_sim.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <string>

#include <fmt/format.h>

namespace gpusweep::bench {
namespace {

std::optional<double> AsReport(double value) {
  if (std::isnan(value)) return std::nullopt;
  return value;
}

// One run of the loop. Event = "worker w finished the step it was running".
class Simulation {
 public:
  Simulation(Scheduler& scheduler, const Workload& workload, const SimOptions& options)
      : scheduler_(scheduler),
        workload_(workload),
        options_(options),
        style_(scheduler.style()),
        workers_(options.workers),
        reached_(workload.configurations(), 0),
        ever_started_(workload.configurations(), false),
        running_trial_(workload.configurations(), false),
        finished_trial_(workload.configurations(), false) {
    result_.best_at_budget.assign(options.budgets.size(),
                                  std::numeric_limits<double>::quiet_NaN());
    const double reference = std::isnan(options.target_reference) ? workload.BestFinal()
                                                                   : options.target_reference;
    target_ = reference * (1 - options.target_fraction);
    job_limit_ = 100L * workload.configurations();
  }

  SimResult Run() {
    FillFreeWorkers();
    while (!stop_ && !events_.empty()) {
      const Event event = events_.top();
      if (event.time > options_.horizon) {
        AdvanceClock(options_.horizon);
        result_.cut_at_horizon = true;
        break;
      }
      events_.pop();
      AdvanceClock(event.time);
      OnStepDone(event.worker);
      FillFreeWorkers();
    }
    result_.makespan = now_;
    return std::move(result_);
  }

 private:
  struct Running {
    Job job;
    int next_step = 0;  // the step being run
    int end_step = 0;   // the last step of this job
    std::optional<double> last_value;
  };
  struct Event {
    double time;
    long sequence;  // ties break in scheduling order, for determinism
    int worker;
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };

  void Problem(std::string message, bool fatal) {
    result_.problems.push_back(fmt::format("t={:.0f}s: {}", now_, message));
    if (fatal) stop_ = true;
  }

  void AdvanceClock(double time) {
    busy_workers_seconds_ += running_count_ * (time - now_);
    result_.busy = busy_workers_seconds_;
    now_ = time;
  }

  int FreeWorker() const {
    for (std::size_t w = 0; w < workers_.size(); ++w) {
      if (!workers_[w]) return static_cast<int>(w);
    }
    return -1;
  }

  void FillFreeWorkers() {
    for (int worker = FreeWorker(); worker >= 0 && !stop_; worker = FreeWorker()) {
      const Job job = scheduler_.NextJob();
      if (job.kind == Job::Kind::kWait) {
        if (running_count_ == 0) {
          Problem("NextJob() says kWait with no job running: nothing can change its "
                  "answer (deadlock)", true);
        }
        return;
      }
      if (job.kind == Job::Kind::kDone) return;
      Launch(worker, job);
    }
  }

  bool Valid(const Job& job) {
    const int configs = workload_.configurations();
    if (job.trial < 0 || job.trial >= configs) {
      Problem(fmt::format("job for trial {} outside 0..{}", job.trial, configs - 1), true);
    } else if (running_trial_[job.trial]) {
      Problem(fmt::format("job for trial {} which is still running", job.trial), true);
    } else if (job.kind == Job::Kind::kStart && ever_started_[job.trial]) {
      Problem(fmt::format("kStart of trial {} which was started before", job.trial), true);
    } else if (job.kind == Job::Kind::kPromote &&
               (style_ == TrialStyle::kIterative || !ever_started_[job.trial])) {
      Problem(fmt::format("kPromote of trial {} (never started, or iterative style)",
                          job.trial), true);
    } else if (finished_trial_[job.trial]) {
      Problem(fmt::format("job for trial {} which was already stopped or completed",
                          job.trial), true);
    } else if (++jobs_ > job_limit_) {
      Problem(fmt::format("more than {} jobs: the scheduler keeps issuing jobs", job_limit_),
              true);
    }
    return !stop_;
  }

  void Launch(int worker, const Job& job) {
    if (!Valid(job)) return;
    scheduler_.JobStarted(job);
    ++(job.kind == Job::Kind::kStart ? result_.started : result_.promotions);
    result_.last_launch = now_;
    result_.busy_until_last_launch = busy_workers_seconds_;
    ever_started_[job.trial] = true;
    running_trial_[job.trial] = true;
    Running run;
    run.job = job;
    const int budget_steps = static_cast<int>(std::ceil(job.budget - 1e-9));
    run.end_step = std::min(budget_steps, workload_.max_steps());
    run.next_step = style_ == TrialStyle::kIterative ? 1 : reached_[job.trial] + 1;
    if (run.next_step > run.end_step) {
      Problem(fmt::format("job for trial {} to budget {} which it had already reached "
                          "(step {})", job.trial, job.budget, reached_[job.trial]), true);
      return;
    }
    if (run.next_step > 1) run.last_value = AsReport(workload_.Value(job.trial, reached_[job.trial]));
    workers_[worker] = run;
    ++running_count_;
    ScheduleStep(worker);
  }

  void ScheduleStep(int worker) {
    const Running& run = *workers_[worker];
    const double seconds = workload_.StepSeconds(run.job.trial, run.next_step);
    events_.push(Event{now_ + seconds, sequence_++, worker});
  }

  void RecordMaxStepValue(double value) {
    if (value >= target_ && std::isinf(result_.time_to_target)) result_.time_to_target = now_;
    if (!(value <= result_.best_value)) result_.best_value = value;
    for (std::size_t k = 0; k < options_.budgets.size(); ++k) {
      double& best = result_.best_at_budget[k];
      if (busy_workers_seconds_ <= options_.budgets[k] && !(value <= best)) best = value;
    }
  }

  void OnStepDone(int worker) {
    Running& run = *workers_[worker];
    const int trial = run.job.trial;
    const int step = run.next_step;
    const std::optional<double> value = AsReport(workload_.Value(trial, step));
    reached_[trial] = std::max(reached_[trial], step);
    run.last_value = value;
    if (value && step == workload_.max_steps()) RecordMaxStepValue(*value);
    const std::optional<Decision> decision = scheduler_.OnReport(trial, step, value);
    const bool crashed = !value;
    if (decision && style_ == TrialStyle::kBudgeted) {
      Problem(fmt::format("OnReport made a decision ({}) for trial {} in budgeted style",
                          ToString(decision->verdict), trial), false);
    }
    const bool stop = decision && style_ == TrialStyle::kIterative &&
                      decision->verdict == Verdict::kStop;
    if (crashed || stop || step >= run.end_step) {
      Finish(worker, run.last_value);
      return;
    }
    ++run.next_step;
    ScheduleStep(worker);
  }

  void Finish(int worker, std::optional<double> value) {
    const Running run = *workers_[worker];
    workers_[worker].reset();
    --running_count_;
    running_trial_[run.job.trial] = false;
    const Decision decision = scheduler_.OnJobFinished(run.job, value);
    switch (decision.verdict) {
      case Verdict::kComplete: ++result_.completed; break;
      case Verdict::kStop: ++result_.stopped; break;
      case Verdict::kPause: ++result_.paused; break;
      default:
        Problem(fmt::format("OnJobFinished returned {} for trial {}",
                            ToString(decision.verdict), run.job.trial), false);
    }
    if (decision.verdict == Verdict::kStop || decision.verdict == Verdict::kComplete) {
      finished_trial_[run.job.trial] = true;
    }
    const bool at_max = run.next_step == workload_.max_steps() && value;
    if (at_max && decision.verdict != Verdict::kComplete) {
      Problem(fmt::format("trial {} reached max_resource but its verdict is {}",
                          run.job.trial, ToString(decision.verdict)), false);
    }
  }

  Scheduler& scheduler_;
  const Workload& workload_;
  const SimOptions& options_;
  const TrialStyle style_;
  std::vector<std::optional<Running>> workers_;
  std::vector<int> reached_;          // per trial: the last step it has run
  std::vector<bool> ever_started_;
  std::vector<bool> running_trial_;
  std::vector<bool> finished_trial_;  // verdict kStop or kComplete seen
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  SimResult result_;
  double target_ = 0;
  double now_ = 0;
  double busy_workers_seconds_ = 0;
  int running_count_ = 0;
  long sequence_ = 0;
  long jobs_ = 0;
  long job_limit_ = 0;
  bool stop_ = false;
};

}  // namespace

SimResult Simulate(Scheduler& scheduler, const Workload& workload, const SimOptions& options) {
  return Simulation(scheduler, workload, options).Run();
}

}  // namespace gpusweep::bench
