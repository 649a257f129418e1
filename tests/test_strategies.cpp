// Layer-wise and partial synchronization (docs/strategies.md): the DreamDDP search against brute
// force, the grouping rules, every layer once per period, Local SGD's traffic, compression bytes
// against their formulas, overlap with unlimited bandwidth, the profiling pass, adaptive
// switching, and bad parameters. Simulations run in forked children (tests/sim_child.hpp).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "models/collectives/strategies/builders.hpp"
#include "models/collectives/strategies/dreamddp_schedule.hpp"
#include "platform/core/errors.hpp"
#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/scenario_cases.hpp"
#include "tests/sim_child.hpp"
#include "tests/command.hpp"
#include "tests/simulate.hpp"

namespace trainvp {
namespace test_strategies {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_child;

// ---------------------------------------------------------------- the DreamDDP search (pure)

// The wait of every assignment of contiguous runs to H iterations (runs may be empty), by
// enumerating all H-1 cut positions.
std::int64_t brute_force_wait(const ScheduleInput& in, int H) {
  const int L = static_cast<int>(in.bwd_ps.size());
  std::int64_t best = INT64_MAX;
  std::vector<int> cuts(static_cast<std::size_t>(H - 1), 0);
  std::function<void(int, int)> rec = [&](int k, int from) {
    if (k == H - 1) {
      std::int64_t w = 0;
      int start = 0;
      for (int c : cuts) w += run_wait_ps(in, start, c), start = c;
      w += run_wait_ps(in, start, L);
      best = std::min(best, w);
      return;
    }
    for (int c = from; c <= L; ++c) {
      cuts[static_cast<std::size_t>(k)] = c;
      rec(k + 1, c);
    }
  };
  rec(0, 0);
  return best;
}

TEST(DreamDdpSchedule, TotalWaitEqualsTheBruteForceOptimumOverContiguousAssignments) {
  std::mt19937_64 rng(20260301);
  int instances = 0, with_wait = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int L = 1 + static_cast<int>(rng() % 12), H = 1 + static_cast<int>(rng() % 4);
    // Communication from much shorter to much longer than the backward, as networks vary.
    const std::int64_t comm_scale = std::int64_t{1} << (rng() % 12);
    ScheduleInput in;
    for (int i = 0; i < L; ++i) {
      in.bwd_ps.push_back(1 + static_cast<std::int64_t>(rng() % 1000));
      in.comm_ps.push_back(static_cast<std::int64_t>(rng() % 1000) * comm_scale / 64);
    }
    in.tail_ps = static_cast<std::int64_t>(rng() % 3) * static_cast<std::int64_t>(rng() % 500);
    Schedule s = dreamddp_schedule(in, H, false);
    ASSERT_EQ(s.sets.size(), static_cast<std::size_t>(H));
    // Every layer once, in order, in contiguous runs.
    std::vector<int> seen;
    for (auto& set : s.sets) seen.insert(seen.end(), set.begin(), set.end());
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(L));
    for (int i = 0; i < L; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
    std::int64_t sum = 0;
    for (std::size_t h = 0; h < s.sets.size(); ++h) {
      std::int64_t w = s.sets[h].empty() ? 0 : run_wait_ps(in, s.sets[h].front(), s.sets[h].back() + 1);
      EXPECT_EQ(s.wait_ps[h], w);
      sum += w;
    }
    EXPECT_EQ(s.total_wait_ps, sum);
    const std::int64_t best = brute_force_wait(in, H);
    EXPECT_EQ(s.total_wait_ps, best) << "L=" << L << " H=" << H << " trial " << trial;
    ++instances;
    with_wait += best > 0;
  }
  EXPECT_EQ(instances, 3000);
  EXPECT_GT(with_wait, 1000);  // the instances are not trivially hidden
}

TEST(DreamDdpSchedule, FillInAddsOnlyEarlierLayersThatFinishBeforeTheFirstScheduledOne) {
  std::mt19937_64 rng(7);
  int filled = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const int L = 2 + static_cast<int>(rng() % 11), H = 2 + static_cast<int>(rng() % 3);
    ScheduleInput in;
    for (int i = 0; i < L; ++i) {
      in.bwd_ps.push_back(1 + static_cast<std::int64_t>(rng() % 1000));
      in.comm_ps.push_back(static_cast<std::int64_t>(rng() % 600));
    }
    Schedule plain = dreamddp_schedule(in, H, false), fill = dreamddp_schedule(in, H, true);
    EXPECT_EQ(fill.sets, plain.sets);
    EXPECT_EQ(fill.wait_ps, plain.wait_ps);
    for (std::size_t h = 0; h < fill.sets.size(); ++h) {
      if (fill.fill_in[h].empty()) continue;
      ++filled;
      ASSERT_FALSE(fill.sets[h].empty());
      const int first = fill.sets[h].front();
      for (std::size_t k = 0; k < fill.fill_in[h].size(); ++k) EXPECT_EQ(fill.fill_in[h][k], static_cast<int>(k));
      EXPECT_LT(fill.fill_in[h].back(), first);
      // The fill-in run ends by the time the first scheduled layer is ready, so the scheduled
      // run (which starts no earlier than that) keeps its predicted wait.
      std::int64_t ready = 0;
      for (int i = 0; i <= first; ++i) ready += in.bwd_ps[static_cast<std::size_t>(i)];
      EXPECT_LE(chain_end_ps(in, fill.fill_in[h]), ready);
      std::vector<int> all = fill.fill_in[h];
      all.insert(all.end(), fill.sets[h].begin(), fill.sets[h].end());
      EXPECT_EQ(chain_end_ps(in, all), chain_end_ps(in, fill.sets[h]));
    }
  }
  EXPECT_GT(filled, 50);
}

