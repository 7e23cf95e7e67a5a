#include "nas/topology.h"

#include <gtest/gtest.h>

#include "gpusweep/nas.h"

namespace gpusweep::nas {
namespace {

TEST(TopologyTest, SeedDefaultsGiveFifteen) {
  const std::vector<Topology> pool = EnumerateTopologies(4, 2, 3);
  EXPECT_EQ(pool.size(), 15u);
  // The plain chain first.
  EXPECT_EQ(pool[0].adjacency, (Adjacency{{1}, {2}, {3}, {}}));
  // Branch (0, 2, 1): node 4 between chain nodes 0 and 2.
  EXPECT_EQ(pool[1].adjacency, (Adjacency{{1, 4}, {2}, {3}, {}, {2}}));
}

TEST(TopologyTest, CountsForSeveralShapes) {
  // branches b, multisets of up to w: sum_{s<=w} C(b+s-1, s)
  EXPECT_EQ(EnumerateBranches(4, 3).size(), 4u);
  EXPECT_EQ(EnumerateTopologies(2, 2, 3).size(), 1u);   // no branch fits
  EXPECT_EQ(EnumerateTopologies(3, 1, 1).size(), 2u);   // chain + (0,2,1)
  EXPECT_EQ(EnumerateTopologies(4, 1, 3).size(), 5u);
  EXPECT_EQ(EnumerateTopologies(4, 0, 3).size(), 1u);
  EXPECT_EQ(EnumerateTopologies(4, 2, 1).size(), 10u);  // 3 branches: 1 + 3 + 6
  EXPECT_EQ(EnumerateTopologies(5, 2, 3).size(), 66u);  // 10 branches: 1 + 10 + 55
  for (auto [d, w, m] : {std::tuple{4, 2, 3}, {5, 2, 3}, {6, 3, 2}, {4, 2, 1}, {3, 3, 3}})
    EXPECT_EQ(static_cast<long>(EnumerateTopologies(d, w, m).size()), CountNasTopologies(d, w, m))
        << d << " " << w << " " << m;
}

TEST(TopologyTest, EveryTopologyIsADagEndingInTheLastChainNode) {
  for (const Topology& topology : EnumerateTopologies(6, 2, 3)) {
    const auto& adjacency = topology.adjacency;
    int sinks = 0;
    for (std::size_t i = 0; i < adjacency.size(); ++i) {
      if (adjacency[i].empty()) {
        ++sinks;
        EXPECT_EQ(i, 5u);
      }
      for (int j : adjacency[i])
        if (j < 6 && i < 6) {
          EXPECT_GT(j, static_cast<int>(i));  // chain edges go forward
        }
    }
    EXPECT_EQ(sinks, 1);
  }
}

}  // namespace
}  // namespace gpusweep::nas
