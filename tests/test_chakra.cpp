// Chakra execution traces as whole scenarios (docs/workloads.md#chakra-execution-traces): traces
// written with the Chakra schema, run on one switch with one GPU per node (every transfer crosses
// two NICs), against closed forms: recorded compute times add up along the DAG, a ring all-reduce
// and a send take the fabric's alpha-beta time, compute and communication overlap where the DAG
// lets them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/workload/test/chakra_writer.hpp"
#include "platform/core/errors.hpp"
#include "tests/fabric_closed_form.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_chakra {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;
using namespace test;
namespace tc = ::trainvp::chakra_writer;
namespace pb = trainvp::chakra_pb;

constexpr double kMiB = 1048576, kUs = 1e-6;

// A directory of traces for one test, removed afterwards.
struct TraceDir {
  std::filesystem::path dir;
  explicit TraceDir(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("trainvp-chakra-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
  }
  ~TraceDir() { std::filesystem::remove_all(dir); }
  std::string prefix() const { return (dir / "t").string(); }
  void rank(int r, const std::vector<pb::Node>& nodes) const {
    tc::write(prefix() + "." + std::to_string(r) + ".et", nodes);
  }
};

json scenario(int ranks, const json& chakra, const std::string& chunk = "1MiB") {
  return {
      {"trainvp", 1},
      {"name", "chakra-test"},
      {"cluster",
       {{"nodes", ranks},
        {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
        {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"switch_ports", 64}, {"chunk", chunk}}}}},
      {"workload", {{"chakra", chakra}}},
      {"output", {{"trace", false}}}};
}

double end_of(const json& results, int rank) { return results["chakra"]["per_rank"][rank]["end_s"].get<double>(); }

TEST(Chakra, ComputeAllReduceComputeOnFourRanksTakesTheirSum) {
  // Each rank: 100 us of compute, a 64 MiB ring all-reduce, 50 us. With the chunk = one ring
  // segment (n/p), every step is one transfer: 2(p - 1)(alpha + n/(p beta)).
  TraceDir d("ring");
  for (int r = 0; r < 4; ++r)
    d.rank(r, {tc::comp(1, "fwd", 100), tc::coll(2, "ar", pb::ALL_REDUCE, 64 << 20, {1}), tc::comp(3, "opt", 50, {2})});
  const json res = simulate(scenario(4, {{"traces", d.prefix()}}, "16MiB"));
  const double ring = 6 * (alpha_between_nodes() + 16 * kMiB / eth_beta());
  for (int r = 0; r < 4; ++r) {
    EXPECT_NEAR(end_of(res, r), 150 * kUs + ring, 1e-9) << "rank " << r;
    EXPECT_NEAR(res["chakra"]["per_rank"][r]["gpu_busy_s"].get<double>(), 150 * kUs, 1e-12);
    EXPECT_NEAR(res["chakra"]["per_rank"][r]["exposed_communication_s"].get<double>(), ring, 1e-9);
  }
  EXPECT_EQ(res["chakra"]["collectives"], 1);
  EXPECT_EQ(res["collectives"][0]["label"], "ar");
  EXPECT_EQ(res["collectives"][0]["op"], "all_reduce");
}

TEST(Chakra, TwoStagePipelineOverlapsEachSendWithTheNextMicroBatch) {
  // Stage 0 computes two micro-batches of d and sends each (8 MiB) when it is done; stage 1
  // receives each, then computes d on it. With d > T (the send): stage 1 starts at d + T, its
  // second micro-batch has arrived (2d + T) by the time the first is done: 3d + T.
  TraceDir d("pipeline");
  d.rank(0, {tc::comp(1, "f0", 500), tc::p2p(2, "s0", true, 0, 1, 8 << 20, 0, {1}), tc::comp(3, "f1", 500, {1}),
             tc::p2p(4, "s1", true, 0, 1, 8 << 20, 0, {3})});
  d.rank(1, {tc::p2p(1, "r0", false, 0, 1, 8 << 20, 0), tc::comp(2, "b0", 500, {1}),
             tc::p2p(3, "r1", false, 0, 1, 8 << 20, 0), tc::comp(4, "b1", 500, {2, 3})});
  const json res = simulate(scenario(2, {{"traces", d.prefix()}}, "8MiB"));
  const double send = alpha_between_nodes() + 8 * kMiB / eth_beta(), dd = 500 * kUs;
  ASSERT_LT(send, dd);
  EXPECT_NEAR(end_of(res, 0), 2 * dd + send, 1e-9);  // its last send ends when the receive does
  EXPECT_NEAR(end_of(res, 1), 3 * dd + send, 1e-9);
  EXPECT_NEAR(res["chakra"]["time_s"].get<double>(), 3 * dd + send, 1e-9);
  // Stage 1 waits only for the first send; the second overlaps its compute.
  EXPECT_NEAR(res["chakra"]["per_rank"][1]["exposed_communication_s"].get<double>(), dd + send, 1e-9);
  EXPECT_EQ(res["chakra"]["point_to_point"], 2);
}

