#include "run/recorded_config.h"

namespace gpusweep {

SearchSpace RecordedSearchSpace(const ExperimentRecord& record) {
  if (auto config = ParseConfig(record.config_yaml, record.config_path)) return config->search_space;
  return {};
}

std::vector<double> RecordedHypervolumeReference(const ExperimentRecord& record) {
  if (auto config = ParseConfig(record.config_yaml, record.config_path))
    return config->hypervolume_reference;
  return {};
}

int RecordedPbtPopulation(const ExperimentRecord& record) {
  auto config = ParseConfig(record.config_yaml, record.config_path);
  if (!config || config->scheduler.kind != SchedulerKind::kPbt) return 0;
  return config->scheduler.pbt.population;
}

}  // namespace gpusweep