TEST(DreamDdpSchedule, PaperCaseEveryLayerHiddenNeedsOneIterationAndBadPeriodsThrow) {
  // Gradients ready at 100, 200, 300 ps; the backward ends at 350 (parameterless layers after).
  ScheduleInput in{{100, 100, 100}, {10, 10, 10}, 50};
  Schedule s = dreamddp_schedule(in, 3, false);
  EXPECT_EQ(s.total_wait_ps, 0);
  EXPECT_EQ(s.sets[0], (std::vector<int>{0, 1, 2}));  // optimal hiding packs them all
  EXPECT_TRUE(s.sets[1].empty() && s.sets[2].empty());
  EXPECT_THROW(dreamddp_schedule(in, 0, false), std::invalid_argument);
}

// ---------------------------------------------------------------- grouping rules (pure)

Workload synthetic(const std::vector<std::uint64_t>& params) {
  Workload w;
  w.shape.dtype = w.shape.grad_dtype = DType::BF16;
  for (std::size_t i = 0; i < params.size(); ++i) {
    Layer l;
    l.name = "l" + std::to_string(i);
    l.params = params[i];
    l.grad_bytes = params[i] * 2;
    w.layers.push_back(l);
  }
  return w;
}

TEST(Grouping, SizeClassesPackSmallGradientsAndAssignStreams) {
  // bf16: 6M params = 12 MB (large), 2M = 4 MB (medium), 100k = 200 kB (small).
  std::vector<std::uint64_t> p = {6000000, 0, 2000000};
  for (int i = 0; i < 12; ++i) p.push_back(100000);
  p.push_back(6000000);
  Workload w = synthetic(p);
  StrategyCommon c;
  c.world = 4;
  GroupingOptions g;
  g.streams = 3;
  g.class_streams = {0, 1, 2};
  UnitSyncConfig cfg = grouped_config("layerwise", w, c, g);
  // Ready order: l15 (large), l14..l3 (12 small: a pack of 10, then a pack of 2), l2 (medium), l0.
  ASSERT_EQ(cfg.units.size(), 5u);
  EXPECT_EQ(cfg.units[0].layers, std::vector<int>{15});
  EXPECT_EQ(cfg.units[0].size_class, "large");
  EXPECT_EQ(cfg.units[1].layers.size(), 10u);
  EXPECT_EQ(cfg.units[1].size_class, "small");
  EXPECT_EQ(cfg.units[1].bytes, 10u * 200000u);
  EXPECT_EQ(cfg.units[2].layers, (std::vector<int>{4, 3}));
  EXPECT_EQ(cfg.units[3].layers, std::vector<int>{2});
  EXPECT_EQ(cfg.units[3].size_class, "medium");
  EXPECT_EQ(cfg.units[4].layers, std::vector<int>{0});
  for (auto& u : cfg.units) EXPECT_EQ(u.stream, u.size_class == "large" ? 0 : u.size_class == "medium" ? 1 : 2);
  // Uncompressed: one all-reduce of the unit's bytes.
  for (auto& u : cfg.units) {
    ASSERT_EQ(u.steps.size(), 1u);
    EXPECT_EQ(u.steps[0].op, CollectiveOp::AllReduce);
    EXPECT_EQ(u.steps[0].bytes, u.bytes);
  }
  // Round-robin without classes; blockwise pairs adjacent parameter layers (l1 has none).
  g.class_streams.clear();
  g.pack = 1;
  g.block = 2;
  UnitSyncConfig b = grouped_config("blockwise", w, c, g);
  ASSERT_EQ(b.units.size(), 8u);  // 15 parameter layers in pairs: (15, 14), ..., (3, 2), (0)
  EXPECT_EQ(b.units[6].layers, (std::vector<int>{3, 2}));
  EXPECT_EQ(b.units.back().layers, std::vector<int>{0});
  for (std::size_t u = 0; u < b.units.size(); ++u) EXPECT_EQ(b.units[u].stream, static_cast<int>(u % 3));
  // asc_wfbp: a unit and a stream per parameter layer.
  UnitSyncConfig a = asc_wfbp_config(w, c);
  EXPECT_EQ(a.units.size(), 15u);
  EXPECT_EQ(a.streams, 15);
  // plsgd's sets split the 15 parameter layers 3, 3, 3, 3, 3.
  Schedule s = plsgd_sets(w, 5);
  for (auto& set : s.sets) EXPECT_EQ(set.size(), 3u);
  EXPECT_THROW(plsgd_sets(w, 0), std::invalid_argument);
}

