#include "models/collectives/double_tree.hpp"

namespace trainvp {

BinaryTree binary_tree(int p) {
  BinaryTree t;
  const auto n = static_cast<std::size_t>(p > 0 ? p : 0);
  t.parent.assign(n, -1), t.child0.assign(n, -1), t.child1.assign(n, -1);
  if (p < 2) return t;
  int top = 1;
  while (top * 2 < p) top <<= 1;
  t.child1[0] = top;  // NCCL names the root's one child its second
  for (int v = 1; v < p; ++v) {
    const int bit = v & -v;
    int up = (v ^ bit) | (bit << 1);
    if (up >= p) up = v ^ bit;
    t.parent[static_cast<std::size_t>(v)] = up;
    int low = bit >> 1;
    if (low == 0) continue;  // odd positions are leaves
    t.child0[static_cast<std::size_t>(v)] = v - low;
    while (low > 0 && v + low >= p) low >>= 1;  // the right subtree shrinks before p-1
    t.child1[static_cast<std::size_t>(v)] = low > 0 ? v + low : -1;
  }
  return t;
}

std::array<BinaryTree, 2> double_binary_tree(int p) {
  const BinaryTree first = binary_tree(p);
  BinaryTree second = first;
  // The second tree is the first relabelled: position v of the first becomes map(v).
  auto map = [p](int v) { return second_tree_position(p, v); };
  for (int v = 0; v < p; ++v) {
    const auto w = static_cast<std::size_t>(map(v)), i = static_cast<std::size_t>(v);
    second.parent[w] = map(first.parent[i]);
    second.child0[w] = map(first.child0[i]);
    second.child1[w] = map(first.child1[i]);
  }
  second.root = map(first.root);
  return {first, second};
}

}  // namespace trainvp
