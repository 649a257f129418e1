// NCCL's double binary tree: both trees span every position, and the second relieves the first's
// interior positions (mirror for even counts, shift for odd ones, src/graph/trees.cc).
#include <gtest/gtest.h>

#include <vector>

#include "models/collectives/double_tree.hpp"

namespace trainvp {
namespace test_double_tree {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// Parent and children agree, one root, every position reaches it (no cycle), children are in range.
void expect_spanning_tree(const BinaryTree& t, int p) {
  int roots = 0;
  for (int v = 0; v < p; ++v) {
    const int up = t.parent[static_cast<std::size_t>(v)];
    if (up < 0) {
      ++roots;
      EXPECT_EQ(v, t.root) << "p " << p;
    } else {
      EXPECT_TRUE(t.child0[static_cast<std::size_t>(up)] == v || t.child1[static_cast<std::size_t>(up)] == v)
          << "p " << p << " v " << v;
    }
    for (int c : {t.child0[static_cast<std::size_t>(v)], t.child1[static_cast<std::size_t>(v)]}) {
      if (c < 0) continue;
      ASSERT_LT(c, p);
      EXPECT_EQ(t.parent[static_cast<std::size_t>(c)], v) << "p " << p << " v " << v;
    }
    int hops = 0;
    for (int u = v; u != t.root && hops <= p; u = t.parent[static_cast<std::size_t>(u)]) ++hops;
    EXPECT_LE(hops, p) << "p " << p << ": position " << v << " does not reach the root";
  }
  EXPECT_EQ(roots, 1) << "p " << p;
}

TEST(DoubleTree, TheRootsChildIsTheLargestPowerOfTwoBelowP) {
  // ncclGetBtree's illustration for 14 ranks: 0 -> 8, 8 -> 4 and 12, 12 -> 10 and 13.
  const BinaryTree t = binary_tree(14);
  EXPECT_EQ(t.child1[0], 8);
  EXPECT_EQ(t.child0[8], 4);
  EXPECT_EQ(t.child1[8], 12);
  EXPECT_EQ(t.child0[12], 10);
  EXPECT_EQ(t.child1[12], 13);
  EXPECT_EQ(t.parent[13], 12);
  // 13 ranks: 12 keeps only 10 (13 is past the end), so 11's parent is 10.
  const BinaryTree u = binary_tree(13);
  EXPECT_EQ(u.child0[12], 10);
  EXPECT_EQ(u.child1[12], -1);
  EXPECT_EQ(u.parent[11], 10);
}

TEST(DoubleTree, OddCountsShiftTheSecondTreeEvenCountsMirrorIt) {
  // ncclGetDtree's illustrations: 12 ranks, the mirror has root 11 -> 3; 13 ranks, the shift has
  // root 1 -> 9 and 9 -> 5 and 0 (12 shifted).
  const auto even = double_binary_tree(12);
  EXPECT_EQ(even[1].root, 11);
  EXPECT_EQ(even[1].child1[11], 3);
  const auto odd = double_binary_tree(13);
  EXPECT_EQ(odd[1].root, 1);
  EXPECT_EQ(odd[1].child1[1], 9);
  EXPECT_EQ(odd[1].child0[9], 5);
  EXPECT_EQ(odd[1].child1[9], 0);
}

TEST(DoubleTree, EveryPositionIsInteriorInAtMostOneTreeExceptOneForOddCounts) {
  for (int p = 2; p <= 300; ++p) {
    const auto trees = double_binary_tree(p);
    for (const BinaryTree& t : trees) expect_spanning_tree(t, p);
    int both = 0;
    for (int v = 0; v < p; ++v) {
      const int a = trees[0].children(v), b = trees[1].children(v);
      // What the bandwidth rests on: no position feeds more than two children over both trees.
      EXPECT_LE(a + b, 2) << "p " << p << " position " << v;
      if (a > 0 && b > 0) {
        ++both;
        // NCCL's in-order tree has (p+1)/2 interior positions for odd p, so the two trees must
        // share one: position 0, the first tree's root, with one child in each.
        EXPECT_EQ(v, 0) << "p " << p;
        EXPECT_EQ(a + b, 2) << "p " << p;
      }
    }
    EXPECT_EQ(both, p % 2 == 0 || p < 3 ? 0 : 1) << "p " << p;
  }
}

}  // namespace test_double_tree
}  // namespace trainvp