TEST(Compression, PowerSgdAndTopkTrafficOfAZooLayer) {
  WorkloadShape shape;
  std::vector<Layer> gpt2 = build_zoo_model("gpt2-small", shape);
  const Layer& attn = gpt2[1];  // h0.attn: c_attn 768 x 2304, c_proj 768 x 768, biases and ln_1
  ASSERT_EQ(attn.name, "h0.attn");
  ASSERT_EQ(attn.matrices.size(), 2u);
  CompressionConfig ps{CompressionKind::PowerSgd, 0.01, 4, 1000000};
  LayerTraffic t = layer_traffic(attn, 2, ps, 8);
  ASSERT_TRUE(t.compressed);
  EXPECT_EQ(t.p_bytes, (768u * 4 + 768u * 4) * 2);
  EXPECT_EQ(t.q_bytes, (2304u * 4 + 768u * 4) * 2);
  EXPECT_EQ(t.dense_bytes, (2304u + 768u + 1536u) * 2);  // vectors travel uncompressed
  EXPECT_DOUBLE_EQ(t.work.flops, 6.0 * 768 * 2304 * 4 + 2.0 * 768 * 16 + 6.0 * 768 * 768 * 4 + 2.0 * 768 * 16);
  auto steps = sync_steps({t}, 8);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].bytes, t.dense_bytes + t.p_bytes);
  EXPECT_EQ(steps[1].bytes, t.q_bytes);
  // The tied LM head owns no matrix; ln_f (3 kB) stays below min_bytes.
  EXPECT_TRUE(gpt2.back().matrices.empty());
  EXPECT_FALSE(layer_traffic(gpt2[gpt2.size() - 2], 2, ps, 8).compressed);
  CompressionConfig tk{CompressionKind::TopK, 0.01, 4, 1000000};
  LayerTraffic k = layer_traffic(attn, 2, tk, 8);
  EXPECT_EQ(k.topk_k, static_cast<std::uint64_t>(std::ceil(0.01 * 2363904)));
  EXPECT_EQ(k.sparse_bytes, k.topk_k * 6);
  auto ksteps = sync_steps({k}, 8);
  ASSERT_EQ(ksteps.size(), 1u);
  EXPECT_EQ(ksteps[0].op, CollectiveOp::AllGather);
  EXPECT_EQ(ksteps[0].bytes, 8 * k.topk_k * 6);
}

