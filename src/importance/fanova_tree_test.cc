#include "importance/fanova_tree.h"

#include <gtest/gtest.h>

namespace gpusweep::importance {
namespace {

using Node = RegressionTree::Node;

TEST(FanovaTreeTest, OneSplitExplainsAllOfTheVariance) {
  RegressionTree tree{{Node{0, 0.5, 1, 2, 0}, Node{-1, 0, -1, -1, 0.0}, Node{-1, 0, -1, -1, 1.0}}};
  FanovaTree fanova(tree, {{0, 1}, {0, 1}});
  EXPECT_DOUBLE_EQ(fanova.Variance(), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0}), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({1}), 0.0);
}

// f(a, b) = 2 [a > 0.5] + [b > 0.5] on the unit square: additive, so the variance
// splits exactly: Var = 1 (a) + 0.25 (b).
TEST(FanovaTreeTest, AnAdditiveTreeSplitsItsVarianceByFeature) {
  RegressionTree tree{{Node{0, 0.5, 1, 2, 0},
                       Node{1, 0.5, 3, 4, 0}, Node{1, 0.5, 5, 6, 0},
                       Node{-1, 0, -1, -1, 0}, Node{-1, 0, -1, -1, 1},
                       Node{-1, 0, -1, -1, 2}, Node{-1, 0, -1, -1, 3}}};
  FanovaTree fanova(tree, {{0, 1}, {0, 1}});
  EXPECT_DOUBLE_EQ(fanova.Variance(), 1.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0}), 1.0);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({1}), 0.25);
  EXPECT_DOUBLE_EQ(fanova.MarginalVariance({0, 1}), 1.25);
}

// Cells are weighted by their width: a split at 0.9 leaves 90% of the box on one side.
TEST(FanovaTreeTest, UnevenCellsAreWeightedByVolume) {
  RegressionTree tree{{Node{0, 0.9, 1, 2, 0}, Node{-1, 0, -1, -1, 0.0}, Node{-1, 0, -1, -1, 1.0}}};
  FanovaTree fanova(tree, {{0, 1}});
  EXPECT_NEAR(fanova.Variance(), 0.9 * 0.1, 1e-12);
  EXPECT_NEAR(fanova.MarginalVariance({0}), 0.09, 1e-12);
}

}  // namespace
}  // namespace gpusweep::importance
