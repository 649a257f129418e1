// NCCL's channels and ring search as programs: channels split the buffer exactly, one channel in
// rank order is the ring trainvp always ran, and topology rings keep every hop between nodes on
// one rail with each NIC sending and receiving one channel (docs/fabric.md#channels-and-ring-order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "models/collectives/program.hpp"
#include "models/collectives/ring_channels.hpp"

namespace trainvp {
namespace test_ring_channels {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

// nodes x gpus ranks, GPU g of a node on NIC g x nics / gpus.
struct Cluster {
  std::vector<int> comm, nodes_of, nic_of;
};
Cluster cluster(int nodes, int gpus, int nics) {
  Cluster c;
  for (int n = 0; n < nodes; ++n)
    for (int g = 0; g < gpus; ++g) {
      c.comm.push_back(n * gpus + g);
      c.nodes_of.push_back(n);
      c.nic_of.push_back(g * nics / gpus);
    }
  return c;
}

TEST(RingChannels, ChannelsSplitTheBufferExactly) {
  const Cluster c = cluster(3, 2, 2);
  const int p = static_cast<int>(c.comm.size());
  for (std::uint64_t n : {0ull, 5ull, 1000003ull})
    for (int channels : {1, 3, 4}) {
      const RingLayout layout{channels, RingOrder::Topology, c.nic_of};
      const Program pr = explicit_program(build_program(CollectiveOp::ReduceScatter, CollectiveAlgo::Ring, c.comm, n,
                                                        1 << 20, c.nodes_of, 0, nullptr, &layout));
      ASSERT_EQ(pr.transfers.size(), static_cast<std::size_t>(channels * (p - 1) * p));
      // Step 0 of each channel sends every segment of its slice once: the slice itself.
      std::uint64_t total = 0;
      for (int ch = 0; ch < channels; ++ch) {
        std::uint64_t slice = 0;
        for (int i = 0; i < p; ++i) slice += pr.transfers[static_cast<std::size_t>(ch * (p - 1) * p + i)].bytes;
        EXPECT_GE(slice, n / channels) << "n " << n << ", channel " << ch << " of " << channels;
        EXPECT_LE(slice, n / channels + 1) << "n " << n << ", channel " << ch << " of " << channels;
        total += slice;
      }
      EXPECT_EQ(total, n) << channels << " channels";
    }
}

TEST(RingChannels, OneChannelInRankOrderIsTheSingleRing) {
  const Cluster c = cluster(2, 4, 4);
  const RingLayout layout{1, RingOrder::Rank, c.nic_of};
  for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::ReduceScatter, CollectiveOp::AllGather}) {
    const Program a = explicit_program(build_program(op, CollectiveAlgo::Ring, c.comm, 12345, 1 << 20, c.nodes_of));
    const Program b = explicit_program(
        build_program(op, CollectiveAlgo::Ring, c.comm, 12345, 1 << 20, c.nodes_of, 0, nullptr, &layout));
    ASSERT_EQ(a.transfers.size(), b.transfers.size());
    for (std::size_t x = 0; x < a.transfers.size(); ++x) {
      const Transfer &s = a.transfers[x], &t = b.transfers[x];
      EXPECT_EQ(std::tie(s.src, s.dst, s.bytes, s.deps), std::tie(t.src, t.dst, t.bytes, t.deps))
          << op_name(op) << " " << x;
    }
  }
}

TEST(RingChannels, AutomaticChannelsAreOnePerNicAcrossNodesAndOneOtherwise) {
  const Cluster c = cluster(4, 8, 8), half = cluster(4, 8, 4);
  EXPECT_EQ(ring_channels({0, RingOrder::Rank, c.nic_of}, c.comm, c.nodes_of), 1);
  EXPECT_EQ(ring_channels({0, RingOrder::Topology, c.nic_of}, c.comm, c.nodes_of), 8);
  EXPECT_EQ(ring_channels({0, RingOrder::Topology, half.nic_of}, half.comm, half.nodes_of), 4);
  const std::vector<int> one_node(c.comm.begin(), c.comm.begin() + 8);
  EXPECT_EQ(ring_channels({0, RingOrder::Topology, c.nic_of}, one_node, c.nodes_of), 1);
  EXPECT_EQ(ring_channels({3, RingOrder::Rank, c.nic_of}, c.comm, c.nodes_of), 3);
}

// Every channel's ring visits each rank once, a node's ranks in one stretch, and joins nodes by
// NICs of one index; with `balanced`, each NIC of each node sends exactly one channel's inter-node
// hop and receives exactly one.
void expect_rail_aligned(const Cluster& c, int channels, bool balanced) {
  const auto rings = topology_rings(c.comm, c.nodes_of, c.nic_of, channels);
  ASSERT_EQ(rings.size(), static_cast<std::size_t>(channels));
  std::map<std::pair<int, int>, int> sends, receives;  // (node, NIC) -> inter-node hops
  for (int ch = 0; ch < channels; ++ch) {
    const auto& ring = rings[static_cast<std::size_t>(ch)];
    ASSERT_EQ(std::set<int>(ring.begin(), ring.end()).size(), c.comm.size()) << "channel " << ch;
    std::set<int> left;  // nodes the ring has left
    const int p = static_cast<int>(ring.size());
    for (int i = 0; i < p; ++i) {
      const int a = c.comm[static_cast<std::size_t>(ring[static_cast<std::size_t>(i)])];
      const int b = c.comm[static_cast<std::size_t>(ring[static_cast<std::size_t>((i + 1) % p)])];
      const int na = c.nodes_of[static_cast<std::size_t>(a)], nb = c.nodes_of[static_cast<std::size_t>(b)];
      if (na == nb) continue;
      EXPECT_TRUE(left.insert(na).second) << "channel " << ch << " leaves node " << na << " twice";
      EXPECT_EQ(c.nic_of[static_cast<std::size_t>(a)], c.nic_of[static_cast<std::size_t>(b)])
          << "channel " << ch << ": rank " << a << " -> rank " << b << " crosses rails";
      ++sends[{na, c.nic_of[static_cast<std::size_t>(a)]}];
      ++receives[{nb, c.nic_of[static_cast<std::size_t>(b)]}];
    }
  }
  if (!balanced) return;
  const int nodes = c.nodes_of.back() + 1, nics = c.nic_of.back() + 1;
  for (int n = 0; n < nodes; ++n)
    for (int k = 0; k < nics; ++k) {
      const std::pair<int, int> nic(n, k);
      EXPECT_EQ(sends[nic], 1) << "node " << n << " NIC " << k;
      EXPECT_EQ(receives[nic], 1) << "node " << n << " NIC " << k;
    }
}

TEST(RingChannels, TopologyRingsStayOnRailsWithOneNicPerGpu) {
  expect_rail_aligned(cluster(4, 8, 8), 8, true);  // DGX H100: partners alternate entry and exit
  expect_rail_aligned(cluster(2, 2, 2), 2, true);
  expect_rail_aligned(cluster(3, 8, 8), 8, false);  // odd ring: the last hop takes a third rail
}

TEST(RingChannels, TopologyRingsEnterAndLeaveThroughTheSameNicWhenItServesTwoGpus) {
  const Cluster c = cluster(3, 8, 4);
  expect_rail_aligned(c, 4, true);
  const auto rings = topology_rings(c.comm, c.nodes_of, c.nic_of, 4);
  for (int ch = 0; ch < 4; ++ch)  // channel c enters node 0 at its NIC's first GPU, 2c
    EXPECT_EQ(rings[static_cast<std::size_t>(ch)][0], 2 * ch);
}

}  // namespace test_ring_channels
}  // namespace trainvp
