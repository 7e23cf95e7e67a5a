#include "nas/op_space.h"

#include <algorithm>
#include <cassert>

namespace gpusweep::nas {
namespace {

bool HasEdge(const Adjacency& adjacency, int from, int to) {
  assert(from >= 0 && static_cast<std::size_t>(from) < adjacency.size());
  const auto& out = adjacency[from];
  return std::find(out.begin(), out.end(), to) != out.end();
}

template <class T>
const T& Pick(const std::vector<T>& list, int index) {
  assert(!list.empty() && index >= 0);  // the parser refuses empty choice lists
  return list[static_cast<std::size_t>(index) % list.size()];
}

}  // namespace

OperationSpace::OperationSpace(const NasConfig& config, const Topology& topology, int block)
    : config_(config), topology_(topology), block_(block) {
  const NasOperations& ops = config.operations;
  if (ops.conv.enabled) types_.push_back("conv");
  if (ops.sep_conv.enabled) types_.push_back("sep_conv");
  if (ops.pooling.enabled) types_.push_back("pooling");
  auto larger = [&](auto member) {
    std::size_t size = 1;
    for (const NasConvSpace* space : {&ops.conv, &ops.sep_conv})
      if (space->enabled) size = std::max(size, (space->*member).size());
    return static_cast<int>(size);
  };
  auto filters = [&] {
    std::size_t size = 1;
    for (const NasConvSpace* space : {&ops.conv, &ops.sep_conv})
      if (space->enabled)
        size = std::max(size, space->filters[std::min<std::size_t>(block, space->filters.size() - 1)].size());
    return static_cast<int>(size);
  };
  const int pools = ops.pooling.enabled ? static_cast<int>(ops.pooling.pool.size()) : 1;
  const int pool_kernels = ops.pooling.enabled ? static_cast<int>(ops.pooling.kernel.size()) : 1;
  const int nodes = static_cast<int>(topology.adjacency.size());
  for (int n = 0; n < nodes; ++n) {
    sizes_.push_back(static_cast<int>(types_.size()));
    sizes_.push_back(filters());
    sizes_.push_back(larger(&NasConvSpace::kernel));
    sizes_.push_back(larger(&NasConvSpace::activation));
    sizes_.push_back(pools);
    sizes_.push_back(pool_kernels);
  }
  const int depth = config.depth;
  for (int from = 0; from < depth; ++from)
    for (int to = from + 2; to < depth && to - from <= config.skip_max_distance; ++to)
      if (!HasEdge(topology.adjacency, from, to)) skip_candidates_.emplace_back(from, to);
  if (!skip_candidates_.empty())
    for (int s = 0; s < config.skip_max_count; ++s)
      sizes_.push_back(static_cast<int>(skip_candidates_.size()) + 1);
}

std::vector<bool> OperationSpace::Relevant(const Code& code) const {
  std::vector<bool> relevant(sizes_.size(), true);
  const std::size_t nodes = topology_.adjacency.size();
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::size_t base = n * kDimsPerNode;
    const bool pooling = types_[code[base + kType]] == "pooling";
    relevant[base + kFilters] = relevant[base + kKernel] = relevant[base + kActivation] = !pooling;
    relevant[base + kPool] = relevant[base + kPoolKernel] = pooling;
  }
  return relevant;
}

Code OperationSpace::Canonical(Code code) const {
  const std::vector<bool> relevant = Relevant(code);
  for (std::size_t d = 0; d < code.size(); ++d)
    if (!relevant[d]) code[d] = 0;
  return code;
}

Json OperationSpace::Cell(const Code& code) const {
  const NasOperations& ops = config_.operations;
  Adjacency adjacency = topology_.adjacency;
  const std::size_t nodes = adjacency.size();
  for (std::size_t d = nodes * kDimsPerNode; d < code.size(); ++d) {
    if (code[d] == 0) continue;
    const auto [from, to] = skip_candidates_[static_cast<std::size_t>(code[d] - 1)];
    if (!HasEdge(adjacency, from, to)) adjacency[from].push_back(to);
  }
  for (auto& out : adjacency) std::sort(out.begin(), out.end());
  Json cell_nodes = Json::array();
  for (std::size_t n = 0; n < nodes; ++n) {
    const int* dims = &code[n * kDimsPerNode];
    const std::string& type = types_[dims[kType]];
    if (type == "pooling") {
      cell_nodes.push_back(Json{{"type", type},
                                {"pool", Pick(ops.pooling.pool, dims[kPool])},
                                {"kernel", Pick(ops.pooling.kernel, dims[kPoolKernel])}});
      continue;
    }
    const NasConvSpace& space = type == "conv" ? ops.conv : ops.sep_conv;
    assert(!space.filters.empty());  // size() - 1 would wrap
    const auto& filters = space.filters[std::min<std::size_t>(block_, space.filters.size() - 1)];
    cell_nodes.push_back(Json{{"type", type},
                              {"filters", Pick(filters, dims[kFilters])},
                              {"kernel", Pick(space.kernel, dims[kKernel])},
                              {"activation", Pick(space.activation, dims[kActivation])}});
  }
  return Json{{"adjacency", adjacency}, {"nodes", std::move(cell_nodes)}};
}

}  // namespace gpusweep::nas