// ---------------------------------------------------------------- simulations

json run_training(const json& doc) { return test::simulate(doc); }

json gpt2(const std::string& strategy, int nodes = 2, int gpus = 2, int iterations = 11) {
  return {{"trainvp", 1},
          {"name", "strategies"},
          {"cluster",
           {{"nodes", nodes},
            {"node", {{"gpus", gpus}, {"gpu", "H100-SXM5-80GB"}}},
            {"fabric", {{"nccl", {{"model", "bound"}}}, {"link_bw", "25Gbps"}}}}},
          {"workload", {{"model", "gpt2-small"}, {"batch", 2}, {"seq", 512}}},
          {"training", {{"iterations", iterations}, {"warmup", 1}, {"sync", {{"strategy", strategy}, {"period", 5}}}}},
          {"output", {{"trace", false}}}};
}

std::set<std::string> param_layers(const json& r) {
  std::set<std::string> out;
  for (auto& u : r["sync"]["units"])
    for (auto& l : u["layers"]) out.insert(l.get<std::string>());
  return out;
}

TEST(Strategies, PartialStrategiesSynchronizeEveryLayerOnceInEveryPeriodWithoutFillIn) {
  for (const char* strategy : {"plsgd", "dreamddp"}) {
    json r = run_training(gpt2(strategy));
    const std::set<std::string> all = param_layers(r);
    EXPECT_EQ(all.size(), 26u) << strategy;  // gpt2-small: every layer but the tied head
    const auto& its = r["iterations"];
    ASSERT_EQ(its.size(), 11u);
    for (std::size_t start = 0; start + 5 <= its.size(); ++start) {
      std::map<std::string, int> count;
      for (std::size_t i = start; i < start + 5; ++i)
        for (auto& l : its[i]["synced_layers"]) ++count[l.get<std::string>()];
      EXPECT_EQ(count.size(), all.size()) << strategy << " window " << start;
      for (auto& [name, c] : count) EXPECT_EQ(c, 1) << strategy << " " << name << " window " << start;
    }
    // Parameters are averaged: params x the weights' dtype (bf16), each layer once per period.
    double per_period = 0;
    for (std::size_t i = 1; i <= 5; ++i) per_period += its[i]["sync_bytes"].get<double>();
    EXPECT_EQ(per_period, 124439808.0 * 2) << strategy;
  }
}

// Payload bytes each node's NIC sent to the switch, summed (nodes of one GPU: what its GPU sent).
double nic_bytes(const json& r) {
  double b = 0;
  for (auto& l : r["links"])
    if (l["name"].get<std::string>().find("->switch") != std::string::npos) b += l["bytes"].get<double>();
  return b;
}

double collective_bytes(const json& r) {
  double b = 0;
  for (auto& c : r["collectives"]) b += c["bytes"].get<double>();
  return b;
}