TEST(Chakra, NodesWithoutADurationAreTimedByRooflineAndCpuNodesRunBesideTheGpu) {
  // A GEMM of F FLOPs over B bytes: max(F / (peak x efficiency), B / (HBM x mem_efficiency)) plus
  // one kernel launch; a memory node of B bytes: B / HBM, no launch; then a 300 us CPU node that
  // started at 0 beside them (is_cpu_op) ends the rank if it is the longest.
  TraceDir d("roofline");
  pb::Node gemm = tc::node(1, "gemm", pb::COMP_NODE);
  tc::attr(gemm, "num_ops")->set_int64_val(200000000000);  // 2e11 FLOPs
  tc::attr(gemm, "tensor_size")->set_uint64_val(1 << 30);
  pb::Node load = tc::node(2, "load", pb::MEM_LOAD_NODE, {1});
  tc::attr(load, "tensor_size")->set_uint64_val(1 << 28);
  pb::Node host = tc::node(3, "host", pb::COMP_NODE);
  host.mutable_attr(0)->set_bool_val(true);
  host.set_duration_micros(3000);
  d.rank(0, {gemm, load, host});
  const json doc = scenario(1, {{"traces", d.prefix()}});
  const GpuParams g = load_scenario(doc, "t").cluster.gpus[0].params;
  const double hbm = g.mem_bw / 8 * g.mem_efficiency;
  const double gemm_s = std::max(2e11 / (g.peak_bf16 * g.efficiency), (1 << 30) / hbm) + g.kernel_launch_ps * 1e-12;
  const double gpu_s = gemm_s + (1 << 28) / hbm;
  const json res = simulate(doc);
  EXPECT_NEAR(res["chakra"]["per_rank"][0]["gpu_busy_s"].get<double>(), gpu_s, 2e-12);
  EXPECT_NEAR(res["chakra"]["per_rank"][0]["cpu_busy_s"].get<double>(), 3000 * kUs, 1e-12);
  EXPECT_NEAR(end_of(res, 0), std::max(gpu_s, 3000 * kUs), 2e-12);
}

