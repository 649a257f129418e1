// Chakra traces: the reader against files written with the schema's classes, and the static plan
// that matches collectives and sends across ranks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "models/workload/chakra/plan.hpp"
#include "models/workload/chakra/trace.hpp"
#include "models/workload/test/chakra_writer.hpp"

namespace trainvp::chakra {
namespace test_chakra {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace tc = ::trainvp::chakra_writer;
namespace pb = trainvp::chakra_pb;

std::string temp(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / ("chakra_" + name + ".et")).string();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

TEST(ChakraTrace, ReadsNodesDependenciesAndEveryIntegerVariantOfTheAttributes) {
  std::vector<pb::Node> nodes;
  pb::Node c = tc::comp(3, "fwd", 250);
  nodes.push_back(c);
  pb::Node g = tc::node(5, "gemm", pb::COMP_NODE, {3});
  g.add_ctrl_deps(3);  // a control dependency on the same node counts once
  tc::attr(g, "num_ops")->set_uint64_val(1000000);
  tc::attr(g, "tensor_size")->set_fixed64_val(4096);
  tc::attr(g, "involved_dim")->mutable_bool_list()->add_values(true);  // read by ASTRA-sim only
  nodes.push_back(g);
  pb::Node a = tc::coll(7, "ar", pb::ALL_GATHER, 1 << 20, {5}, "2");
  a.add_ctrl_deps(3);
  nodes.push_back(a);
  pb::Node s = tc::p2p(9, "send", true, 0, 1, 512, 4, {7});
  nodes.push_back(s);
  pb::Node cpu = tc::node(11, "host", pb::COMP_NODE);
  cpu.mutable_attr(0)->set_bool_val(true);
  cpu.set_duration_micros(40);
  nodes.push_back(cpu);
  const std::string f = temp("variants");
  tc::write(f, nodes, "0.0.4");

  const Trace t = read_trace(f);
  EXPECT_EQ(t.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(t.nodes[0].type, kCompNode);
  EXPECT_EQ(t.nodes[0].duration_us, 250u);
  EXPECT_FALSE(t.nodes[0].is_cpu_op);
  EXPECT_EQ(t.nodes[1].deps, std::vector<std::uint64_t>{3});
  EXPECT_EQ(t.nodes[1].num_ops, 1000000u);
  EXPECT_EQ(t.nodes[1].tensor_size, 4096u);
  EXPECT_EQ(t.nodes[2].comm_type, kAllGather);
  EXPECT_EQ(t.nodes[2].comm_size, 1u << 20);
  EXPECT_EQ(t.nodes[2].pg_name, "2");
  EXPECT_EQ(t.nodes[2].deps, (std::vector<std::uint64_t>{5, 3}));
  EXPECT_EQ(t.nodes[3].type, kSendNode);
  EXPECT_EQ(t.nodes[3].comm_src, 0);
  EXPECT_EQ(t.nodes[3].comm_dst, 1);
  EXPECT_EQ(t.nodes[3].comm_tag, 4);
  EXPECT_TRUE(t.nodes[4].is_cpu_op);
}

TEST(ChakraTrace, RefusesMissingDependenciesCyclesDuplicatesAndFilesThatAreNotTraces) {
  const std::string missing = temp("missing");
  tc::write(missing, {tc::comp(1, "a", 1), tc::comp(2, "b", 1, {9})});
  EXPECT_NE(error_of([&] { read_trace(missing); }).find("node 2 (b) depends on node 9, which the trace does not hold"),
            std::string::npos);
  const std::string cycle = temp("cycle");
  tc::write(cycle, {tc::comp(1, "a", 1, {2}), tc::comp(2, "b", 1, {1}), tc::comp(3, "c", 1)});
  EXPECT_NE(error_of([&] { read_trace(cycle); }).find("node 1 (a) is on a dependency cycle"), std::string::npos);
  const std::string twice = temp("twice");
  tc::write(twice, {tc::comp(4, "a", 1), tc::comp(4, "b", 1)});
  EXPECT_NE(error_of([&] { read_trace(twice); }).find("node id 4 appears twice"), std::string::npos);
  const std::string junk = temp("junk");
  std::ofstream(junk, std::ios::binary) << "\xff\xff\xff\xff\x0f not a trace";
  EXPECT_NE(error_of([&] { read_trace(junk); }).find("is not a Chakra execution trace"), std::string::npos);
  const std::string empty = temp("empty");
  std::ofstream(empty, std::ios::binary).flush();
  EXPECT_NE(error_of([&] { read_trace(empty); }).find("is empty"), std::string::npos);
  // A file cut inside its second node: the first is whole, the second does not parse.
  const std::string cut = temp("cut");
  tc::write(cut, {tc::comp(1, "a", 1), tc::comp(2, "bbbbbbbbbbbb", 1)});
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 5);
  EXPECT_NE(error_of([&] { read_trace(cut); }).find("message 3 does not parse"), std::string::npos);
  EXPECT_NE(error_of([&] { read_trace(temp("absent")); }).find("cannot be opened"), std::string::npos);
}

Node coll_node(std::uint64_t id, int type, std::uint64_t bytes, const std::string& pg = "") {
  Node n;
  n.id = id, n.name = "c" + std::to_string(id), n.type = kCollNode, n.comm_type = type, n.comm_size = bytes,
  n.pg_name = pg;
  return n;
}

Node p2p_node(std::uint64_t id, bool send, int peer, std::uint64_t bytes, int tag = 0) {
  Node n;
  n.id = id, n.name = (send ? "s" : "r") + std::to_string(id), n.type = send ? kSendNode : kRecvNode,
  n.comm_size = bytes;
  (send ? n.comm_dst : n.comm_src) = peer;
  n.comm_tag = tag;
  return n;
}

TEST(ChakraPlan, MatchesTheKthCollectiveOfEachGroupAcrossRanksWhateverTheOtherNodes) {
  // Ranks 0 and 1 form group "a"; every rank also all-reduces over all. Rank 1 lists its nodes
  // in another order: matching is per group, by position within the group.
  Trace t0, t1, t2;
  t0.nodes = {coll_node(1, kAllReduce, 100), coll_node(2, kAllGather, 8, "a")};
  t1.nodes = {coll_node(5, kAllGather, 8, "a"), coll_node(6, kAllReduce, 100)};
  t2.nodes = {coll_node(9, kAllReduce, 100)};
  const Plan p = plan_run({&t0, &t1, &t2}, {{"a", {1, 0}}});
  ASSERT_EQ(p.collectives.size(), 2u);
  const CollectiveUse& world = p.collectives[0];
  EXPECT_EQ(world.ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(world.node_of, (std::vector<std::size_t>{0, 1, 0}));
  const CollectiveUse& a = p.collectives[1];
  EXPECT_EQ(a.ranks, (std::vector<int>{1, 0}));  // the group's order is its ring order
  EXPECT_EQ(a.node_of, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(p.use_of[1], (std::vector<int>{1, 0}));
}

TEST(ChakraPlan, RootsComeFromTheSenderOrReceiverAttributeAndBarriersCarryOneElement) {
  Trace a, b;
  Node bc = coll_node(1, kBroadcast, 64), red = coll_node(2, kReduce, 64), bar = coll_node(3, kBarrier, 0);
  bc.comm_src = 1, red.comm_dst = 1;
  a.nodes = {bc, red, bar};
  bar.comm_size = 999;  // a barrier's size is not compared: it carries one 4-byte element
  b.nodes = {bc, red, bar};
  const Plan p = plan_run({&a, &b}, {});
  ASSERT_EQ(p.collectives.size(), 3u);
  EXPECT_EQ(p.collectives[0].root, 1);
  EXPECT_EQ(p.collectives[1].root, 1);
  EXPECT_EQ(p.collectives[2].bytes, 4u);
  Node gather = coll_node(4, kGather, 64);  // no comm_dst: the group's first member
  a.nodes = {gather};
  gather.comm_dst = 1;
  b.nodes = {gather};
  EXPECT_NE(error_of([&] {
              plan_run({&a, &b}, {});
            }).find("is GATHER of 64 B, but rank 0 node 4 (c4) is GATHER of 64 B (or another root)"),
            std::string::npos);
}

TEST(ChakraPlan, PairsSendsWithReceivesByPeerAndTagInOrder) {
  Trace t0, t1;
  t0.nodes = {p2p_node(1, true, 1, 64, 7), p2p_node(2, true, 1, 32, 0)};
  t1.nodes = {p2p_node(3, false, 0, 32, 0), p2p_node(4, false, 0, 64, 7)};
  const Plan p = plan_run({&t0, &t1}, {});
  ASSERT_EQ(p.p2p.size(), 2u);
  for (const PointToPoint& x : p.p2p) {
    EXPECT_EQ(x.src, 0);
    EXPECT_EQ(x.dst, 1);
    EXPECT_EQ(x.bytes, x.tag == 7 ? 64u : 32u);
    EXPECT_EQ(t0.nodes[x.send_node].comm_size, t1.nodes[x.recv_node].comm_size);
  }
}

TEST(ChakraPlan, NamesTheRankAndNodeOfEveryMismatch) {
  Trace a, b;
  a.nodes = {coll_node(1, kAllReduce, 100)};
  b.nodes = {coll_node(2, kAllReduce, 200)};
  EXPECT_NE(
      error_of([&] {
        plan_run({&a, &b}, {});
      })
          .find("rank 1 node 2 (c2): collective #0 on every rank is ALL_REDUCE of 200 B, but rank 0 node 1 (c1) is "
                "ALL_REDUCE of 100 B"),
      std::string::npos);
  Trace none;
  EXPECT_NE(error_of([&] {
              plan_run({&a, &none}, {});
            }).find("rank 0 node 1 (c1) is collective #0 on every rank, which rank 1 never issues"),
            std::string::npos);
  Trace g;
  g.nodes = {coll_node(3, kAllReduce, 1, "x")};
  EXPECT_NE(error_of([&] {
              plan_run({&g, &g}, {});
            }).find("names process group \"x\", which /workload/chakra/comm_groups does not define"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              plan_run({&g, &g}, {{"x", {1}}});
            }).find("rank 0 node 3 (c3) issues a collective on process group \"x\", which rank 0 is not a member of"),
            std::string::npos);
  Trace reduce;
  reduce.nodes = {coll_node(4, kReduceScatterBlock, 1)};
  EXPECT_NE(error_of([&] { plan_run({&reduce}, {}); }).find("is a REDUCE_SCATTER_BLOCK, which trainvp does not run"),
            std::string::npos);
  Trace storage;
  Node s;
  s.id = 8, s.type = 8;
  storage.nodes = {s};
  EXPECT_NE(
      error_of([&] { plan_run({&storage}, {}); }).find("rank 0 node 8 is a STORAGE_NODE, which trainvp does not run"),
      std::string::npos);
  Trace send, recv;
  send.nodes = {p2p_node(1, true, 1, 64)};
  recv.nodes = {p2p_node(2, false, 0, 32)};
  EXPECT_NE(error_of([&] {
              plan_run({&send, &recv}, {});
            }).find("rank 1 node 2 (r2) receives 32 B, but the matching rank 0 node 1 (s1) sends 64 B"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              plan_run({&send, &none}, {});
            }).find("rank 0 node 1 (s1): a send to rank 1 (tag 0) that no receive matches"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              plan_run({&none, &recv}, {});
            }).find("rank 1 node 2 (r2): a receive from rank 0 (tag 0) that no send matches"),
            std::string::npos);
  Trace self;
  self.nodes = {p2p_node(1, true, 0, 64)};
  EXPECT_NE(error_of([&] { plan_run({&self}, {}); }).find("comm_dst is 0 (it must name another rank of the 1)"),
            std::string::npos);
}

}  // namespace test_chakra
}  // namespace trainvp::chakra
