#include "schedule/asha_bracket.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace gpusweep::schedule_detail {

AshaBracket::AshaBracket(int id, std::vector<double> rungs, double eta, Mode mode,
                         std::string resource_name)
    : id_(id),
      rungs_(std::move(rungs)),
      eta_(eta),
      resource_name_(std::move(resource_name)),
      tables_(rungs_.size(), RungTable(mode)),
      promoted_(rungs_.size()),
      candidates_(rungs_.size(), Candidates(RankOrder{mode})) {}

std::string AshaBracket::RungName(int rung) const {
  return fmt::format("rung {} ({} {:g})", rung, resource_name_, rungs_[rung]);
}

std::optional<int> AshaBracket::StoppedAt(int trial) const {
  auto found = stopped_.find(trial);
  if (found == stopped_.end()) return std::nullopt;
  return found->second;
}

Job AshaBracket::StartJob(int trial, TrialStyle style) const {
  Job job;
  job.kind = Job::Kind::kStart;
  job.trial = trial;
  job.bracket = id_;
  job.rung = 0;
  assert(!rungs_.empty() && "a bracket has at least its first rung");
  job.budget = style == TrialStyle::kBudgeted ? rungs_.front() : rungs_.back();
  return job;
}

Decision AshaBracket::RungDecision(int trial, int rung, double resource,
                                   std::optional<double> value) {
  assert(rung >= 0 && static_cast<std::size_t>(rung) < tables_.size());
  RungTable& table = tables_[rung];
  table.Record(trial, value);
  const int rank = table.RankOf(trial);
  const int keep = TopCount(table.size(), eta_, Rounding::kCeil);
  const bool continues = rank < keep;
  std::string reason = fmt::format("rank {} of {} at {}: ", rank + 1, table.size(),
                                   RungName(rung));
  reason += continues ? fmt::format("in the top {}, continues", keep)
                      : fmt::format("only the top {} continue", keep);
  return Decision{trial, id_, rung, resource, value,
                  continues ? Verdict::kContinue : Verdict::kStop, std::move(reason)};
}

std::optional<Decision> AshaBracket::OnReport(int trial, double resource,
                                              std::optional<double> value) {
  if (stopped_.count(trial) != 0) return std::nullopt;  // already decided
  std::optional<Decision> decision;
  for (int rung = 0; rung < last_rung(); ++rung) {
    if (resource < rungs_[rung] * (1 - 1e-9)) break;  // rungs increase
    if (tables_[rung].Contains(trial)) continue;        // each rung once per trial
    decision = RungDecision(trial, rung, resource, Normalized(value));
    if (decision->verdict == Verdict::kStop) {
      stopped_[trial] = rung;
      break;
    }
  }
  return decision;
}

std::optional<Job> AshaBracket::Promotion() const {
  for (int rung = last_rung() - 1; rung >= 0; --rung) {
    if (candidates_[rung].empty()) continue;
    const RungTable::Entry& best = *candidates_[rung].begin();
    const RungTable& table = tables_[rung];
    if (table.RankOf(best.trial) >= TopCount(table.size(), eta_, Rounding::kFloor)) continue;
    Job job;
    job.kind = Job::Kind::kPromote;
    job.trial = best.trial;
    job.bracket = id_;
    job.rung = rung + 1;
    job.budget = rungs_[rung + 1];
    return job;
  }
  return std::nullopt;
}

std::optional<Job> AshaBracket::TailPromotion() const {
  if (completed_ > 0) return std::nullopt;
  for (int rung = last_rung() - 1; rung >= 0; --rung) {
    if (candidates_[rung].empty()) continue;
    Job job;
    job.kind = Job::Kind::kPromote;
    job.trial = candidates_[rung].begin()->trial;
    job.bracket = id_;
    job.rung = rung + 1;
    job.budget = rungs_[rung + 1];
    return job;
  }
  return std::nullopt;
}

void AshaBracket::MarkPromoted(const Job& promotion) {
  if (promotion.rung < 1 || promotion.rung > last_rung()) return;
  const int from = promotion.rung - 1;
  promoted_[from].insert(promotion.trial);
  const int rank = tables_[from].RankOf(promotion.trial);
  if (rank >= 0) candidates_[from].erase(tables_[from].ranked()[rank]);
}

Decision AshaBracket::RecordFinished(const Job& job, std::optional<double> value) {
  value = Normalized(value);
  const int rung = std::clamp(job.rung, 0, last_rung());
  Decision decision{job.trial, id_, rung, rungs_[rung], value, Verdict::kPause, ""};
  if (rung == last_rung()) {
    ++completed_;
    decision.verdict = Verdict::kComplete;
    decision.reason = fmt::format("reached max_resource ({} {:g})", resource_name_,
                                  rungs_[rung]);
    return decision;
  }
  RungTable& table = tables_[rung];
  if (table.Contains(job.trial))  // recorded again (not in normal use): drop the old entry
    std::erase_if(candidates_[rung], [&](const auto& e) { return e.trial == job.trial; });
  table.Record(job.trial, value);
  if (value && promoted_[rung].count(job.trial) == 0) candidates_[rung].insert({job.trial, value});
  if (!value) {
    decision.verdict = Verdict::kStop;
    decision.reason = fmt::format("no value at {}: failed, never promoted", RungName(rung));
    return decision;
  }
  decision.reason = fmt::format(
      "rank {} of {} at {}: paused; promoted while in the top 1/{:g} of the rung",
      table.RankOf(job.trial) + 1, table.size(), RungName(rung), eta_);
  return decision;
}

}  // namespace gpusweep::schedule_detail
