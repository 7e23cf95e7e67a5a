// event_sim.h — a discrete-event simulation of gpusweep's run loop driving a Scheduler
// over a synthetic Workload, on a virtual clock (nothing sleeps, nothing is timed).
//
// Contract: Simulate() drives `scheduler` exactly as the run loop does. Whenever a
// worker is free it asks NextJob(): kStart/kPromote → JobStarted(job) and the job
// occupies that worker; kWait → the free workers idle until the next event; kDone with
// no job running → the run ends. A job runs its configuration's steps one by one
// (durations from the workload):
//  - iterative style: steps 1..budget, OnReport after each; a kStop decision ends the
//    job at once (OnJobFinished with the last value) and frees its worker;
//  - budgeted style: steps from the trial's previous budget + 1 to the job's budget (a
//    promotion resumes from the trial's checkpoint, so only the extra steps cost time),
//    then OnJobFinished with the value at the budget.
// A configuration that crashes reports no value at its crash step (OnReport with
// nullopt) and its job ends with OnJobFinished(job, nullopt).
// With a finite SimOptions::horizon the run is cut there: no event after it is
// processed (the jobs still running are simply abandoned, nothing is reported for them)
// and busy time is counted only inside [0, horizon].
// Contract violations seen (a job for a running trial, kPromote in iterative style,
// kWait with nothing running, a decision at a budgeted report, ...) are returned in
// SimResult::problems; the run stops at the first one that makes going on meaningless.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gpusweep/scheduler.h"
#include "learning_curves.h"

namespace gpusweep::bench {

struct SimOptions {
  int workers = 16;
  // A configuration counts as found when a trial reports, at max_steps, a value within
  // this fraction of `target_reference` (NaN: Workload::BestFinal()).
  double target_fraction = 0.01;
  // Busy worker-seconds at which SimResult::best_at_budget is read.
  std::vector<double> budgets;
  // Virtual seconds after which the run is cut (infinity: run until the scheduler is
  // done and every job has ended).
  double horizon = std::numeric_limits<double>::infinity();
  double target_reference = std::numeric_limits<double>::quiet_NaN();
};

struct SimResult {
  // Virtual seconds until the last job ended, or SimOptions::horizon if the run was cut
  // there (cut_at_horizon).
  double makespan = 0;
  bool cut_at_horizon = false;
  double busy = 0;  // worker-seconds during which a job ran (inside [0, horizon])
  // Virtual time of the last job launch (kStart or kPromote) and the busy worker-time by
  // then: after it the scheduler can do nothing about idle workers (the pool is drained).
  double last_launch = 0;
  double busy_until_last_launch = 0;
  double time_to_target = std::numeric_limits<double>::infinity();
  // Per SimOptions::budgets: the best value reported at max_steps while the busy
  // worker-time was within the budget (NaN: no trial reached max_steps by then).
  std::vector<double> best_at_budget;
  // The best value reported at max_steps during the run (NaN: none reached max_steps).
  double best_value = std::numeric_limits<double>::quiet_NaN();
  int started = 0;       // configurations started (kStart)
  int promotions = 0;    // kPromote jobs
  int completed = 0;     // OnJobFinished verdicts kComplete
  int stopped = 0;       // kStop
  int paused = 0;        // kPause
  std::vector<std::string> problems;

  double Utilisation(int workers) const { return busy / (workers * makespan); }
  // Busy worker-time ÷ (workers × seconds): utilisation over [0, seconds], e.g. over a
  // horizon, counting the time after the run ended (if it ended sooner) as idle.
  double UtilisationOver(int workers, double seconds) const {
    return busy / (workers * seconds);
  }
  double UtilisationUntilLastLaunch(int workers) const {
    return last_launch > 0 ? busy_until_last_launch / (workers * last_launch) : 1.0;
  }
};

SimResult Simulate(Scheduler& scheduler, const Workload& workload, const SimOptions& options);

// The policy of scheduler `none` (MakeScheduler returns nullptr for it): start the
// configurations in trial-number order, each as one iterative job to `max_resource`.
std::unique_ptr<Scheduler> MakeRunEveryTrialToEnd(int configurations, double max_resource);

}  // namespace gpusweep::bench
