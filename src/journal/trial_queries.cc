// The defaults of Journal's counting, ranking and grouping reads (gpusweep/journal.h):
// computed from LoadTrials(), for journals that cannot ask a database, and the reference
// the SQLite journal's queries are tested against.
#include <algorithm>
#include <cmath>
#include <map>

#include "common/group_rank.h"
#include "gpusweep/journal.h"
#include "gpusweep/objective.h"
#include "journal/records.h"

namespace gpusweep {
namespace journal_defaults {

bool IsRanked(const TrialRecord& t) {
  return t.state == TrialState::kCompleted && t.objective && !std::isnan(*t.objective);
}

}  // namespace journal_defaults

Expected<ChangedTrials> Journal::LoadTrialsChangedAfter(std::int64_t /*after*/) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  return ChangedTrials{std::move(trials), -1, true};
}

Expected<EarlyStoppingSavings> Journal::SumPrunedProgress(const std::string& resource,
                                                          double max_resource) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  EarlyStoppingSavings savings;
  for (const TrialRecord& t : trials) AddPrunedTrial(savings, t, resource, max_resource);
  return savings;
}

Expected<TrialCounts> Journal::CountTrials() {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  TrialCounts c;
  c.recorded = static_cast<int>(trials.size());
  for (const TrialRecord& t : trials) {
    switch (t.state) {
      case TrialState::kCompleted: ++c.completed; break;
      case TrialState::kRunning: ++c.running; break;
      case TrialState::kFailed: ++c.failed; break;
      case TrialState::kInterrupted: ++c.interrupted; break;
      case TrialState::kPruned: ++c.pruned; break;
      case TrialState::kPaused: ++c.paused; break;
    }
    if (journal_defaults::IsRanked(t)) ++c.ranked;
    c.repeats = c.repeats || t.repeat > 0;
    c.jobs = c.jobs || !t.job_id.empty();
  }
  return c;
}

Expected<std::vector<TrialRecord>> Journal::QueryTrials(const TrialQuery& query) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  std::erase_if(trials, [&](const TrialRecord& t) {
    return (query.state && t.state != *query.state) ||
           (query.ranked_only && !journal_defaults::IsRanked(t));
  });
  switch (query.order) {
    case TrialQuery::Order::kNumber: break;  // LoadTrials' order
    case TrialQuery::Order::kNumberDescending: std::reverse(trials.begin(), trials.end()); break;
    case TrialQuery::Order::kObjective:
      std::stable_sort(trials.begin(), trials.end(), [&](const TrialRecord& a, const TrialRecord& b) {
        return RanksBefore(query.mode, a.objective, b.objective);
      });
      break;
  }
  if (query.limit > 0 && trials.size() > static_cast<size_t>(query.limit))
    trials.resize(static_cast<size_t>(query.limit));
  return trials;
}

Status Journal::ForEachTrial(const TrialQuery& query, const TrialVisitor& visit) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, QueryTrials(query));
  for (const TrialRecord& t : trials) GS_TRY(visit(t));
  return {};
}

Expected<std::vector<int>> Journal::TrialNumbers(TrialState state) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  std::vector<int> numbers;
  for (const TrialRecord& t : trials)
    if (t.state == state) numbers.push_back(t.number);
  return numbers;
}

Expected<RankingRows> Journal::LoadRankingRows(const std::vector<std::string>& metrics) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  return RankingRowsOf(trials, metrics);
}

Status Journal::ForEachResult(const ResultVisitor& visit) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  for (const TrialRecord& t : trials) {
    GS_ASSIGN_OR_RETURN(std::vector<IntermediateResult> results, LoadResults(t.number));
    for (const IntermediateResult& r : results) GS_TRY(visit(r));
  }
  return {};
}

Expected<TrialGroupRanking> Journal::RankTrialGroups(const std::vector<std::string>& ignored,
                                                     Mode mode, int limit) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  struct Sum {
    TrialGroupRow row;
    double sum = 0;
    int spoiled = 0;
  };
  std::vector<Sum> groups;
  std::map<std::string, size_t> index;
  for (const TrialRecord& t : trials) {  // by number
    Json key = t.params;
    if (key.is_object())
      for (const std::string& name : ignored) key.erase(name);
    auto [it, inserted] = index.try_emplace(journal::DumpJson(key), groups.size());
    if (inserted) groups.push_back(Sum{TrialGroupRow{it->first, {}, 0, {}}, 0, 0});
    Sum& group = groups[it->second];
    group.row.numbers.push_back(t.number);
    if (journal_defaults::IsRanked(t)) {
      ++group.row.completed;
      group.sum += *t.objective;
    }
    group.spoiled += SpoilsItsGroup(t) ? 1 : 0;
  }
  TrialGroupRanking ranking;
  ranking.groups = static_cast<int>(groups.size());
  for (Sum& g : groups) {
    if (g.row.completed > 0) g.row.mean = g.sum / g.row.completed;
    ranking.repeats = ranking.repeats || g.row.numbers.size() > 1;
  }
  auto standing = [](const Sum& g) {
    return GroupStanding{g.row.completed, g.spoiled, g.row.mean.value_or(0), g.row.numbers.front()};
  };
  std::sort(groups.begin(), groups.end(),
            [&](const Sum& a, const Sum& b) { return GroupRanksBefore(mode, standing(a), standing(b)); });
  for (Sum& g : groups) {
    if (limit > 0 && ranking.top.size() >= static_cast<size_t>(limit)) break;
    ranking.top.push_back(std::move(g.row));
  }
  return ranking;
}

Expected<bool> Journal::EveryTrialHas(const std::vector<std::string>& path, const Json& value) {
  GS_ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, LoadTrials());
  if (trials.empty()) return false;
  for (const TrialRecord& t : trials) {
    const Json* at = &t.params;
    for (const std::string& name : path) {
      if (!at->is_object()) return false;
      const auto it = at->find(name);
      if (it == at->end()) return false;
      at = &*it;
    }
    if (*at != value) return false;
  }
  return true;
}

}  // namespace gpusweep
