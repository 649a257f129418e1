// The typed keys of ParallelSync's traffic objects against the uint64 packings they replaced
// (issue #42), which collided once a field outgrew its bits. Each old packing is copied here
// verbatim from models/parallel/parallel_sync.cpp before the split: every test first shows the
// pair collided there (the ASSERT), then that the typed keys keep the two apart.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <unordered_set>

#include "models/parallel/pipeline_traffic.hpp"
#include "models/parallel/traffic_key.hpp"
#include "models/parallel/zero3_gathers.hpp"
#include "models/parallel/zero_gathers.hpp"

namespace trainvp {
namespace test_traffic_keys {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// ZeRO-3: iteration + 1 from bit 30, micro-batch in bits 14-29, layer in bits 1-13, backward bit 0.
std::uint64_t old_zero3_key(int iteration, int micro_batch, int layer, bool backward) {
  return (static_cast<std::uint64_t>(iteration + 1) << 30) | (static_cast<std::uint64_t>(micro_batch) << 14) |
         (static_cast<std::uint64_t>(layer) << 1) | (backward ? 1u : 0u);
}
// The DP group's collective: that key with the group ((pp, tp) as pp * t + tp) xored in at bit 53.
std::uint64_t old_zero3_collective(std::uint64_t key, int group) {
  return key ^ (static_cast<std::uint64_t>(group) << 53);
}
// Pipeline input: iteration from bit 32, micro-batch in bits 16-31, chunk in bits 1-15, backward bit 0.
std::uint64_t old_input_key(int iteration, bool backward, int chunk, int micro_batch) {
  return (static_cast<std::uint64_t>(iteration) << 32) | (static_cast<std::uint64_t>(micro_batch) << 16) |
         (static_cast<std::uint64_t>(chunk) << 1) | (backward ? 1u : 0u);
}
// ZeRO-1/2 parameter gather: iteration from bit 24, the group (pp * t + tp) below.
std::uint64_t old_gather_key(int iteration, int group) {
  return (static_cast<std::uint64_t>(iteration) << 24) | static_cast<std::uint64_t>(group);
}

template <class Key, class Hash>
void expect_apart(const Key& a, const Key& b) {
  EXPECT_FALSE(a == b);
  std::unordered_set<Key, Hash> held{a};
  EXPECT_EQ(held.count(b), 0u);
  held.insert(b);
  EXPECT_EQ(held.size(), 2u);
}

TEST(TrafficKeys, Zero3GatherOfLayer8192IsNotTheNextMicroBatchsLayer0) {
  // 13 bits of layer: layer 8,192 sets the micro-batch's lowest bit.
  ASSERT_EQ(old_zero3_key(0, 0, 8192, false), old_zero3_key(0, 1, 0, false));
  ASSERT_EQ(old_zero3_key(3, 4, 8192 + 7, true), old_zero3_key(3, 5, 7, true));
  expect_apart<Zero3Gather, Zero3GatherHash>({0, 0, 8192, false}, {0, 1, 0, false});
  expect_apart<Zero3Gather, Zero3GatherHash>({3, 4, 8192 + 7, true}, {3, 5, 7, true});
}

TEST(TrafficKeys, Zero3GatherOfMicroBatch65536IsNotAnotherIterations) {
  // 16 bits of micro-batch: micro-batch 65,536 sets the lowest bit of iteration + 1, so iteration
  // 1's (2 << 30 | 1 << 30) is iteration 2's first, and iteration 0's is its own micro-batch 0.
  ASSERT_EQ(old_zero3_key(1, 65536, 0, false), old_zero3_key(2, 0, 0, false));
  ASSERT_EQ(old_zero3_key(0, 65536, 0, false), old_zero3_key(0, 0, 0, false));
  expect_apart<Zero3Gather, Zero3GatherHash>({1, 65536, 0, false}, {2, 0, 0, false});
  expect_apart<Zero3Gather, Zero3GatherHash>({0, 65536, 0, false}, {0, 0, 0, false});
}

TEST(TrafficKeys, Zero3CollectivesOfTwoDpGroupsStayApart) {
  // The group xored in at bit 53 met the iteration's bit 23: group 1's gather of iteration
  // 8,388,608 was group 0's of iteration 0.
  ASSERT_EQ(old_zero3_collective(old_zero3_key(8388608, 0, 0, false), 1),
            old_zero3_collective(old_zero3_key(0, 0, 0, false), 0));
  expect_apart<Zero3Collective, Zero3CollectiveHash>({0, 1, {8388608, 0, 0, false}}, {0, 0, {0, 0, 0, false}});
}

TEST(TrafficKeys, PipelineInputsOfLargeMicroBatchesAndChunksStayApart) {
  // 16 bits of micro-batch, 15 of chunk: each carried into the field above.
  ASSERT_EQ(old_input_key(0, false, 0, 65536), old_input_key(1, false, 0, 0));
  ASSERT_EQ(old_input_key(0, true, 32768, 0), old_input_key(0, true, 0, 1));
  expect_apart<PipelineInput, PipelineInputHash>({0, 0, 65536, false}, {1, 0, 0, false});
  expect_apart<PipelineInput, PipelineInputHash>({0, 32768, 0, true}, {0, 0, 1, true});
}

TEST(TrafficKeys, ZeroGathersOfManyGroupsStayApart) {
  // 24 bits of group: group 2^24 carried into the iteration.
  ASSERT_EQ(old_gather_key(0, 1 << 24), old_gather_key(1, 0));
  expect_apart<ZeroGatherKey, ZeroGatherKeyHash>({0, 1 << 24, 0}, {0, 0, 1});
}

TEST(TrafficKeys, EveryFieldTellsKeysApart) {
  // Every combination of values on both sides of the old bit widths: all distinct keys (the old
  // packings held fewer: 8,192 and 65,536 folded into the fields above).
  const int values[] = {0, 1, 8191, 8192, 65535, 65536};
  std::unordered_set<Zero3Gather, Zero3GatherHash> z3;
  std::unordered_set<PipelineInput, PipelineInputHash> pp;
  std::unordered_set<std::uint64_t> old_z3;
  for (int a : values)
    for (int b : values)
      for (int c : values)
        for (bool bwd : {false, true}) {
          z3.insert({a, b, c, bwd});
          pp.insert({a, c, b, bwd});
          old_z3.insert(old_zero3_key(a, b, c, bwd));
        }
  EXPECT_EQ(z3.size(), 432u);
  EXPECT_EQ(pp.size(), 432u);
  EXPECT_LT(old_z3.size(), 432u);
}

// A collective's label is the concatenation of its parts, whether it fits the stack buffer or a
// long layer name spills it to the heap (at the name, or at a number after it), and with extreme
// numbers.
TEST(TrafficKeys, ALabelIsItsPartsConcatenatedShortOrLong) {
  for (const std::string& name :
       {std::string("h5.attn"), std::string(60, 'z'), std::string(90, 'x'), std::string(300, 'y')}) {
    Label l;
    l << "tp it" << 2147483647 << " mb" << -2147483647 - 1 << " " << name << " fwd s" << 0 << "d" << 15;
    EXPECT_EQ(l.str(), "tp it2147483647 mb-2147483648 " + name + " fwd s0d15");
  }
}

}  // namespace test_traffic_keys
}  // namespace trainvp