TEST(Strategies, LocalSgdMovesOneHthOfDdpsBytesAndBlocksTheNextForward) {
  // Nodes of one GPU: every transfer of a ring crosses the same number of links.
  json ddp = run_training(gpt2("ddp", 4, 1, 10)), local = run_training(gpt2("localsgd", 4, 1, 10));
  EXPECT_DOUBLE_EQ(collective_bytes(local) * 5, collective_bytes(ddp));
  EXPECT_DOUBLE_EQ(nic_bytes(local) * 5, nic_bytes(ddp));
  EXPECT_DOUBLE_EQ(collective_bytes(ddp), 10 * 124439808.0 * 2);
  // Averages after iterations 4 and 9; the first is waited for before iteration 5's forward.
  const auto& its = local["iterations"];
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(its[i]["sync_bytes"].get<double>(), i % 5 == 4 ? 124439808.0 * 2 : 0.0) << i;
    if (i == 5) EXPECT_GT(its[i]["exposed_comm_s"].get<double>(), 1e-3);
    else EXPECT_EQ(its[i]["exposed_comm_s"].get<double>(), 0.0) << i;
    EXPECT_EQ(its[i]["comm_s"].get<double>() > 0, i % 5 == 4) << i;
  }
  EXPECT_LT(local["iteration_time_s"].get<double>(), ddp["iteration_time_s"].get<double>());
}

