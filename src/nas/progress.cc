// ReplayNas, NasProgressJson, NasProgressLines (gpusweep/nas.h).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpusweep/nas.h"
#include "gpusweep/objective.h"
#include "nas/tournament.h"

namespace gpusweep {
namespace {

using nas::Slot;
using nas::Stage;

// Each group's record; its best is of the feasible evaluations (all of them without
// constraints), so a stage whose only good results broke a constraint shows no best.
std::vector<NasStageRecord> StageRecords(const nas::StagePlan& plan,
                                         const std::vector<TrialRecord>& trials,
                                         const Objective& objective) {
  const Mode mode = objective.primary().mode;
  std::map<int, const TrialRecord*> by_number;
  for (const TrialRecord& trial : trials) by_number[trial.number] = &trial;
  std::vector<NasStageRecord> records;
  for (std::size_t k = 0; k < plan.slots.size(); ++k) {
    const Slot& slot = plan.slots[k];
    if (records.empty() || k == 0 || plan.slots[k - 1].group != slot.group)
      records.push_back(NasStageRecord{slot.block, std::string(nas::ToString(slot.stage)), slot.round,
                                       0, 0, 0, 0, slot.data_size, slot.epochs, {}, {}, 0, {}});
    NasStageRecord& record = records.back();
    ++record.evaluations;
    const auto found = by_number.find(static_cast<int>(k));
    if (found == by_number.end()) continue;
    const TrialRecord& trial = *found->second;
    if (trial.start_time > 0) record.start = std::min(record.start.value_or(trial.start_time), trial.start_time);
    const bool finished = trial.state == TrialState::kCompleted || trial.state == TrialState::kFailed ||
                          trial.state == TrialState::kPruned;
    if (!finished) continue;
    ++record.finished;
    record.end = std::max(record.end.value_or(trial.end_time), trial.end_time);
    record.cost += std::max(0.0, trial.end_time - trial.start_time);
    if (trial.state != TrialState::kCompleted || !trial.objective) {
      ++record.failed;
      continue;
    }
    if (objective.constrained() && !objective.Feasible(trial.last_metrics)) {
      ++record.infeasible;
      continue;
    }
    const double value = *trial.objective;
    if (!record.best || Better(mode, value, *record.best))
      record.best = value;
  }
  for (NasStageRecord& record : records)
    if (record.finished < record.evaluations) record.end.reset();
  return records;
}

Json Optional(const std::optional<double>& value) { return value ? Json(*value) : Json(nullptr); }

std::string Value(const std::optional<double>& value) {
  return value ? fmt::format("{:.4g}", *value) : std::string("failed");
}

// "0.91", "failed", "0.95, infeasible: violation 2.5" (constraints only); an infinite
// violation is a constraint metric that was not reported (or a failed evaluation).
std::string Value(const std::optional<double>& value, double violation) {
  if (violation == 0 || !value) return Value(value);
  if (std::isinf(violation))
    return fmt::format("{:.4g}, infeasible: a constraint metric not reported", *value);
  return fmt::format("{:.4g}, infeasible: violation {:.4g}", *value, violation);
}

Json Violation(double violation) {  // JSON has no infinity: a missing metric's is null
  return std::isfinite(violation) ? Json(violation) : Json(nullptr);
}

}  // namespace

NasProgress ReplayNas(const NasConfig& config, const Objective& objective,
                      const std::vector<TrialRecord>& trials) {
  const nas::Tournament tournament(config, objective);
  const nas::TournamentState state = tournament.Replay(trials);
  NasProgress progress;
  progress.policy = tournament.PolicyName();
  progress.search = config.search == NasSearch::kRandom      ? "random"
                    : config.search == NasSearch::kEvolution ? "evolution"
                                                             : "tournament";
  progress.topologies = static_cast<int>(tournament.pool().size());
  progress.evaluations = static_cast<int>(tournament.plan().slots.size());
  for (const nas::BlockOutcome& block : state.blocks) {
    NasBlockProgress out;
    out.block = block.block;
    out.round = static_cast<int>(block.rounds.size());
    for (int t = 0; t < progress.topologies; ++t) out.survivors.push_back(t);
    for (const nas::RoundOutcome& round : block.rounds) {
      if (!round.complete) break;
      for (const nas::RoundEntry& entry : round.entries) {
        if (!entry.eliminated) continue;
        out.eliminated.push_back(
            NasEliminated{entry.topology, round.round, entry.value, entry.violation});
        std::erase(out.survivors, entry.topology);
      }
    }
    out.winner = block.winner;
    out.confirm_trial = block.confirm_trial;
    out.confirm_score = block.confirm_score;
    out.confirm_violation = block.confirm_violation;
    progress.blocks.push_back(std::move(out));
  }
  progress.stages = StageRecords(tournament.plan(), trials, objective);
  progress.retrain_score = state.retrain_score;
  progress.retrain_violation = state.retrain_violation;
  const int retrain = progress.evaluations - 1;
  for (const TrialRecord& trial : trials)
    if (trial.number == retrain && trial.last_metrics.contains("test_acc") &&
        trial.last_metrics["test_acc"].is_number())
      progress.retrain_test = trial.last_metrics["test_acc"].get<double>();
  return progress;
}

Json NasProgressJson(const NasProgress& progress) {
  Json blocks = Json::array();
  for (const NasBlockProgress& block : progress.blocks) {
    Json eliminated = Json::array();
    for (const NasEliminated& e : block.eliminated)
      eliminated.push_back(Json{{"topology", e.topology}, {"round", e.round},
                                {"value", Optional(e.value)}, {"violation", Violation(e.violation)},
                                {"policy", progress.policy}});
    blocks.push_back(Json{{"block", block.block},
                          {"round", block.round},
                          {"survivors", block.survivors},
                          {"eliminated", std::move(eliminated)},
                          {"winner", block.winner ? Json(*block.winner) : Json(nullptr)},
                          {"confirm_trial", block.confirm_trial ? Json(*block.confirm_trial) : Json(nullptr)},
                          {"confirm_score", Optional(block.confirm_score)},
                          {"confirm_violation", Violation(block.confirm_violation)}});
  }
  Json stages = Json::array();
  for (const NasStageRecord& s : progress.stages)
    stages.push_back(Json{{"block", s.block}, {"stage", s.stage}, {"round", s.round},
                          {"evaluations", s.evaluations}, {"finished", s.finished},
                          {"failed", s.failed}, {"infeasible", s.infeasible},
                          {"data_size", s.data_size}, {"epochs", s.epochs},
                          {"start", Optional(s.start)}, {"end", Optional(s.end)},
                          {"cost_seconds", s.cost}, {"best", Optional(s.best)}});
  return Json{{"search", progress.search},
              {"elimination", progress.policy},
              {"topologies", progress.topologies},
              {"evaluations", progress.evaluations},
              {"blocks", std::move(blocks)},
              {"stages", std::move(stages)},
              {"retrain_score", Optional(progress.retrain_score)},
              {"retrain_violation", Violation(progress.retrain_violation)},
              {"retrain_test_acc", Optional(progress.retrain_test)}};
}

std::vector<std::string> NasProgressLines(const NasProgress& progress) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("NAS ({}, elimination {}): {} topologies, {} evaluations planned",
                              progress.search, progress.policy, progress.topologies,
                              progress.evaluations));
  for (const NasBlockProgress& block : progress.blocks) {
    std::string line = fmt::format("  block {}: round {}, survivors [{}]", block.block, block.round,
                                   fmt::join(block.survivors, ", "));
    if (block.winner) line += fmt::format(", winner topology {}", *block.winner);
    if (block.confirm_trial)
      line += fmt::format(", confirmed by trial {} ({})", *block.confirm_trial,
                          Value(block.confirm_score, block.confirm_violation));
    lines.push_back(std::move(line));
    for (const NasEliminated& e : block.eliminated)
      lines.push_back(fmt::format("    topology {} eliminated in round {} with {} {}", e.topology,
                                  e.round, progress.policy, Value(e.value, e.violation)));
  }
  lines.push_back("  stages:");
  for (const NasStageRecord& s : progress.stages) {
    if (s.finished == 0 && !s.start) continue;
    const std::string name = s.stage == "round" ? fmt::format("round {}", s.round) : s.stage;
    lines.push_back(fmt::format("    block {} {:<9} {}/{} done{}{}, data {}, epochs {}, cost {}{}",
                                s.block, name, s.finished, s.evaluations,
                                s.failed ? fmt::format(" ({} failed)", s.failed) : "",
                                s.infeasible ? fmt::format(" ({} infeasible)", s.infeasible) : "",
                                s.data_size == 0 ? std::string("all") : std::to_string(s.data_size),
                                s.epochs, FormatDuration(s.cost),
                                s.best ? fmt::format(", best {:.4g}", *s.best) : ""));
  }
  if (progress.retrain_score)
    lines.push_back(fmt::format("  retrain: {}{}", Value(progress.retrain_score, progress.retrain_violation),
                                progress.retrain_test
                                    ? fmt::format(", test_acc {:.4g}", *progress.retrain_test)
                                    : ""));
  return lines;
}

}  // namespace gpusweep
