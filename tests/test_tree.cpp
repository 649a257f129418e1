// The double binary tree all-reduce as whole scenarios on one switch (one GPU per node, so every
// hop is a NIC), against the closed form of docs/fabric.md#double-binary-tree-tree-all_reduce-only.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_tree {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;

constexpr double kMiB = 1048576;

double tree_time(int p, const std::string& bytes, const std::string& chunk) {
  const json doc = {
      {"trainvp", 1},
      {"name", "tree-test"},
      {"cluster",
       {{"nodes", p},
        {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
        {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"switch_ports", 64}, {"chunk", chunk}}}}},
      {"workload",
       {{"kind", "collective"},
        {"op", "all_reduce"},
        {"algorithm", "tree"},
        {"bytes", bytes},
        {"iterations", 1},
        {"warmup", 0}}},
      {"output", {{"trace", false}}}};
  return simulate(doc)["collectives"][0]["time_s"].get<double>();
}

// Edges from the deepest position to the root: the root's one child is the largest power of two
// below p, and each level below halves the lowest set bit down to an odd (leaf) position.
int depth(int p) { return static_cast<int>(std::floor(std::log2(p - 1))) + 1; }

TEST(Tree, OneChunkPerTreeOnTwoAndThreeRanksIsExact) {
  // With the half n/2 in one chunk the trees move in lock step and never share a NIC direction:
  // p = 2: 1 -> 0 (first tree) and 0 -> 1 (second) at once, then back down: 2 (alpha + n/2/beta).
  // p = 3: the chain 1 -> 2 -> 0 and its shift 2 -> 0 -> 1 use, at every one of the 2 x 2 steps,
  // disjoint NIC directions: 4 (alpha + n/2/beta).
  const double alpha = alpha_between_nodes(), beta = eth_beta(), half = 32 * kMiB;
  EXPECT_NEAR(tree_time(2, "64MiB", "32MiB"), 2 * (alpha + half / beta), 1e-9);
  EXPECT_NEAR(tree_time(3, "64MiB", "32MiB"), 4 * (alpha + half / beta), 1e-9);
}

TEST(Tree, PipelinedTreesApproachTheNicBoundForEvenAndOddCounts) {
  // Every position with two children and a parent in one tree is a leaf in the other, so its NIC
  // carries, per direction, 3 halves in the first and 1 in the second: L = 2n (p >= 4). Pipelined
  // in chunks of c, the busiest NIC is busy L/beta once the first chunk has reached it, and the
  // last chunk needs 2D hops up and down: T = 2D (alpha + c/beta) + L/beta, so busbw =
  // 2(p-1)/p x n/T approaches (p-1)/p x beta, the ring's NIC bound. The formula takes the busiest
  // NIC as never idle after the fill; it is idle when chunks of its up to 4 connections arrive
  // unevenly (round robin per chunk at every NIC and switch port, pauses of the 1 MiB switch
  // buffer when 4 connections of 4 MiB converge on one port): 5% allows for that, and the NIC
  // bound itself is a hard lower limit.
  const double alpha = alpha_between_nodes(), beta = eth_beta(), n = 256 * kMiB, c = kMiB;
  for (int p : {7, 8, 15, 16}) {
    const double t = tree_time(p, "256MiB", "1MiB"), bound = 2 * n / beta;
    const double expected = 2 * depth(p) * (alpha + c / beta) + bound;
    EXPECT_GT(t, bound) << p << " ranks";
    EXPECT_NEAR(t, expected, 0.05 * expected) << p << " ranks";
  }
}

}  // namespace test_tree
}  // namespace trainvp