json explicit_layers(const std::string& strategy, const json& compression) {
  // bf16 values. a: 1,000,000 params (2 MB), b: 100,000 (200 kB, below min_bytes), c: 3,000,000.
  json layers = json::array();
  for (auto [name, params] : {std::pair<const char*, int>{"a", 1000000}, {"b", 100000}, {"c", 3000000}})
    layers.push_back({{"name", name}, {"params", params}, {"fwd_time", "1ms"}, {"bwd_time", "2ms"}});
  json doc = {{"trainvp", 1},
              {"name", "compression"},
              {"cluster",
               {{"nodes", 4},
                {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
                {"fabric", {{"nccl", {{"model", "bound"}}}}}}},
              {"workload", {{"layers", layers}, {"dtype", "bf16"}}},
              {"training",
               {{"iterations", 3}, {"warmup", 1}, {"sync", {{"strategy", strategy}, {"compression", compression}}}}},
              {"output", {{"trace", false}}}};
  return doc;
}

TEST(Strategies, TopkAndPowerSgdBytesEqualTheirFormulas) {
  const double p = 4, v = 2, idx = 4;
  // topk, ratio 0.01: a and c all-gather p x k x (value + index); b is all-reduced dense.
  json tk = run_training(explicit_layers("layerwise", {{"kind", "topk"}, {"ratio", 0.01}}));
  const double ka = 10000, kc = 30000;
  const double topk = p * (ka + kc) * (v + idx) + 100000 * v;
  EXPECT_DOUBLE_EQ(tk["sync"]["bytes_per_iteration"].get<double>(), topk);
  EXPECT_DOUBLE_EQ(collective_bytes(tk), 3 * topk);
  // Ring on nodes of one GPU: an all-gather of n sends (p-1)/p n per rank, an all-reduce 2(p-1)/p n.
  const double sent_tk = p * ((p - 1) / p * p * (ka + kc) * (v + idx) + 2 * (p - 1) / p * 100000 * v);
  EXPECT_DOUBLE_EQ(nic_bytes(tk), 3 * sent_tk);
  EXPECT_EQ(tk["sync"]["compression"]["compressed_layers"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(tk["sync"]["compression"]["uncompressed_bytes_per_iteration"].get<double>(), 4100000 * v);
  EXPECT_GT(tk["sync"]["compression"]["extra_compute_s"].get<double>(), 0);

  // powersgd, rank 4: explicit layers are square views, 1000 x 1000 and 1732 x 1733 (3,001,556
  // values: 1,556 of padding are sent and computed with the rest).
  json ps = run_training(explicit_layers("layerwise", {{"kind", "powersgd"}, {"rank", 4}}));
  const double r = 4, ma = 1000, na = 1000, mc = 1732, nc = 1733;
  const double powersgd = ((ma + na) * r + (mc + nc) * r + 100000) * v;
  EXPECT_DOUBLE_EQ(ps["sync"]["bytes_per_iteration"].get<double>(), powersgd);
  EXPECT_DOUBLE_EQ(collective_bytes(ps), 3 * powersgd);
  // Two all-reduces per compressed layer (P then Q) and one for b.
  std::map<std::string, std::vector<double>> by_unit;
  for (auto& u : ps["sync"]["units"])
    for (auto& c : u["collectives"]) by_unit[u["layers"][0].get<std::string>()].push_back(c["bytes"].get<double>());
  EXPECT_EQ(by_unit["a"], (std::vector<double>{ma * r * v, na * r * v}));
  EXPECT_EQ(by_unit["c"], (std::vector<double>{mc * r * v, nc * r * v}));
  EXPECT_EQ(by_unit["b"], (std::vector<double>{100000 * v}));
  // The GPU pays the projections: 6mnr + 2mr^2 FLOPs per matrix, and its compute grows by
  // exactly the extra work's time.
  const double flops = 6 * ma * na * r + 2 * ma * r * r + 6 * mc * nc * r + 2 * mc * r * r;
  EXPECT_DOUBLE_EQ(ps["sync"]["compression"]["extra_flops_per_iteration"].get<double>(), flops);
  json plain = run_training(explicit_layers("layerwise", {{"kind", "none"}}));
  const double extra = ps["sync"]["compression"]["extra_compute_s"].get<double>();
  EXPECT_GT(extra, 0);
  EXPECT_NEAR(ps["compute_time_s"].get<double>() - plain["compute_time_s"].get<double>(), extra, 1e-11);
  EXPECT_FALSE(plain["sync"].contains("compression"));
  EXPECT_DOUBLE_EQ(plain["sync"]["bytes_per_iteration"].get<double>(), 4100000 * v);
}

TEST(Strategies, LayerwiseWithUnlimitedBandwidthExposesNoCommunication) {
  json doc = gpt2("layerwise", 1, 4, 3);
  doc["cluster"]["node"]["gpu"] = {{"preset", "H100-SXM5-80GB"}, {"nvlink_bw", "1000Tbps"}};
  doc["cluster"]["node"]["nvlink"] = {{"latency", "0s"}, {"switch_latency", "0s"}};
  json lw = run_training(doc);
  doc["training"]["sync"]["strategy"] = "none";
  json none = run_training(doc);
  EXPECT_GT(lw["comm_time_s"].get<double>(), 0);
  // What is left is the last gradient's all-reduce (the embedding's, 50,257 x 768 bf16 = 77.2 MB)
  // at 10^15 bit/s, the fastest rate the time base allows: a ring over 4 GPUs moves 2 x 3/4 of it,
  // 115.8 MB x 8 / 1e15 = 0.93 us. Anything above 1.5 us is communication left exposed.
  EXPECT_LT(lw["exposed_comm_s"].get<double>(), 1.5e-6);
  EXPECT_NEAR(lw["iteration_time_s"].get<double>(), none["iteration_time_s"].get<double>(), 1.5e-6);
  // At 25 Gbit/s the same all-reduces are mostly exposed.
  json slow = run_training(gpt2("layerwise", 2, 2, 3));
  EXPECT_GT(slow["exposed_comm_s"].get<double>(), 1e-3);
}

TEST(Strategies, DreamDdpProfilesItselfAndItsPredictionMatchesTheSimulation) {
  json r = run_training(gpt2("dreamddp"));
  const json& sch = r["sync"]["schedule"];
  EXPECT_EQ(sch["profile"]["source"], "measured");
  double predicted = sch["predicted_iteration_time_s"].get<double>(), simulated = r["iteration_time_s"].get<double>();
  EXPECT_NEAR(predicted, simulated, 0.05 * simulated);
  ASSERT_EQ(sch["sets"].size(), 5u);
  // The profile's communication time of a layer is its all-reduce alone: of the 26 layers only
  // the parameterless head has none.
  int timed = 0;
  for (auto& l : sch["profile"]["layers"]) timed += l["comm_s"].get<double>() > 0;
  EXPECT_EQ(timed, 26);
  // The same schedule from an explicit profile (the measured one, given back).
  json doc = gpt2("dreamddp");
  json prof = json::array();
  for (auto& l : sch["profile"]["layers"])
    prof.push_back({{"layer", l["name"]},
                    {"bwd_time", std::to_string(std::llround(l["bwd_s"].get<double>() * 1e12)) + "ps"},
                    {"comm_time", std::to_string(std::llround(l["comm_s"].get<double>() * 1e12)) + "ps"}});
  doc["training"]["sync"]["profile"] = prof;
  json e = run_training(doc);
  EXPECT_EQ(e["sync"]["schedule"]["profile"]["source"], "scenario");
  for (std::size_t h = 0; h < 5; ++h) EXPECT_EQ(e["sync"]["schedule"]["sets"][h]["layers"], sch["sets"][h]["layers"]);
  EXPECT_DOUBLE_EQ(e["iteration_time_s"].get<double>(), simulated);
  // With fill-in, iterations may average more than their set, never fewer.
  doc["training"]["sync"]["fill_in"] = true;
  json f = run_training(doc);
  for (std::size_t i = 1; i < 11; ++i)
    EXPECT_GE(f["iterations"][i]["synced_layers"].size(), e["iterations"][i]["synced_layers"].size());
  EXPECT_LE(f["iteration_time_s"].get<double>(), 1.02 * simulated);
}

TEST(Strategies, AdaptiveGoesBlockwiseWhenComputeUtilizationIsLowAndStaysLayerwiseWhenHigh) {
  json slow = run_training(gpt2("adaptive", 2, 2, 6));
  json fast_doc = gpt2("adaptive", 2, 2, 6);
  fast_doc["cluster"]["fabric"]["link_bw"] = "400Gbps";
  fast_doc["workload"]["batch"] = 16;
  fast_doc["workload"]["seq"] = 1024;
  json fast = run_training(fast_doc);
  for (int i = 0; i < 6; ++i) {
    if (i < 2) {
      EXPECT_EQ(slow["iterations"][i]["sync_plan"], "layerwise");
      continue;
    }
    EXPECT_LT(slow["iterations"][i]["utilization"].get<double>(), 0.7) << i;
    EXPECT_EQ(slow["iterations"][i]["sync_plan"], "blockwise") << i;
    EXPECT_GT(fast["iterations"][i]["utilization"].get<double>(), 0.9) << i;
    EXPECT_EQ(fast["iterations"][i]["sync_plan"], "layerwise") << i;
  }
  EXPECT_EQ(slow["sync"]["plans"].size(), 2u);
}

TEST(Strategies, AscWfbpRunsEveryLayersAllReduceAtOnceAndTheTraceShowsThePlans) {
  json doc = gpt2("asc_wfbp", 2, 2, 3);
  doc["output"]["trace"] = true;
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    std::ostringstream trace;
    sim.context().trace.write(trace);
    return collect_results(sim).json.dump() + "\n" + trace.str();
  });
  ASSERT_TRUE(r.ok) << r.value;
  json res = json::parse(r.value.substr(0, r.value.find('\n')));
  const std::string trace = r.value.substr(r.value.find('\n') + 1);
  EXPECT_EQ(res["sync"]["streams"].get<int>(), 26);
  EXPECT_NE(trace.find("\"iteration 1: every layer\""), std::string::npos);
  EXPECT_NE(trace.find("\"all_reduce h5.mlp\""), std::string::npos);
  // Several all-reduces of one iteration overlap in time on a rank.
  std::vector<std::pair<double, double>> spans;
  for (auto& c : res["collectives"])
    if (c["label"].get<std::string>().rfind("asc_wfbp it1 ", 0) == 0)
      spans.push_back({c["start_s"].get<double>(), c["end_s"].get<double>()});
  int overlapping = 0;
  for (std::size_t a = 0; a < spans.size(); ++a)
    for (std::size_t b = a + 1; b < spans.size(); ++b)
      overlapping += spans[a].first < spans[b].second && spans[b].first < spans[a].second;
  EXPECT_GT(overlapping, 0);
}

// ---------------------------------------------------------------- errors

TEST(Strategies, BadStrategyParametersAreClearErrors) {
  std::vector<test::BadCase> cases = {
      {"H < 1", [](json& d) { d["training"]["sync"]["period"] = 0; }, "/training/sync/period"},
      {"unknown strategy", [](json& d) { d["training"]["sync"]["strategy"] = "dream"; }, "/training/sync/strategy"},
      {"ratio 0",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"kind", "topk"}, {"ratio", 0}};
       },
       "/training/sync/compression/ratio"},
      {"ratio above 1",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"kind", "topk"}, {"ratio", 1.5}};
       },
       "/training/sync/compression/ratio"},
      {"rank 0",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"kind", "powersgd"}, {"rank", 0}};
       },
       "/training/sync/compression/rank"},
      {"unknown compression",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"kind", "qsgd"}};
       },
       "/training/sync/compression/kind"},
      {"unknown compression key",
       [](json& d) {
         d["training"]["sync"]["compression"] = {{"ratoi", 0.1}};
       },
       "/training/sync/compression/ratoi"},
      {"block 0", [](json& d) { d["training"]["sync"]["block"] = 0; }, "/training/sync/block"},
      {"pack 0", [](json& d) { d["training"]["sync"]["pack"] = 0; }, "/training/sync/pack"},
      {"small above large", [](json& d) { d["training"]["sync"]["small_bytes"] = "20MB"; },
       "/training/sync/small_bytes"},
      {"low above high", [](json& d) { d["training"]["sync"]["util_low"] = 0.95; }, "/training/sync/util_low"},
      {"utilization above 1", [](json& d) { d["training"]["sync"]["util_high"] = 1.2; }, "/training/sync/util_high"},
      {"class stream out of range",
       [](json& d) {
         d["training"]["sync"]["class_streams"] = {{"large", 0}, {"medium", 1}, {"small", 1}};
       },
       "/training/sync/class_streams/medium"},
      {"class missing",
       [](json& d) {
         d["training"]["sync"]["class_streams"] = {{"large", 0}, {"medium", 0}};
       },
       "/training/sync/class_streams/small"},
      {"profile of an unknown layer",
       [](json& d) {
         d["training"]["sync"]["profile"] = {{{"layer", "h99.mlp"}, {"bwd_time", "1ms"}}};
       },
       "/training/sync/profile/0/layer"},
      {"profile missing a layer",
       [](json& d) {
         d["training"]["sync"]["profile"] = {{{"layer", "embed"}, {"bwd_time", "1ms"}, {"comm_time", "1ms"}}};
       },
       "/training/sync/profile"},
      {"profile layer twice",
       [](json& d) {
         d["training"]["sync"]["profile"] = {{{"layer", "embed"}, {"bwd_time", "1ms"}},
                                             {{"layer", "embed"}, {"bwd_time", "1ms"}}};
       },
       "/training/sync/profile/1/layer"},
      {"communication of a parameterless layer",
       [](json& d) {
         d["training"]["sync"]["profile"] = {{{"layer", "lm_head"}, {"bwd_time", "1ms"}, {"comm_time", "1ms"}}};
       },
       "/training/sync/profile/0/comm_time"},
  };
  test::expect_load_errors(gpt2("dreamddp"), cases);
  // The command line reports it with the pointer and exit status 2.
  test::Cmd r = test::trainvp("validate scenarios/strategies/gpt2-32gpu-dreamddp.json --set /training/sync/period=0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/training/sync/period"), std::string::npos) << r.out;
}

}  // namespace test_strategies
}  // namespace trainvp
