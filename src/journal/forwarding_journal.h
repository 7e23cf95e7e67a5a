// forwarding_journal.h — module-internal: a Journal that passes every call to another,
// the base of decorators that change one or two calls (read-only copies, slow disk).
#pragma once

#include <memory>
#include <utility>

#include "gpusweep/journal.h"

namespace gpusweep {

class ForwardingJournal : public Journal {
 public:
  explicit ForwardingJournal(std::unique_ptr<Journal> inner) : inner_(std::move(inner)) {}

  Status CreateExperiment(const ExperimentRecord& e) override { return inner_->CreateExperiment(e); }
  Expected<std::optional<ExperimentRecord>> LoadExperiment() override {
    return inner_->LoadExperiment();
  }
  Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEvents(std::optional<int> t) override {
    return inner_->LoadSchedulerEvents(t);
  }
  Expected<std::vector<SchedulerEventRecord>> LoadSchedulerEventsAfter(std::int64_t s,
                                                                      std::int64_t limit) override {
    return inner_->LoadSchedulerEventsAfter(s, limit);
  }
  Expected<std::vector<TrialRecord>> LoadTrials() override { return inner_->LoadTrials(); }
  Expected<std::optional<TrialRecord>> LoadTrial(int n) override { return inner_->LoadTrial(n); }
  Expected<ChangedTrials> LoadTrialsChangedAfter(std::int64_t after) override {
    return inner_->LoadTrialsChangedAfter(after);
  }
  Expected<std::vector<IntermediateResult>> LoadResults(int t) override {
    return inner_->LoadResults(t);
  }
  Expected<std::vector<MetricPoint>> LoadMetricPoints(std::string_view key, std::int64_t after,
                                                      std::int64_t limit) override {
    return inner_->LoadMetricPoints(key, after, limit);
  }
  Expected<TrialCounts> CountTrials() override { return inner_->CountTrials(); }
  Expected<EarlyStoppingSavings> SumPrunedProgress(const std::string& resource, double max) override {
    return inner_->SumPrunedProgress(resource, max);
  }
  Expected<std::vector<TrialRecord>> QueryTrials(const TrialQuery& q) override {
    return inner_->QueryTrials(q);
  }
  Expected<TrialGroupRanking> RankTrialGroups(const std::vector<std::string>& ignored, Mode mode,
                                              int limit) override {
    return inner_->RankTrialGroups(ignored, mode, limit);
  }
  Status ForEachTrial(const TrialQuery& q, const TrialVisitor& visit) override {
    return inner_->ForEachTrial(q, visit);
  }
  Status ForEachResult(const ResultVisitor& visit) override { return inner_->ForEachResult(visit); }
  Expected<std::vector<int>> TrialNumbers(TrialState state) override {
    return inner_->TrialNumbers(state);
  }
  Expected<RankingRows> LoadRankingRows(const std::vector<std::string>& m) override {
    return inner_->LoadRankingRows(m);
  }
  Status InSnapshot(const std::function<Status()>& reads) override {
    return inner_->InSnapshot(reads);
  }
  Expected<bool> EveryTrialHas(const std::vector<std::string>& path, const Json& v) override {
    return inner_->EveryTrialHas(path, v);
  }
  Expected<std::int64_t> DataVersion() override { return inner_->DataVersion(); }
  Status Apply(const std::vector<JournalWrite>& w, Durability d) override {
    return inner_->Apply(w, d);
  }
  Status Sync() override { return inner_->Sync(); }
  Expected<std::function<Status()>> SyncLater() override { return inner_->SyncLater(); }
  Expected<std::vector<Json>> LoadEvents(std::string_view k) override {
    return inner_->LoadEvents(k);
  }

 protected:
  void Close() { inner_.reset(); }

 private:
  std::unique_ptr<Journal> inner_;
};

}  // namespace gpusweep
