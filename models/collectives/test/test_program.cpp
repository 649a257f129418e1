// Collective programs as data: a ring all-reduce is the textbook 2(p-1) step-synchronous ring
// (Thakur, Rabenseifner and Gropp 2005), element splits tile their range, and the bus bandwidth
// factors are NCCL's.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "models/collectives/program.hpp"

namespace trainvp {
namespace test_program {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(RingAllReduce, EveryRankSendsTwoPMinusOneSegmentsToItsSuccessor) {
  const std::vector<int> comm = {3, 5, 7, 9};  // global ranks, in communicator order
  const int p = static_cast<int>(comm.size());
  const std::uint64_t n = 1000003;  // not a multiple of p: segments differ by at most a byte
  // Flat rings are kept implicit (O(p) memory); spelled out they are the textbook DAG.
  const Program implicit =
      build_program(CollectiveOp::AllReduce, CollectiveAlgo::Ring, comm, n, 1 << 20, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(implicit.transfers.empty());
  EXPECT_EQ(implicit.ring.steps, 2 * (p - 1));
  Program pr = explicit_program(implicit);
  ASSERT_EQ(pr.transfers.size(), static_cast<std::size_t>(2 * (p - 1) * p));
  std::vector<std::uint64_t> sent(static_cast<std::size_t>(p), 0);
  for (std::size_t x = 0; x < pr.transfers.size(); ++x) {
    const Transfer& t = pr.transfers[x];
    int i = 0;
    while (comm[static_cast<std::size_t>(i)] != t.src) ++i;
    EXPECT_EQ(t.dst, comm[static_cast<std::size_t>((i + 1) % p)]) << "transfer " << x;
    EXPECT_GE(t.bytes, n / p);
    EXPECT_LE(t.bytes, n / p + 1);
    sent[static_cast<std::size_t>(i)] += t.bytes;
    // Step-synchronous: after step 0 a send waits for exactly one earlier arrival, at its sender.
    if (x >= static_cast<std::size_t>(p)) {
      ASSERT_EQ(t.deps.size(), 1u) << "transfer " << x;
      ASSERT_LT(t.deps[0], static_cast<int>(x));
      EXPECT_EQ(pr.transfers[static_cast<std::size_t>(t.deps[0])].dst, t.src) << "transfer " << x;
    }
  }
  // Each rank sends every segment but its own once in each half: 2 (n - its own segment).
  std::uint64_t total = 0;
  for (std::uint64_t s : sent) total += s;
  EXPECT_EQ(total, 2 * (static_cast<std::uint64_t>(p) - 1) * n);
}

TEST(ElementPart, PartsTileTheRangeAtElementBoundaries) {
  for (std::uint64_t n : {0ull, 3ull, 64ull, 1001ull, 4096ull + 6}) {
    for (int parts : {1, 3, 8}) {
      std::uint64_t next = 0, lo = ~0ull, hi = 0;
      for (int k = 0; k < parts; ++k) {
        const auto [off, bytes] = element_part(n, parts, k);
        EXPECT_EQ(off, next) << n << " " << parts << " " << k;
        EXPECT_EQ(off % 4, 0u);
        const std::uint64_t whole = k + 1 == parts ? bytes - n % 4 : bytes;
        lo = std::min(lo, whole), hi = std::max(hi, whole);
        next = off + bytes;
      }
      EXPECT_EQ(next, n) << n << " " << parts;
      EXPECT_LE(hi - lo, 4u) << n << " " << parts;
    }
  }
}

TEST(BusBandwidth, FactorsAreNcclsPerOperation) {
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::ReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllGather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::Broadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(CollectiveOp::AllToAll, 4), 3.0 / 4);
}

TEST(AllToAll, EveryRankSendsPartJOfItsBufferToRankJAllAtOnce) {
  // nccl-tests' alltoall: n bytes per rank in p parts, part j to rank j; no send waits for another.
  const std::vector<int> comm = {5, 2, 7, 0};
  const Program pr =
      build_program(CollectiveOp::AllToAll, CollectiveAlgo::Ring, comm, 4002, 1 << 20, {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_EQ(pr.transfers.size(), 12u);
  std::map<int, std::uint64_t> sent, received;
  for (const Transfer& t : pr.transfers) {
    EXPECT_NE(t.src, t.dst);
    EXPECT_TRUE(t.deps.empty());
    sent[t.src] += t.bytes, received[t.dst] += t.bytes;
  }
  // Parts at 4-byte boundaries: 1000, 1000, 1000 and 1002 (the last takes n mod 4).
  EXPECT_EQ(received[5], 3u * 1000);
  EXPECT_EQ(received[0], 3u * 1002);
  for (int r : comm) EXPECT_EQ(sent[r], 4002u - (r == 0 ? 1002u : 1000u)) << r;
}

}  // namespace test_program
}  // namespace trainvp
