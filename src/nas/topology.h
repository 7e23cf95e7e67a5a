// topology.h — the pool of cell topologies a NAS block searches over.
//
// A cell is a DAG given as an adjacency list (adjacency[i] = the nodes node i feeds).
// Nodes 0..depth-1 form the main chain (i -> i+1); node 0 takes the cell's input and the
// chain's last node is its output. A branch (i, j, k) leaves chain node i
// (i <= depth - 3), passes through k new nodes of its own (1 <= k <= min(j - i - 1,
// max_depth)) and rejoins the chain at node j (j >= i + 2). A topology combines up to
// `width` branches as a multiset (the same branch may appear twice, as two parallel
// paths); its branch nodes are numbered depth, depth+1, ... in the order the branches
// are listed. Source: the NAS-Project enumerator (Yu et al.), whose defaults
// (depth 4, width 2, max_depth 3) give 15 topologies.
#pragma once

#include <vector>

namespace gpusweep::nas {

using Adjacency = std::vector<std::vector<int>>;

struct Branch {
  int from = 0;   // chain node it leaves
  int to = 0;     // chain node it rejoins
  int nodes = 0;  // nodes of its own
};

struct Topology {
  int id = 0;  // index in the pool
  Adjacency adjacency;
};

// Every branch, ordered by (from, to, nodes).
std::vector<Branch> EnumerateBranches(int depth, int max_depth);

// The pool, in breadth-first order of the branch multisets: the plain chain first, then
// every single branch, then every pair (i <= j), ... up to `width` branches.
// Preconditions (checked by the config parser): depth >= 2, width >= 0, max_depth >= 1.
std::vector<Topology> EnumerateTopologies(int depth, int width, int max_depth);

}  // namespace gpusweep::nas