TEST(Chakra, ProcessGroupsRunApartAndAReplicatedTraceRunsOnEveryRank) {
  // Ranks 0 and 1 all-reduce in group "a", ranks 2 and 3 in group "b" (listed 3, 2), 32 MiB each
  // with chunk 16 MiB: 2 (alpha + 16 MiB / beta), both pairs at once on disjoint NICs.
  TraceDir d("groups");
  for (int r = 0; r < 4; ++r) d.rank(r, {tc::coll(1, "ar", pb::ALL_REDUCE, 32 << 20, {}, r < 2 ? "a" : "b")});
  const json res = simulate(scenario(
      4, {{"traces", d.prefix()}, {"comm_groups", {{"a", {0, 1}}, {"b", {{"ranks", {3, 2}}, {"dimensions", {2}}}}}}},
      "16MiB"));
  const double pair = 2 * (alpha_between_nodes() + 16 * kMiB / eth_beta());
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(end_of(res, r), pair, 1e-9) << "rank " << r;
  EXPECT_EQ(res["chakra"]["collectives"], 2);

  // A single file: every rank runs it; a world all-reduce of 3 x 16 MiB on 3 ranks, chunk 16 MiB.
  TraceDir one("replicated");
  const std::string file = (one.dir / "all.et").string();
  tc::write(file, {tc::comp(1, "c", 10), tc::coll(2, "ar", pb::ALL_REDUCE, 48 << 20, {1})});
  const json rep = simulate(scenario(3, {{"traces", file}}, "16MiB"));
  EXPECT_TRUE(rep["chakra"]["replicated"].get<bool>());
  for (int r = 0; r < 3; ++r)
    EXPECT_NEAR(end_of(rep, r), 10 * kUs + 4 * (alpha_between_nodes() + 16 * kMiB / eth_beta()), 1e-9);
  // The same trace as a directory of per-rank files gives the same run.
  TraceDir dir("directory");
  for (int r = 0; r < 3; ++r)
    tc::write((dir.dir / ("x." + std::to_string(r) + ".et")).string(),
              {tc::comp(1, "c", 10), tc::coll(2, "ar", pb::ALL_REDUCE, 48 << 20, {1})});
  const json per = simulate(scenario(3, {{"traces", dir.dir.string()}}, "16MiB"));
  EXPECT_EQ(per["chakra"]["per_rank"], rep["chakra"]["per_rank"]);
  EXPECT_FALSE(per["chakra"]["replicated"].get<bool>());
}

// Every rank's trace holds one collective of `type` over all of them.
json one_collective(const TraceDir& d, int p, pb::CollectiveCommType type, std::int64_t bytes, int root,
                    const std::string& chunk) {
  for (int r = 0; r < p; ++r) {
    pb::Node n = tc::coll(1, "c", type, bytes);
    if (root >= 0)
      tc::attr(n, type == pb::BROADCAST || type == pb::SCATTER ? "comm_src" : "comm_dst")->set_int32_val(root);
    d.rank(r, {n});
  }
  return simulate(scenario(p, {{"traces", d.prefix()}}, chunk));
}

TEST(Chakra, RootedCollectivesAndBarriersTakeTheirClosedForms) {
  const double alpha = alpha_between_nodes(), beta = eth_beta(), n = 48 * kMiB;
  // Scatter from rank 2 and gather to it (4 ranks, 48 MiB, parts of 12 MiB): the root's NIC
  // carries the 3 other parts one direction, shared chunk by chunk: 36 MiB / beta, plus the
  // path's alpha. Per-chunk store-and-forward at the far NIC adds at most a chunk's time (1 MiB).
  TraceDir s("scatter"), g("gather"), r("reduce"), b("barrier");
  const double nic_bound = 36 * kMiB / beta + alpha;
  EXPECT_NEAR(one_collective(s, 4, pb::SCATTER, 48 << 20, 2, "1MiB")["chakra"]["time_s"].get<double>(), nic_bound,
              kMiB / beta);
  EXPECT_NEAR(one_collective(g, 4, pb::GATHER, 48 << 20, 2, "1MiB")["chakra"]["time_s"].get<double>(), nic_bound,
              kMiB / beta);
  // Reduce to rank 0 as NCCL's ring: a chain 1 -> 2 -> 3 -> 0 pipelined in chunks c of n: the
  // first chunk takes (p - 1)(alpha + c / beta), the n/c - 1 others follow one chunk time apart.
  const double c = 4 * kMiB, chain = 3 * (alpha + c / beta) + (n / c - 1) * c / beta;
  EXPECT_NEAR(one_collective(r, 4, pb::REDUCE, 48 << 20, 0, "4MiB")["chakra"]["time_s"].get<double>(), chain,
              1e-3 * chain);
  // A barrier is an all-reduce of one 4-byte element: its 2(p - 1) ring steps of 1 byte are the
  // path's latency (their packets take nanoseconds).
  const json bar = one_collective(b, 4, pb::BARRIER, 0, -1, "1MiB");
  EXPECT_NEAR(bar["chakra"]["time_s"].get<double>(), 6 * latency_between_nodes(), 0.002 * 6 * latency_between_nodes());
  EXPECT_EQ(bar["collectives"][0]["bytes"], 4);
}

