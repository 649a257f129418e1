#pragma once
// NCCL's double binary tree (src/graph/trees.cc, ncclGetBtree and ncclGetDtree), over positions
// 0..p-1 of a communicator (one per node: NCCL builds the trees among nodes).
#include <array>
#include <vector>

namespace trainvp {

struct BinaryTree {
  std::vector<int> parent;          // per position; -1 at the root
  std::vector<int> child0, child1;  // per position; -1 for none
  int root = 0;
  int children(int v) const {
    return (child0[static_cast<std::size_t>(v)] >= 0) + (child1[static_cast<std::size_t>(v)] >= 0);
  }
};

// The in-order binary tree by lowest set bit: position v with lowest set bit b has children
// v - b/2 and v + b/2 (the right one shrunk by halves past p-1) and parent (v - b) | 2b, or v - b
// when that is past p-1; position 0 is a root whose one child is the largest power of two below p.
BinaryTree binary_tree(int p);

// The two trees of the double binary tree: the binary tree, and for even p its mirror (position
// v -> p-1-v), for odd p the binary tree shifted by one position (v -> v+1 mod p). With even p
// every position is interior in at most one tree; with odd p the trees have (p+1)/2 interior
// positions each, so one position (0) is interior in both, with one child in each. Either way no
// position has more than two children over both trees.
std::array<BinaryTree, 2> double_binary_tree(int p);
// Where position v of the binary tree sits in the second tree.
inline int second_tree_position(int p, int v) { return v < 0 ? -1 : p % 2 == 0 ? p - 1 - v : (v + 1) % p; }

}  // namespace trainvp
