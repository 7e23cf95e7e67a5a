#include "nas/topology.h"

namespace gpusweep::nas {
namespace {

Adjacency Chain(int depth) {
  Adjacency adjacency(static_cast<std::size_t>(depth));
  for (int i = 0; i + 1 < depth; ++i) adjacency[i].push_back(i + 1);
  return adjacency;
}

void AddBranch(Adjacency& adjacency, const Branch& branch) {
  int at = branch.from;
  for (int n = 0; n < branch.nodes; ++n) {
    const int node = static_cast<int>(adjacency.size());
    adjacency.emplace_back();
    adjacency[at].push_back(node);
    at = node;
  }
  adjacency[at].push_back(branch.to);
}

}  // namespace

std::vector<Branch> EnumerateBranches(int depth, int max_depth) {
  std::vector<Branch> branches;
  for (int from = 0; from <= depth - 3; ++from)
    for (int to = from + 2; to < depth; ++to)
      for (int nodes = 1; nodes <= to - from - 1 && nodes <= max_depth; ++nodes)
        branches.push_back(Branch{from, to, nodes});
  return branches;
}

std::vector<Topology> EnumerateTopologies(int depth, int width, int max_depth) {
  const std::vector<Branch> branches = EnumerateBranches(depth, max_depth);
  // Breadth-first over non-decreasing index lists: every multiset once.
  std::vector<std::vector<int>> level{{}};
  std::vector<std::vector<int>> all{{}};
  for (int size = 1; size <= width && !branches.empty(); ++size) {
    std::vector<std::vector<int>> next;
    for (const std::vector<int>& combo : level)
      for (int b = combo.empty() ? 0 : combo.back(); b < static_cast<int>(branches.size()); ++b) {
        std::vector<int> grown = combo;
        grown.push_back(b);
        next.push_back(std::move(grown));
      }
    all.insert(all.end(), next.begin(), next.end());
    level = std::move(next);
  }
  std::vector<Topology> pool;
  for (const std::vector<int>& combo : all) {
    Topology topology{static_cast<int>(pool.size()), Chain(depth)};
    for (int b : combo) AddBranch(topology.adjacency, branches[b]);
    pool.push_back(std::move(topology));
  }
  return pool;
}

}  // namespace gpusweep::nas
