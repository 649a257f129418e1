// Each section loader of the scenario document on a minimal value: the defaults it resolves, what
// it derives, and one rule of its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "platform/config/scenario.hpp"
#include "platform/core/test/temp_file.hpp"

namespace trainvp {
namespace test_sections {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

json J(const char* text) { return json::parse(text); }

ClusterConfig h100_node(int nodes = 1) {
  ClusterConfig c;
  load_cluster(c, json{{"nodes", nodes}, {"node", {{"gpu", "H100-SXM5-80GB"}}}}, "/cluster");
  return c;
}

// The pointer a loader's ScenarioError names, or "accepted".
template <class F>
std::string error_path(F load) {
  try {
    load();
  } catch (const ScenarioError& e) {
    return e.path;
  }
  return "accepted";
}

TEST(ClusterSection, NamesAndRanksEveryGpuAndResolvesTheNics) {
  ClusterConfig c;
  json r = load_cluster(c, J(R"({"nodes": 2, "node": {"gpus": 4, "gpu": "H100-SXM5-80GB"}})"), "/cluster");
  ASSERT_EQ(c.gpus.size(), 8u);
  EXPECT_EQ(c.gpus[5].name, "node1.gpu1");
  EXPECT_EQ(c.gpus[5].rank, 5);
  EXPECT_EQ(c.node_of(5), 1);
  EXPECT_EQ(c.nics_per_node, 4);
  EXPECT_EQ(r["node"]["nics"], 4);
  EXPECT_EQ(r["fabric"]["topology"], "switch");
  EXPECT_EQ(r["gpu_overrides"], json::array());
}

TEST(ClusterSection, ResolvesLeavesAndSpinesOfALeafSpine) {
  ClusterConfig c;
  json r = load_cluster(c, J(R"({"nodes": 4, "node": {"gpu": "H100-SXM5-80GB"},
                                 "fabric": {"topology": "leaf-spine", "leaf_ports": 8}})"),
                        "/cluster");
  EXPECT_EQ(c.leaves, 4);  // 32 NICs at 8 ports each
  EXPECT_EQ(c.spines, 4);  // leaf_ports / 2
  EXPECT_EQ(r["fabric"]["leaves"], 4);
}

// fabric.fidelity "auto" (the default): packets up to kAutoFlowAboveGpus GPUs, flows above, and
// packets whatever the size when a setting needs them; the resolved scenario names what runs.
TEST(ClusterSection, AutoFidelityPicksFlowOnlyAboveItsGpuCountAndWhenNothingNeedsPackets) {
  const auto load = [](int nodes, const char* fabric) {
    ClusterConfig c;
    json value = J(R"({"node": {"gpu": "H100-SXM5-80GB"}})");
    value["nodes"] = nodes;
    value["fabric"] = J(fabric);
    json r = load_cluster(c, value, "/cluster");
    EXPECT_EQ(r["fabric"]["fidelity"], c.fabric.fidelity == FabricFidelity::Flow ? "flow" : "packet");
    return c.fabric;
  };
  const char* leaf_spine = R"({"topology": "leaf-spine"})";
  ASSERT_EQ(kAutoFlowAboveGpus % 8, 0);
  const int at = kAutoFlowAboveGpus / 8;  // 8 GPUs per node
  FabricConfig f = load(at, leaf_spine);
  EXPECT_EQ(f.fidelity, FabricFidelity::Packet);
  EXPECT_TRUE(f.fidelity_auto);
  f = load(at + 1, leaf_spine);
  EXPECT_EQ(f.fidelity, FabricFidelity::Flow);
  EXPECT_TRUE(f.fidelity_auto);
  // What flows cannot model keeps packets at any size.
  EXPECT_EQ(load(at + 1, R"({"topology": "leaf-spine", "congestion_control": "dcqcn"})").fidelity,
            FabricFidelity::Packet);
  EXPECT_EQ(load(at + 1, R"({"topology": "leaf-spine", "pfc": {"mode": "ingress"}})").fidelity, FabricFidelity::Packet);
  EXPECT_EQ(load(at + 1, R"({"topology": "leaf-spine", "pfc": {"mode": "egress"}})").fidelity, FabricFidelity::Flow);
  // Either fidelity stays one key away, and then `auto` did not choose.
  f = load(at + 1, R"({"topology": "leaf-spine", "fidelity": "packet"})");
  EXPECT_EQ(f.fidelity, FabricFidelity::Packet);
  EXPECT_FALSE(f.fidelity_auto);
  f = load(1, R"({"fidelity": "flow"})");
  EXPECT_EQ(f.fidelity, FabricFidelity::Flow);
  EXPECT_FALSE(f.fidelity_auto);
}

TEST(ClusterSection, OverridesChangeOnlyTheMatchedGpus) {
  ClusterConfig c;
  load_cluster(c, J(R"({"node": {"gpu": "H100-SXM5-80GB"},
                        "gpu_overrides": [{"target": "node0.gpu[0-1]", "speed": 0.5}]})"),
               "/cluster");
  EXPECT_EQ(c.gpus[1].params.speed, 0.5);
  EXPECT_EQ(c.gpus[2].params.speed, 1.0);
  EXPECT_EQ(error_path([] {
              ClusterConfig d;
              load_cluster(d, J(R"({"node": {"gpu": "H100-SXM5-80GB"}, "gpu_overrides": [{"target": "node9.*"}]})"),
                           "/cluster");
            }),
            "/cluster/gpu_overrides/0/target");
}

