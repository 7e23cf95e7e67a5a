// op_space.h — a cell's operation settings as a discrete vector (what RACOS searches),
// and back to the architecture JSON a trial reads (docs/nas.md).
//
// Encoding of a topology with n nodes in block b (0-based): for each node, six
// dimensions [type, filters, kernel, activation, pool, pool_kernel], each an index into
// the config's lists (type: the enabled ones of conv, sep_conv, pooling, in that order;
// filters: block b's list; kernel and activation: conv's lists for a conv node and
// sep_conv's for a sep_conv node, so their sizes are the larger of the two and an index
// past a list's end wraps around). Then `skip_max_count` dimensions, each choosing one
// of the extra skip edges (chain i -> j, 2 <= j - i <= skip_max_distance, not already an
// edge) or none (index 0). Dimensions a node's type does not use are irrelevant:
// Canonical() sets them to 0, so equal architectures have equal codes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpusweep/json.h"
#include "gpusweep/nas_config.h"
#include "nas/topology.h"

namespace gpusweep::nas {

using Code = std::vector<int>;

inline constexpr int kDimsPerNode = 6;

class OperationSpace {
 public:
  // `block`: 0-based block the cell is searched in (selects the filter list).
  OperationSpace(const NasConfig& config, const Topology& topology, int block);

  // Number of values of each dimension (>= 1).
  const std::vector<int>& sizes() const { return sizes_; }
  // Which dimensions matter for `code` (the type's own ones, the skip dimensions).
  std::vector<bool> Relevant(const Code& code) const;
  // `code` with the irrelevant dimensions set to 0.
  Code Canonical(Code code) const;
  // {"adjacency": [...], "nodes": [...]} for the trial (skip edges added to adjacency).
  Json Cell(const Code& code) const;

 private:
  enum Dim { kType = 0, kFilters, kKernel, kActivation, kPool, kPoolKernel };
  const NasConfig& config_;
  const Topology& topology_;
  int block_;
  std::vector<std::string> types_;
  std::vector<std::pair<int, int>> skip_candidates_;
  std::vector<int> sizes_;
};

}  // namespace gpusweep::nas