TEST(Chakra, FaultsApplyToTracesAsToTraining) {
  // Rank 1's GPU at half speed from the start: its 1 ms kernel takes 2 ms, and the all-reduce
  // (32 MiB, chunk 16 MiB: 2 (alpha + 16 MiB / beta)) starts when it joins, on both ranks.
  TraceDir d("fault");
  for (int r = 0; r < 2; ++r) d.rank(r, {tc::comp(1, "k", 1000), tc::coll(2, "ar", pb::ALL_REDUCE, 32 << 20, {1})});
  json doc = scenario(2, {{"traces", d.prefix()}}, "16MiB");
  doc["faults"] = {{{"kind", "gpu_slowdown"}, {"target", "node1.gpu0"}, {"factor", 0.5}}};
  const json res = simulate(doc);
  const double ar = 2 * (alpha_between_nodes() + 16 * kMiB / eth_beta());
  EXPECT_NEAR(end_of(res, 0), 2000 * kUs + ar, 1e-9);
  EXPECT_NEAR(end_of(res, 1), 2000 * kUs + ar, 1e-9);
  EXPECT_NEAR(res["chakra"]["per_rank"][0]["gpu_busy_s"].get<double>(), 1000 * kUs, 1e-12);
  EXPECT_NEAR(res["chakra"]["per_rank"][1]["gpu_busy_s"].get<double>(), 2000 * kUs, 1e-12);
}

std::string scenario_error(const json& doc, std::string* path = nullptr) {
  try {
    load_scenario(doc, "t");
  } catch (const ScenarioError& e) {
    if (path) *path = e.path;
    return e.what();
  }
  return "no error";
}

TEST(Chakra, BadTracesAreOneErrorNamingThePointerTheRankAndTheNode) {
  TraceDir d("errors");
  d.rank(0, {tc::coll(1, "ar", pb::ALL_REDUCE, 1024)});
  d.rank(1, {tc::coll(1, "ar", pb::ALL_REDUCE, 2048)});
  std::string path;
  std::string msg = scenario_error(scenario(2, {{"traces", d.prefix()}}), &path);
  EXPECT_EQ(path, "/workload/chakra/traces");
  EXPECT_NE(
      msg.find(
          "rank 1 node 1 (ar): collective #0 on every rank is ALL_REDUCE of 2048 B, but rank 0 node 1 (ar) is ALL_REDUCE of 1024 B"),
      std::string::npos)
      << msg;
  msg = scenario_error(scenario(3, {{"traces", d.prefix()}}), &path);  // no t.2.et
  EXPECT_EQ(path, "/workload/chakra/traces");
  EXPECT_NE(msg.find("t.2.et: is missing"), std::string::npos) << msg;
  msg = scenario_error(scenario(1, {{"traces", d.prefix()}}), &path);  // t.1.et is one too many
  EXPECT_NE(msg.find("more ranks than the cluster's 1 GPUs"), std::string::npos) << msg;
  msg = scenario_error(scenario(2, {{"traces", "no/such/prefix"}}), &path);
  EXPECT_NE(msg.find("no Chakra trace \"no/such/prefix\""), std::string::npos) << msg;
  msg = scenario_error(scenario(2, {{"traces", d.prefix()}, {"comm_groups", {{"a", {0, 7}}}}}), &path);
  EXPECT_EQ(path, "/workload/chakra/comm_groups/a/1");
  json doc = scenario(2, {{"traces", d.prefix()}});
  doc["workload"]["model"] = "gpt2";
  msg = scenario_error(doc, &path);
  EXPECT_EQ(path, "/workload/model");
  TraceDir ok("ok");
  for (int r = 0; r < 2; ++r) ok.rank(r, {tc::coll(1, "ar", pb::ALL_REDUCE, 1024)});
  doc = scenario(2, {{"traces", ok.prefix()}});
  EXPECT_EQ(scenario_error(doc), "no error");
  doc["training"] = {{"sync", {{"strategy", "ddp"}}}};
  scenario_error(doc, &path);
  EXPECT_EQ(path, "/training/sync");
}

}  // namespace test_chakra
}  // namespace trainvp