TEST(WorkloadSection, ZooModelResolvesItsGradientDtypeAndKind) {
  Scenario s;
  s.cluster = h100_node();
  WorkloadRaw raw;
  json r = load_workload_section(s, raw, J(R"({"model": "gpt2-xl", "dtype": "fp16"})"));
  EXPECT_EQ(s.workload.model, "gpt2-xl");
  EXPECT_FALSE(s.workload.layers.empty());
  EXPECT_FALSE(s.collective_bench);
  EXPECT_EQ(r["kind"], "training");
  EXPECT_EQ(r["grad_dtype"], "fp16");
  EXPECT_EQ(s.workload.shape.grad_dtype, DType::FP16);
}

TEST(WorkloadSection, ExplicitLayersSplitTheBackwardIntoHalves) {
  Scenario s;
  s.cluster = h100_node();
  WorkloadRaw raw;
  load_workload_section(s, raw, J(R"({"layers": [{"name": "l0", "params": 10, "fwd_flops": 1e9, "bwd_flops": 4e9}]})"));
  ASSERT_EQ(s.workload.layers.size(), 1u);
  EXPECT_EQ(s.workload.model, "custom");
  EXPECT_EQ(s.workload.layers[0].bwd_input_flops, 2e9);
  EXPECT_EQ(s.workload.layers[0].grad_bytes, 20u);  // bf16 gradients
}

TEST(WorkloadSection, CollectiveBenchmarkExpandsItsSizeRangeOverEveryGpu) {
  Scenario s;
  s.cluster = h100_node();
  WorkloadRaw raw;
  json r = load_workload_section(s, raw, J(R"({"kind": "collective", "min_bytes": "1KiB", "max_bytes": "4KiB"})"));
  EXPECT_TRUE(s.collective_bench);
  EXPECT_EQ(s.bench.sizes, (std::vector<std::uint64_t>{1024, 2048, 4096}));
  EXPECT_EQ(s.bench.communicator.size(), 8u);
  EXPECT_EQ(r["communicator"].size(), 8u);
  EXPECT_EQ(error_path([&] { load_workload_section(s, raw, J(R"({"kind": "benchmark"})")); }), "/workload/kind");
}

