#include "schedule/asha_bracket.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace gpusweep::schedule_detail {

AshaBracket::AshaBracket(int id, std::vector<double> rungs, double eta, Mode mode,
                         std::string resource_name, Ranking ranking)
    : id_(id),
      rungs_(std::move(rungs)),
      eta_(eta),
      resource_name_(std::move(resource_name)),
      ranking_(ranking),
      tables_(rungs_.size(), RungTable(mode, ranking)),
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

std::string AshaBracket::ParetoDetail(int rung, int trial) const {
  if (ranking_ != Ranking::kPareto) return "";
  const RungTable& table = tables_[rung];
  const int rank = table.RankOf(trial);
  if (rank < 0) return "";
  const RungTable::Entry& entry = table.ranked()[rank];
  if (!entry.value) return " (no value)";
  if (entry.violation > 0) return fmt::format(" (infeasible, violation {:.6g})", entry.violation);
  return fmt::format(" (front {}, crowding {:.6g})", entry.front + 1, entry.crowding);
}

Decision AshaBracket::RungDecision(int trial, int rung, double resource,
                                   const Evaluation& evaluation) {
  assert(rung >= 0 && static_cast<std::size_t>(rung) < tables_.size());
  const std::optional<double> value = Normalized(evaluation.value);
  RungTable& table = tables_[rung];
  table.Record(trial, evaluation);
  const int rank = table.RankOf(trial);
  const int keep = TopCount(table.size(), eta_, Rounding::kCeil);
  const bool continues = rank < keep;
  std::string reason = fmt::format("rank {}{} of {} at {}: ", rank + 1, ParetoDetail(rung, trial),
                                   table.size(), RungName(rung));
  reason += continues ? fmt::format("in the top {}, continues", keep)
                      : fmt::format("only the top {} continue", keep);
  return Decision{trial, id_, rung, resource, value,
                  continues ? Verdict::kContinue : Verdict::kStop, std::move(reason)};
}

std::optional<Decision> AshaBracket::OnReport(int trial, double resource,
                                              const Evaluation& evaluation) {
  if (stopped_.count(trial) != 0) return std::nullopt;  // already decided
  std::optional<Decision> decision;
  for (int rung = 0; rung < last_rung(); ++rung) {
    if (resource < rungs_[rung] * (1 - 1e-9)) break;  // rungs increase
    if (tables_[rung].Contains(trial)) continue;        // each rung once per trial
    decision = RungDecision(trial, rung, resource, evaluation);
    if (decision->verdict == Verdict::kStop) {
      stopped_[trial] = rung;
      break;
    }
  }
  return decision;
}

Job AshaBracket::PromotionJob(int trial, int from_rung) const {
  Job job;
  job.kind = Job::Kind::kPromote;
  job.trial = trial;
  job.bracket = id_;
  job.rung = from_rung + 1;
  job.budget = rungs_[from_rung + 1];
  return job;
}

std::optional<int> AshaBracket::BestUnpromoted(int rung, int limit) const {
  const RungTable& table = tables_[rung];
  if (ranking_ == Ranking::kValue) {
    if (candidates_[rung].empty()) return std::nullopt;
    const int best = candidates_[rung].begin()->trial;
    if (table.RankOf(best) >= limit) return std::nullopt;
    return best;
  }
  const int end = std::min(limit, table.size());
  for (int rank = 0; rank < end; ++rank) {
    const RungTable::Entry& entry = table.ranked()[rank];
    if (entry.value && promoted_[rung].count(entry.trial) == 0) return entry.trial;
  }
  return std::nullopt;
}

std::optional<Job> AshaBracket::Promotion() const {
  for (int rung = last_rung() - 1; rung >= 0; --rung) {
    const int limit = TopCount(tables_[rung].size(), eta_, Rounding::kFloor);
    if (auto trial = BestUnpromoted(rung, limit)) return PromotionJob(*trial, rung);
  }
  return std::nullopt;
}

std::optional<Job> AshaBracket::TailPromotion() const {
  if (completed_ > 0) return std::nullopt;
  for (int rung = last_rung() - 1; rung >= 0; --rung) {
    if (auto trial = BestUnpromoted(rung, tables_[rung].size())) return PromotionJob(*trial, rung);
  }
  return std::nullopt;
}

void AshaBracket::MarkPromoted(const Job& promotion) {
  if (promotion.rung < 1 || promotion.rung > last_rung()) return;
  const int from = promotion.rung - 1;
  promoted_[from].insert(promotion.trial);
  if (ranking_ == Ranking::kPareto) return;
  const int rank = tables_[from].RankOf(promotion.trial);
  if (rank >= 0) candidates_[from].erase(tables_[from].ranked()[rank]);
}

Decision AshaBracket::RecordFinished(const Job& job, const Evaluation& evaluation) {
  const std::optional<double> value = Normalized(evaluation.value);
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
  table.Record(job.trial, evaluation);
  if (ranking_ == Ranking::kValue && value && promoted_[rung].count(job.trial) == 0)
    candidates_[rung].insert({job.trial, value});
  if (!value) {
    decision.verdict = Verdict::kStop;
    decision.reason = fmt::format("no value at {}: failed, never promoted", RungName(rung));
    return decision;
  }
  decision.reason = fmt::format(
      "rank {}{} of {} at {}: paused; promoted while in the top 1/{:g} of the rung",
      table.RankOf(job.trial) + 1, ParetoDetail(rung, job.trial), table.size(), RungName(rung),
      eta_);
  return decision;
}

}  // namespace gpusweep::schedule_detail
