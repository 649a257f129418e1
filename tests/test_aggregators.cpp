// Parameter-server all-reduce (`ps`) over CPU aggregator nodes against its closed form
// (docs/aggregators.md): with p GPUs of NIC rate beta, K aggregators of m NICs each, a message of
// n bytes is K parts of S = ceil(n / (K c)) rounds of segments of b = min(c, n / K) bytes (c the
// fabric chunk). A round's push takes P = max(K b / beta, p b / (m beta)) (a GPU's uplink or an
// aggregator's downlink), its sum R = job_latency + (p + 1) b / (mem_bw x mem_efficiency) (the
// Xeon 8380 is memory-bound at these sizes), its pull P again; pushes, sums and pulls of
// successive rounds pipeline:
//   T = 2 alpha + 2 P + R + (S - 1) max(P, R).
// Also the aggregators' byte counts, ps against ring, DDP training over aggregators, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/fabric_closed_form.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_aggregators {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using namespace test;

json ps_bench(int p, int K, int m, const std::string& bytes, const std::string& algo = "ps") {
  json doc = {{"trainvp", 1},
              {"name", "ps-test"},
              {"cluster",
               {{"nodes", p},
                {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
                {"fabric", {{"nccl", {{"model", "bound"}}}, {"topology", "switch"}, {"switch_ports", 128}}}}},
              {"workload",
               {{"kind", "collective"},
                {"op", "all_reduce"},
                {"algorithm", algo},
                {"bytes", bytes},
                {"iterations", 1},
                {"warmup", 0}}},
              {"output", {{"trace", false}}}};
  if (K > 0) doc["cluster"]["aggregators"] = {{"count", K}, {"cpu", "xeon-8380"}, {"nics", m}};
  return doc;
}

// The closed form of the header; Xeon Platinum 8380: 204.8 GB/s x 0.8, 2 us per sum.
double ps_closed_form(int p, int K, int m, double n) {
  const double c = 1048576, beta = eth_beta(), mem = 204.8e9 * 0.8;
  const double b = std::min(c, n / K), S = std::ceil(n / K / c);
  const double P = std::max(K * b / beta, p * b / (m * beta)), R = 2e-6 + (p + 1) * b / mem;
  return 2 * alpha_between_nodes() + 2 * P + R + (S - 1) * std::max(P, R);
}

double time_of(const json& r) { return r["collectives"][0]["time_s"].get<double>(); }

TEST(Aggregators, PsAllReduceMatchesThePipelineClosedFormWithinTwoPercent) {
  // Aggregator-NIC-bound (p > K m), GPU-NIC-bound (K m = p) and CPU-bound (R > P) cases, one round and many.
  struct Case {
    int p, K, m;
    double n;
  };
  for (const Case& k : {Case{16, 4, 1, 1048576.0}, Case{16, 4, 1, 64 * 1048576.0}, Case{8, 8, 1, 64 * 1048576.0},
                        Case{8, 4, 2, 32 * 1048576.0}, Case{8, 2, 4, 64 * 1048576.0}, Case{4, 1, 1, 8 * 1048576.0}}) {
    const double t = time_of(simulate(ps_bench(k.p, k.K, k.m, std::to_string(static_cast<long long>(k.n)) + "B")));
    const double want = ps_closed_form(k.p, k.K, k.m, k.n);
    // The form counts one alpha per direction and whole-segment stages; the simulation's
    // segments also pipeline packet by packet across hops and rounds overlap by a few packets.
    EXPECT_NEAR(t, want, 0.02 * want) << "p=" << k.p << " K=" << k.K << " m=" << k.m << " n=" << k.n;
  }
}

TEST(Aggregators, EachAggregatorSumsItsPartOfEveryGpusBuffer) {
  const int p = 8, K = 4, m = 2;
  const double n = 16 * 1048576.0;
  json r = simulate(ps_bench(p, K, m, "16MiB"));
  ASSERT_EQ(r["aggregators"].size(), static_cast<std::size_t>(K));
  for (const json& a : r["aggregators"]) {
    // Part n / K from each of p GPUs, split evenly over the m ports; one sum per 1 MiB segment.
    EXPECT_EQ(a["bytes_reduced"].get<double>(), p * n / K);
    EXPECT_EQ(a["bytes_out"].get<double>(), n / K);
    EXPECT_EQ(a["jobs"].get<int>(), 4);
    for (int j = 0; j < m; ++j) {
      EXPECT_EQ(a["port_bytes_in"][j].get<double>(), p * n / K / m);
      EXPECT_EQ(a["port_bytes_out"][j].get<double>(), p * n / K / m);
    }
    EXPECT_NEAR(a["busy_s"].get<double>(), 4 * (2e-6 + (p + 1) * 1048576.0 / (204.8e9 * 0.8)), 1e-9);
  }
}

TEST(Aggregators, EnoughAggregatorsBeatRingByUpToTwoTimesOverTwoPMinusOneOverP) {
  // 16 GPUs and 16 aggregator NICs at the GPUs' rate (K m beta = p beta), sums faster than a
  // round's push (R < P): ps moves n per GPU each way, ring 2 (p - 1) / p n.
  const int p = 16;
  const double n = 256 * 1048576.0;
  const double ps = time_of(simulate(ps_bench(p, 8, 2, "256MiB")));
  const double ring = time_of(simulate(ps_bench(p, 0, 0, "256MiB", "ring")));
  EXPECT_NEAR(ps, ps_closed_form(p, 8, 2, n), 0.02 * ps_closed_form(p, 8, 2, n));
  const double ring_form = 2 * (p - 1) * alpha_between_nodes() + 2.0 * (p - 1) / p * n / eth_beta();
  EXPECT_NEAR(ring / ps, ring_form / ps_closed_form(p, 8, 2, n), 0.04 * ring_form / ps_closed_form(p, 8, 2, n));
  EXPECT_GT(ring / ps, 1.7);
  // One aggregator of one NIC is p times short of bandwidth: ring wins.
  EXPECT_GT(time_of(simulate(ps_bench(p, 1, 1, "256MiB"))), 4 * ring);
}

TEST(Aggregators, DdpTrainingSynchronizesOverAggregators) {
  json doc = {{"trainvp", 1},
              {"name", "ddp-ps"},
              {"cluster",
               {{"nodes", 2},
                {"node", {{"gpus", 2}, {"gpu", "H100-SXM5-80GB"}}},
                {"aggregators", {{"count", 2}, {"cpu", "epyc-7763"}}}}},
              {"workload", {{"model", "gpt2-small"}, {"batch", 4}, {"seq", 1024}}},
              {"training", {{"iterations", 2}, {"warmup", 0}, {"sync", {{"strategy", "ddp"}, {"algorithm", "ps"}}}}},
              {"output", {{"trace", false}}}};
  json r = simulate(doc);
  double reduced = 0, grad_bytes = 0;
  for (const json& a : r["aggregators"]) reduced += a["bytes_reduced"].get<double>();
  for (const json& b : r["sync"]["buckets"]) grad_bytes += b["bytes"].get<double>();
  // Every iteration the 4 GPUs push every gradient byte once; the aggregators sum them all.
  EXPECT_GT(grad_bytes, 0);
  EXPECT_EQ(reduced, 4 * grad_bytes * 2);
}

TEST(Aggregators, BadAggregatorInputIsAClearError) {
  std::vector<BadCase> cases = {
      {"ps without aggregators", [](json& d) { d["cluster"].erase("aggregators"); }, "/cluster/aggregators/count"},
      {"zero aggregators", [](json& d) { d["cluster"]["aggregators"]["count"] = 0; }, "/cluster/aggregators/count"},
      {"unknown CPU", [](json& d) { d["cluster"]["aggregators"]["cpu"] = "pentium"; }, "/cluster/aggregators/cpu"},
      {"custom CPU missing a key",
       [](json& d) {
         d["cluster"]["aggregators"]["cpu"] = {{"cores", 8}};
       },
       "/cluster/aggregators/cpu/simd_bits"},
      {"zero NICs", [](json& d) { d["cluster"]["aggregators"]["nics"] = 0; }, "/cluster/aggregators/nics"},
      {"flow fidelity", [](json& d) { d["cluster"]["fabric"]["fidelity"] = "flow"; }, "/cluster/fabric/fidelity"},
      {"switch too small", [](json& d) { d["cluster"]["fabric"]["switch_ports"] = 4; }, "/cluster/fabric/switch_ports"},
      {"ps for all_gather", [](json& d) { d["workload"]["op"] = "all_gather"; }, "/workload/algorithm"},
  };
  expect_load_errors(ps_bench(4, 2, 1, "1MiB"), cases);
}

}  // namespace test_aggregators
}  // namespace trainvp
