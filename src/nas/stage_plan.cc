#include "nas/stage_plan.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace gpusweep::nas {

std::string_view ToString(Stage stage) {
  switch (stage) {
    case Stage::kRound: return "round";
    case Stage::kWinner: return "winner";
    case Stage::kConfirm: return "confirm";
    case Stage::kRetrain: return "retrain";
  }
  return "round";
}

int RoundDataSize(const NasDataSize& schedule, int round) {
  const double steps = round - 1;
  double size = schedule.schedule == DataSchedule::kLinear
                    ? schedule.init + steps * schedule.step
                    : schedule.init * std::pow(schedule.scale, steps);
  if (schedule.max) size = std::min(size, static_cast<double>(*schedule.max));
  return static_cast<int>(std::min(std::floor(size), static_cast<double>(INT_MAX)));
}

StagePlan MakeStagePlan(const NasConfig& config, int topologies) {
  StagePlan plan;
  for (int alive = topologies; alive > 1; alive -= alive / 2) plan.survivors.push_back(alive);
  plan.rounds = static_cast<int>(plan.survivors.size());
  const int winner_size = RoundDataSize(config.data_size, plan.rounds + 1);
  int group = 0;
  auto add = [&](Stage stage, int block, int round, int count, int data_size, int epochs) {
    for (int i = 0; i < count; ++i)
      plan.slots.push_back(Slot{stage, block, round, i, group, data_size, epochs});
    ++group;
  };
  for (int block = 1; block <= config.blocks; ++block) {
    for (int round = 1; round <= plan.rounds; ++round) {
      const int alive = plan.survivors[round - 1];
      add(Stage::kRound, block, round, round == 1 ? alive : alive * config.samples_per_round,
          RoundDataSize(config.data_size, round), config.epochs.search);
    }
    if (config.winner_samples > 0)
      add(Stage::kWinner, block, 0, config.winner_samples, winner_size, config.epochs.search);
    add(Stage::kConfirm, block, 0, 1, config.confirm_data_size.value_or(winner_size),
        config.epochs.confirm);
  }
  add(Stage::kRetrain, config.blocks, 0, 1, config.retrain_data_size, config.epochs.retrain);
  plan.groups = group;
  return plan;
}

}  // namespace gpusweep::nas