TEST(TrainingSection, DefaultsWithoutATrainingObject) {
  TrainingConfig t;
  Workload w;
  json r = load_training(t, w, nullptr, h100_node());
  EXPECT_EQ(t.iterations, 10);
  EXPECT_EQ(t.warmup, 1);
  EXPECT_EQ(t.sync.strategy, SyncStrategyKind::None);
  EXPECT_EQ(w.optimizer, OptimizerKind::Adam);
  EXPECT_EQ(r["time_limit"], "24h");
  EXPECT_EQ(r["sync"]["strategy"], "none");
  EXPECT_EQ(error_path([&] { load_training(t, w, J(R"({"iterations": 2, "warmup": 2})"), h100_node()); }),
            "/training/warmup");
}

TEST(SyncSection, ReadsTheStrategyAndItsNestedParts) {
  SyncConfig sc;
  json r = load_sync(sc, J(R"({"strategy": "ddp", "algorithm": "tree", "bucket": "4MiB", "comm_streams": 2,
                               "class_streams": {"large": 1, "medium": 0, "small": 0}})"),
                     Workload{}, h100_node());
  EXPECT_EQ(sc.strategy, SyncStrategyKind::Ddp);
  EXPECT_EQ(sc.algorithm, CollectiveAlgo::Tree);
  EXPECT_EQ(sc.bucket, 4u << 20);
  EXPECT_TRUE(sc.has_class_streams);
  EXPECT_EQ(sc.class_streams.large, 1);
  EXPECT_EQ(r["compression"]["kind"], "none");
}

TEST(SyncSection, RulesAcrossKeysAndTheCluster) {
  SyncConfig sc;
  EXPECT_EQ(error_path([&] {
              load_sync(sc, J(R"({"class_streams": {"large": 1, "medium": 0, "small": 0}})"), Workload{}, h100_node());
            }),
            "/training/sync/class_streams/large");  // comm_streams is 1
  EXPECT_EQ(error_path([&] { load_sync(sc, J(R"({"small_bytes": "20MB"})"), Workload{}, h100_node()); }),
            "/training/sync/small_bytes");
  EXPECT_EQ(error_path([&] {
              load_sync(sc, J(R"({"strategy": "ddp", "algorithm": "cxl_allreduce"})"), Workload{}, h100_node());
            }),
            "/cluster/node/cxl/present");
}

TEST(FaultsSection, NoFaultsAndOneOfEachShape) {
  json resolved;
  EXPECT_TRUE(load_fault_list(nullptr, resolved).empty());
  EXPECT_EQ(resolved, json::array());
  auto faults = load_fault_list(
      J(R"([{"kind": "gpu_slowdown", "target": "node0.gpu1", "factor": 0.5, "start": "1ms"}])"), resolved);
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, FaultKind::GpuSlowdown);
  EXPECT_EQ(faults[0].start_ps, 1000000000);
  EXPECT_EQ(faults[0].params, resolved[0]);
  EXPECT_EQ(resolved[0]["ramp"], "0s");
}

TEST(FaultsSection, UnknownKindListsTheKindsInTableOrder) {
  json resolved;
  try {
    load_fault_list(J(R"([{"kind": "meteor", "target": "*"}])"), resolved);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/faults/0/kind");
    EXPECT_EQ(std::string(e.what()),
              "/faults/0/kind: expected a fault kind: one of \"link_degrade\", \"gpu_slowdown\", \"cpu_contention\", "
              "\"link_down\", \"packet_loss\", \"congestion\", found string \"meteor\"");
  }
}

TEST(SloSection, AbsentIsNotGiven) {
  SloConfig slo;
  EXPECT_TRUE(load_slo(slo, nullptr).is_null());
  EXPECT_FALSE(slo.given);
  json r = load_slo(slo, J(R"({"fraction": 0.8})"));
  EXPECT_TRUE(slo.given);
  EXPECT_EQ(slo.fraction, 0.8);
  EXPECT_EQ(r, J(R"({"fraction": 0.8})"));
}

