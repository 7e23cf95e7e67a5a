// A PBT experiment's config rewritten to replay one schedule (see PbtReplayYaml in
// gpusweep/config.h).
//
// The rewrite is textual, by top-level block: the user's comments, quoting and key order
// stay as written, and no value outside the replaced blocks goes through a YAML emitter
// (which could turn a quoted "1" into the number 1 and change what trials get).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "gpusweep/config.h"

namespace gpusweep {
namespace {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in{std::string(text)};
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// A scalar of the original at `key` under mapping `node`, as written; `fallback` if absent.
std::string ScalarOr(const YAML::Node& node, const char* key, std::string fallback) {
  const YAML::Node value = node[key];
  return value && value.IsScalar() ? value.Scalar() : fallback;
}

// The comment and blank lines that end a block: they belong to the key after it.
int TrailingCommentsStart(const std::vector<std::string>& lines, int first, int end) {
  while (end > first + 1 && (lines[end - 1].empty() || lines[end - 1].front() == '#')) --end;
  return end;
}

struct TopBlock {
  std::string key;
  int first_line = 0;  // 0-based
};

std::string ReplaySchedulerBlock(const YAML::Node& scheduler, const std::vector<Params>& schedule,
                                 double max_resource, std::string_view comment) {
  std::string out = "scheduler:\n  type: pbt\n";
  out += fmt::format("  resource: {}\n", ScalarOr(scheduler, "resource", "epoch"));
  out += fmt::format("  perturbation_interval: {}\n", ScalarOr(scheduler, "perturbation_interval", ""));
  const bool whole = max_resource == std::floor(max_resource) && max_resource < 1e15;
  out += fmt::format("  max_resource: {}\n", whole ? std::to_string(static_cast<long long>(max_resource))
                                                    : Json(max_resource).dump());
  out += fmt::format("  replay:  # {}\n", comment);
  // JSON is YAML's flow syntax: numbers keep every digit, strings stay strings.
  for (const Params& params : schedule) out += fmt::format("    - {}\n", params.dump());
  return out;
}

}  // namespace

Expected<std::string> PbtReplayYaml(std::string_view config_yaml, const std::vector<Params>& schedule,
                                    double max_resource, std::string_view comment) {
  assert(!schedule.empty() && max_resource > 0);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(config_yaml));
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kInvalidConfig, fmt::format("the recorded config no longer parses: {}", e.what()));
  }
  if (!root.IsMap() || root.Style() == YAML::EmitterStyle::Flow)
    return Fail(ErrorCode::kInvalidConfig,
                "the recorded config is not a block mapping; write the replay by hand "
                "(docs/config.md, \"Population-based training\")");
  const YAML::Node scheduler = root["scheduler"];
  if (!scheduler || !scheduler.IsMap() || ScalarOr(scheduler, "type", "") != "pbt")
    return Fail(ErrorCode::kInvalidConfig, "the recorded config has no scheduler: {type: pbt}");

  std::vector<TopBlock> blocks;
  for (const auto& entry : root)
    blocks.push_back({entry.first.Scalar(), entry.first.Mark().line});
  std::sort(blocks.begin(), blocks.end(),
            [](const TopBlock& a, const TopBlock& b) { return a.first_line < b.first_line; });
  const std::vector<std::string> lines = SplitLines(config_yaml);

  std::string out;
  // Lines before the first key (comments) stay.
  for (int i = 0; i < (blocks.empty() ? 0 : blocks.front().first_line); ++i) out += lines[i] + "\n";
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const int end = b + 1 < blocks.size() ? blocks[b + 1].first_line : static_cast<int>(lines.size());
    const std::string& key = blocks[b].key;
    const int kept_from = TrailingCommentsStart(lines, blocks[b].first_line, end);
    const bool replaced = key == "name" || key == "sampler" || key == "scheduler" || key == "enqueue";
    if (replaced) {
      if (key == "name")
        out += fmt::format("name: {}\n", Json(ScalarOr(root, "name", "experiment") + "-replay").dump());
      else if (key == "sampler")  // the schedule gives the params; the draw only numbers the trial
        out += "sampler: {type: random, trials: 1}\n";
      else if (key == "scheduler")
        out += ReplaySchedulerBlock(scheduler, schedule, max_resource, comment);
      // enqueue: goes; the schedule's first segment is the member's start
      for (int i = kept_from; i < end; ++i) out += lines[i] + "\n";
      continue;
    }
    for (int i = blocks[b].first_line; i < end; ++i) out += lines[i] + "\n";
  }
  if (!root["sampler"]) out += "sampler: {type: random, trials: 1}\n";
  return out;
}

}  // namespace gpusweep