TEST(OutputSection, DirectoryDefaultsToTheRunNameAndWavesNeedRtl) {
  OutputConfig o;
  json r = load_output(o, nullptr, "run1", CxlParams{});
  EXPECT_EQ(o.dir, "out/run1");
  EXPECT_EQ(r["dir"], "out/run1");
  EXPECT_TRUE(o.trace);
  EXPECT_EQ(error_path([&] { load_output(o, J(R"({"waves": true})"), "run1", CxlParams{}); }), "/output/waves");
}

TEST(OutputSection, CapsDefaultToOneGibibyteAndTenMillionEventsAndTakeUnits) {
  OutputConfig o;
  json r = load_output(o, nullptr, "run1", CxlParams{});
  EXPECT_EQ(o.waves_max_bytes, 1024ull * 1024 * 1024);
  EXPECT_EQ(o.trace_max_events, 10'000'000u);
  EXPECT_EQ(o.waves_format, WaveFormat::Vcd);
  EXPECT_EQ(o.waves_file(), "waves.vcd");
  EXPECT_EQ(r["waves_max_bytes"], "1GiB");
  load_output(o, J(R"({"waves_max_bytes": "3MiB", "trace_max_events": 500, "waves_format": "fst"})"), "run1",
              CxlParams{});
  EXPECT_EQ(o.waves_max_bytes, 3u * 1024 * 1024);
  EXPECT_EQ(o.trace_max_events, 500u);
  EXPECT_EQ(o.waves_file(), "waves.fst");
  // A cap of nothing would record nothing: refused, as is an unknown format.
  EXPECT_EQ(error_path([&] { load_output(o, J(R"({"waves_max_bytes": "0B"})"), "run1", CxlParams{}); }),
            "/output/waves_max_bytes");
  EXPECT_EQ(error_path([&] { load_output(o, J(R"({"trace_max_events": 0})"), "run1", CxlParams{}); }),
            "/output/trace_max_events");
  EXPECT_EQ(error_path([&] { load_output(o, J(R"({"waves_format": "lxt"})"), "run1", CxlParams{}); }),
            "/output/waves_format");
}

// ---- the document: the sections in order, and `--faults` ----

const std::string kQuickstart = std::string(TRAINVP_SOURCE_DIR) + "/scenarios/quickstart.json";

TEST(Document, FaultsFileReplacesTheFaultsAndDropsTheGenerator) {
  std::string faults = test::write_temp("config_faults.json", R"({"faults": [{"kind": "link_down", "target": "*"}]})");
  Scenario s = load_scenario_file(kQuickstart, {"/fault_generator={}"}, faults);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::LinkDown);
  EXPECT_EQ(s.faults_file, faults);
  EXPECT_TRUE(s.fault_generator.enabled);  // the override came after the replacement
  std::remove(faults.c_str());
}

TEST(Document, FaultsFileMustHoldAList) {
  std::string faults = test::write_temp("config_not_faults.json", R"({"kind": "link_down"})");
  try {
    load_scenario_file(kQuickstart, {}, faults);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "/: --faults \"" + faults +
                                         "\": expected a JSON list of faults (as DIR/faults.json holds it) or an "
                                         "object with a `faults` list, found object {\"kind\":\"link_down\"}");
  }
  std::remove(faults.c_str());
}

TEST(Document, ResolvedHoldsEverySectionInOrder) {
  Scenario s = load_scenario_file(kQuickstart, {"/slo/fraction=0.5"});
  std::vector<std::string> keys;
  for (auto it = s.resolved.begin(); it != s.resolved.end(); ++it) keys.push_back(it.key());
  for (const char* k : {"cluster", "workload", "training", "faults", "slo", "output"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  EXPECT_TRUE(s.slo.given);
  EXPECT_EQ(s.output.dir, "out/quickstart");
}

}  // namespace test_sections
}  // namespace trainvp
