// Malformed scenarios (platform/config/document.hpp): each row takes a valid base document (a copy of
// scenarios/quickstart.json), breaks one thing, and checks that load_scenario throws a
// ScenarioError naming the JSON pointer of the broken value and saying what was expected.
// Also: the base loads, --set overrides, and malformed JSON files.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "platform/core/errors.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/test/temp_file.hpp"

namespace trainvp {
namespace test_scenario_errors {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

json J(const char* text) { return json::parse(text); }

// A copy of scenarios/quickstart.json.
json base_doc() {
  return json::parse(R"({
    "trainvp": 1,
    "name": "quickstart",
    "seed": 1,
    "cluster": {
      "nodes": 1,
      "node": { "gpus": 8, "gpu": "H100-SXM5-80GB" }
    },
    "workload": { "model": "gpt2-xl", "batch": 8, "seq": 1024, "dtype": "bf16" },
    "training": { "iterations": 20, "warmup": 2, "optimizer": "adam", "sync": { "strategy": "none" } },
    "output": { "trace": true }
  })");
}

// A workload of explicit layers that loads as it is; rows break one key of it.
json layers_workload() {
  return json::parse(R"({
    "batch": 8,
    "layers": [
      { "name": "embed", "params": 1000, "fwd_flops": 1e9, "bwd_flops": 2e9 },
      { "name": "head", "params": 2000, "fwd_time": "10us", "bwd_input_flops": 1e9, "bwd_weight_flops": 1e9 }
    ]
  })");
}

// A GPU object starting from a preset, with the given keys changed.
json h100_with(const json& changes) {
  json g = {{"preset", "H100-SXM5-80GB"}};
  g.update(changes);
  return g;
}

// Every key a custom GPU must give, valid.
json custom_gpu() {
  return {{"model", "toy"},          {"peak_fp32", "10TFLOPS"}, {"peak_tf32", "20TFLOPS"}, {"peak_bf16", "40TFLOPS"},
          {"peak_fp16", "40TFLOPS"}, {"mem_bw", "1TB/s"},       {"mem_capacity", "64GiB"}};  // the base's gpt2-xl
                                                                                             // replica needs 44 GiB
}

// One change to the base document: set (or replace) the value at a JSON pointer, or erase it.
struct Edit {
  std::string pointer;
  json value;
  bool erase = false;
};
Edit set(std::string pointer, json value) { return {std::move(pointer), std::move(value), false}; }
Edit erase(std::string pointer) { return {std::move(pointer), nullptr, true}; }

json apply_edits(json doc, const std::vector<Edit>& edits) {
  for (const auto& e : edits) {
    json::json_pointer p(e.pointer);
    if (e.erase) doc[p.parent_pointer()].erase(p.back());
    else doc[p] = e.value;
  }
  return doc;
}

struct BadScenario {
  std::string name;         // the test's name: what is broken
  std::vector<Edit> edits;  // applied to base_doc()
  std::string path;         // expected ScenarioError::path
  std::string fragment;     // expected part of the message
};

std::ostream& operator<<(std::ostream& os, const BadScenario& c) { return os << c.name; }

const std::vector<BadScenario>& bad_scenarios() {
  static const std::vector<BadScenario> rows = {
      // ---- top level ----
      {"FormatVersion2",
       {set("/trainvp", 2)},
       "/trainvp",
       "expected scenario format version 1 (the only version this build of trainvp reads), found number 2"},
      {"FormatVersionAsString", {set("/trainvp", "1")}, "/trainvp", "expected an integer"},
      {"FormatVersionMissing", {erase("/trainvp")}, "/trainvp", "missing required key \"trainvp\""},
      {"ClusterMissing", {erase("/cluster")}, "/cluster", "missing required key \"cluster\""},
      {"WorkloadMissing", {erase("/workload")}, "/workload", "missing required key \"workload\""},
      {"TopLevelTypoWorkoad",
       {set("/workoad", base_doc()["workload"]), erase("/workload")},
       "/workoad",
       "unknown key \"workoad\" in scenario (did you mean \"workload\"?)"},
      {"DocumentNotAnObject", {set("", json::array())}, "", "expected an object (scenario), found array"},
      {"SeedNegative", {set("/seed", -1)}, "/seed", "expected an integer >= 0"},
      {"RunNameWithSlash",
       {set("/name", "a/b")},
       "/name",
       "expected a run name of letters, digits, '.', '_' and '-', found string \"a/b\""},
      {"RunNameDotDot", {set("/name", "..")}, "/name", "a run name of letters"},
      {"RunNameEmpty", {set("/name", "")}, "/name", "a run name of letters"},
      {"RunNameNotString", {set("/name", 7)}, "/name", "expected a string, found number 7"},
      {"FaultWithoutTarget",
       {set("/faults", J(R"([{"kind": "link_down"}])"))},
       "/faults/0/target",
       "missing required key \"target\""},
      {"FaultsNotAnArray", {set("/faults", json::object())}, "/faults", "expected an array of fault objects"},

      // ---- cluster and node ----
      {"ClusterUnknownKeyNodess",
       {set("/cluster/nodess", 2)},
       "/cluster/nodess",
       "unknown key \"nodess\" in cluster (did you mean \"nodes\"?)"},
      {"ClusterNotAnObject", {set("/cluster", "big")}, "/cluster", "expected an object (cluster)"},
      {"ClusterNodeMissing", {erase("/cluster/node")}, "/cluster/node", "missing required key \"node\""},
      {"NodesNegative",
       {set("/cluster/nodes", -1)},
       "/cluster/nodes",
       "expected an integer in [1, 8192], found number -1"},
      {"NodesZero", {set("/cluster/nodes", 0)}, "/cluster/nodes", "expected an integer in [1, 8192]"},
      {"NodesFractional", {set("/cluster/nodes", 1.5)}, "/cluster/nodes", "expected an integer"},
      {"NodesNaN", {set("/cluster/nodes", std::nan(""))}, "/cluster/nodes", "expected an integer"},
      {"NodesAsString", {set("/cluster/nodes", "4")}, "/cluster/nodes", "found string \"4\""},
      {"TooManyGpus",
       {set("/cluster/nodes", 8192), set("/cluster/node/gpus", 16)},
       "/cluster/nodes",
       "at most 65536 GPUs in all (8192 nodes x 16 GPUs per node"},
      {"FabricTooCostly",
       {set("/cluster/nodes", 2), set("/cluster/fabric/topology", "leaf-spine"), set("/cluster/fabric/leaves", 4096),
        set("/cluster/fabric/spines", 4096)},
       "/cluster/fabric/spines",
       "a fabric of at most 4194304 devices and links"},
      // A validation metric the run would not report was a failed run (exit 1) after the
      // simulation (fuzz-runs campaign 90), or, with jobs and Chakra traces, no comparison at all.
      {"ValidationMfuWithoutParallel",
       {set("/validation", J(R"({"metric": "mfu", "published": 0.5, "source": "s"})"))},
       "/validation/metric",
       "a transformer (zoo or Hugging Face) under /training/parallel"},
      {"ValidationBusBandwidthOfATraining",
       {set("/validation", J(R"({"metric": "busbw_GBps", "published": 40, "bytes": "1MiB", "source": "s"})"))},
       "/validation/metric",
       "a collective benchmark's figure"},
      {"ValidationOfACollectiveBenchmarkAtAnotherSize",
       {set("/workload", J(R"({"kind": "collective", "op": "all_reduce", "bytes": "4MiB"})")), erase("/training"),
        set("/validation", J(R"({"metric": "busbw_GBps", "published": 40, "bytes": "1MiB", "source": "s"})"))},
       "/validation/bytes",
       "not one of the benchmark's message sizes"},
      {"ValidationWithJobs",
       {set("/cluster/nodes", 2),
        set("/jobs", J(R"([{"placement": {"nodes": 1}, "workload": {"model": "gpt2-small", "batch": 1, "seq": 64}}])")),
        erase("/workload"), erase("/training"),
        set("/validation", J(R"({"metric": "iteration_s", "published": 1, "source": "s"})"))},
       "/validation",
       "each job has its own"},
      {"DcqcnWithFlowFidelity",
       {set("/cluster/fabric/fidelity", "flow"), set("/cluster/fabric/congestion_control", "dcqcn")},
       "/cluster/fabric/congestion_control",
       "\"none\" with fabric.fidelity \"flow\""},
      {"CongestionControlUnknown",
       {set("/cluster/fabric/congestion_control", "dctcp")},
       "/cluster/fabric/congestion_control",
       "dcqcn"},
      {"DcqcnKmaxNotAboveKmin",
       {set("/cluster/fabric/dcqcn", J(R"({"kmin": "100KB", "kmax": "50KB"})"))},
       "/cluster/fabric/dcqcn/kmax",
       "more than kmin (100000 bytes)"},
      {"DcqcnPmaxAboveOne", {set("/cluster/fabric/dcqcn/pmax", 1.5)}, "/cluster/fabric/dcqcn/pmax", "[0, 1]"},
      {"DcqcnRateAiWithoutUnit",
       {set("/cluster/fabric/dcqcn/rate_ai", 40)},
       "/cluster/fabric/dcqcn/rate_ai",
       "expected"},
      {"NodeUnknownKeyGpuss",
       {set("/cluster/node/gpuss", 4)},
       "/cluster/node/gpuss",
       "unknown key \"gpuss\" in node (did you mean \"gpus\"?)"},
      {"NodeGpusZero",
       {set("/cluster/node/gpus", 0)},
       "/cluster/node/gpus",
       "expected an integer in [1, 1024], found number 0"},
      {"NodeGpuMissing", {erase("/cluster/node/gpu")}, "/cluster/node/gpu", "missing required key \"gpu\""},

      // ---- GPU ----
      {"GpuUnknownPresetName",
       {set("/cluster/node/gpu", "B200")},
       "/cluster/node/gpu",
       "expected a GPU preset: one of \"A100-SXM4-80GB\""},
      {"GpuUnknownPresetInObject",
       {set("/cluster/node/gpu", J(R"({"preset": "H100"})"))},
       "/cluster/node/gpu/preset",
       "expected a GPU preset: one of"},
      {"GpuNotStringOrObject",
       {set("/cluster/node/gpu", 42)},
       "/cluster/node/gpu",
       "expected a GPU preset name (\"A100-SXM4-80GB\""},
      {"GpuUnknownKeyMemBww",
       {set("/cluster/node/gpu", h100_with({{"mem_bww", "1TB/s"}}))},
       "/cluster/node/gpu/mem_bww",
       "unknown key \"mem_bww\" in gpu (did you mean \"mem_bw\"?)"},
      {"GpuMemBwGarbage",
       {set("/cluster/node/gpu", h100_with({{"mem_bw", "fast"}}))},
       "/cluster/node/gpu/mem_bw",
       "expected a bandwidth such as a number followed by a unit"},
      {"GpuMemBwNegative",
       {set("/cluster/node/gpu", h100_with({{"mem_bw", "-1Gbps"}}))},
       "/cluster/node/gpu/mem_bw",
       "negative bandwidth \"-1Gbps\""},
      {"GpuMemBwZero",
       {set("/cluster/node/gpu", h100_with({{"mem_bw", "0Gbps"}}))},
       "/cluster/node/gpu/mem_bw",
       "expected a bandwidth greater than zero"},
      {"GpuMemBwWithoutUnit",
       {set("/cluster/node/gpu", h100_with({{"mem_bw", 3.35e12}}))},
       "/cluster/node/gpu/mem_bw",
       "expected a bandwidth string with a unit"},
      {"GpuPeakWrongUnit",
       {set("/cluster/node/gpu", h100_with({{"peak_bf16", "989TB/s"}}))},
       "/cluster/node/gpu/peak_bf16",
       "unknown compute rate unit \"TB/s\""},
      {"GpuMemCapacityZero",
       {set("/cluster/node/gpu", h100_with({{"mem_capacity", "0B"}}))},
       "/cluster/node/gpu/mem_capacity",
       "expected a size greater than zero"},
      {"GpuKernelLaunchAsSize",
       {set("/cluster/node/gpu", h100_with({{"kernel_launch", "4MB"}}))},
       "/cluster/node/gpu/kernel_launch",
       "unknown time unit \"MB\""},
      {"GpuEfficiencyAboveOne",
       {set("/cluster/node/gpu", h100_with({{"efficiency", 1.5}}))},
       "/cluster/node/gpu/efficiency",
       "expected a number in (0, 1], found number 1.5"},
      {"GpuEfficiencyZero",
       {set("/cluster/node/gpu", h100_with({{"efficiency", 0}}))},
       "/cluster/node/gpu/efficiency",
       "expected a number in (0, 1], found number 0"},
      {"GpuEfficiencyNaN",
       {set("/cluster/node/gpu", h100_with({{"efficiency", std::nan("")}}))},
       "/cluster/node/gpu/efficiency",
       "expected a number in (0, 1]"},
      {"GpuSpeedZero",
       {set("/cluster/node/gpu", h100_with({{"speed", 0}}))},
       "/cluster/node/gpu/speed",
       "expected a number > 0"},
      {"CustomGpuMissingMemCapacity",
       {set("/cluster/node/gpu", custom_gpu()), erase("/cluster/node/gpu/mem_capacity")},
       "/cluster/node/gpu/mem_capacity",
       "missing required key \"mem_capacity\""},
      {"CustomGpuMissingPeakTf32",
       {set("/cluster/node/gpu", custom_gpu()), erase("/cluster/node/gpu/peak_tf32")},
       "/cluster/node/gpu/peak_tf32",
       "missing required key \"peak_tf32\""},

      // ---- gpu_overrides ----
      {"OverridesNotAnArray",
       {set("/cluster/gpu_overrides", J(R"({"target": "*"})"))},
       "/cluster/gpu_overrides",
       "expected an array of gpu_override objects"},
      {"OverrideTargetMatchesNothing",
       {set("/cluster/gpu_overrides", J(R"([{"target": "node1.*", "speed": 0.5}])"))},
       "/cluster/gpu_overrides/0/target",
       "expected a GPU name or glob matching at least one of node0.gpu0 .. node0.gpu7, found string \"node1.*\""},
      {"OverrideSecondTargetMatchesNothing",
       {set("/cluster/gpu_overrides", J(R"([{"target": "*", "speed": 0.5}, {"target": "node0.gpu8", "speed": 0.5}])"))},
       "/cluster/gpu_overrides/1/target",
       "matching at least one of"},
      {"OverrideSpeedZero",
       {set("/cluster/gpu_overrides", J(R"([{"target": "node0.gpu3", "speed": 0}])"))},
       "/cluster/gpu_overrides/0/speed",
       "expected a number > 0, found number 0"},
      {"OverrideTargetMissing",
       {set("/cluster/gpu_overrides", J(R"([{"speed": 0.5}])"))},
       "/cluster/gpu_overrides/0/target",
       "missing required key \"target\""},
      {"OverrideUnknownKeySped",
       {set("/cluster/gpu_overrides", J(R"([{"target": "*", "sped": 0.5}])"))},
       "/cluster/gpu_overrides/0/sped",
       "(did you mean \"speed\"?)"},
      {"OverrideUnknownGpuPreset",
       {set("/cluster/gpu_overrides", J(R"([{"target": "*", "gpu": "V100"}])"))},
       "/cluster/gpu_overrides/0/gpu",
       "expected a GPU preset: one of"},
      {"OverrideGpuBadKey",
       {set("/cluster/gpu_overrides",
            J(R"([{"target": "*", "gpu": {"preset": "H100-SXM5-80GB", "mem_bw": "fast"}}])"))},
       "/cluster/gpu_overrides/0/gpu/mem_bw",
       "expected a bandwidth"},

      // ---- workload ----
      {"WorkloadNotAnObject", {set("/workload", "gpt2-xl")}, "/workload", "expected an object (workload)"},
      {"WorkloadUnknownKeyBacth",
       {set("/workload/bacth", 8)},
       "/workload/bacth",
       "unknown key \"bacth\" in workload (did you mean \"batch\"?)"},
      {"WorkloadUnknownZooModel",
       {set("/workload/model", "gpt5")},
       "/workload/model",
       "expected a zoo model: one of \"gpt2-small\""},
      {"WorkloadModelNotString", {set("/workload/model", 2)}, "/workload/model", "expected a string"},
      {"WorkloadBothModelAndLayers",
       {set("/workload/layers", layers_workload()["layers"])},
       "/workload",
       "give one of `model`, `hf_config`, `torch_profile` and `layers`, not several"},
      {"WorkloadNeitherModelNorLayers",
       {erase("/workload/model")},
       "/workload",
       "missing the work: expected `model` (a zoo name), `hf_config` (a Hugging Face config.json), `torch_profile` (a "
       "PyTorch profiler trace) or `layers` (a list)"},
      {"WorkloadBatchZero", {set("/workload/batch", 0)}, "/workload/batch", "expected an integer >= 1, found number 0"},
      {"WorkloadMicroBatchesZero",
       {set("/workload/micro_batches", 0)},
       "/workload/micro_batches",
       "expected an integer in [1, 65536]"},
      {"WorkloadSeqBeyondGpt2Positions",
       {set("/workload/seq", 2048)},
       "/workload/seq",
       "expected at most 1024 tokens (gpt2-xl's position table), found number 2048"},
      {"WorkloadSeqBeyondBertPositions",
       {set("/workload/model", "bert-base"), set("/workload/seq", 1024)},
       "/workload/seq",
       "expected at most 512 tokens (bert-base's position table)"},
      {"WorkloadDtypeUnknown",
       {set("/workload/dtype", "int8")},
       "/workload/dtype",
       "expected one of \"fp32\", \"tf32\", \"bf16\", \"fp16\", \"fp8\", found string \"int8\""},
      {"WorkloadGradDtypeUnknown", {set("/workload/grad_dtype", "fp64")}, "/workload/grad_dtype", "expected one of"},
      {"WorkloadFp8OnA100",
       {set("/cluster/node/gpu", "A100-SXM4-80GB"), set("/workload/dtype", "fp8")},
       "/workload/dtype",
       "a dtype that node0.gpu0 (A100-SXM4-80GB) computes in (its peak_fp8 is 0)"},
      {"WorkloadFp8OnOneOverriddenA100",
       {set("/workload/dtype", "fp8"),
        set("/cluster/gpu_overrides", J(R"([{"target": "node0.gpu5", "gpu": "A100-SXM4-80GB"}])"))},
       "/workload/dtype",
       "node0.gpu5 (A100-SXM4-80GB)"},
      {"WorkloadSequenceOnZooModel",
       {set("/workload/sequence", true)},
       "/workload/sequence",
       "`sequence` applies to explicit layers only"},

      // ---- explicit layers ----
      {"LayersEmpty",
       {set("/workload", layers_workload()), set("/workload/layers", json::array())},
       "/workload/layers",
       "expected a non-empty array of layer objects, found array []"},
      {"LayersNotAnArray",
       {set("/workload", layers_workload()), set("/workload/layers", J(R"({"name": "x"})"))},
       "/workload/layers",
       "expected a non-empty array of layer objects"},
      {"LayerNotAnObject",
       {set("/workload", layers_workload()), set("/workload/layers/1", "head")},
       "/workload/layers/1",
       "expected an object (layer)"},
      {"LayerDuplicateName",
       {set("/workload", layers_workload()), set("/workload/layers/1/name", "embed")},
       "/workload/layers/1/name",
       "duplicate layer name \"embed\""},
      {"LayerNameMissing",
       {set("/workload", layers_workload()), erase("/workload/layers/0/name")},
       "/workload/layers/0/name",
       "missing required key \"name\""},
      {"LayerUnknownKeyParms",
       {set("/workload", layers_workload()), set("/workload/layers/0/parms", 10)},
       "/workload/layers/0/parms",
       "unknown key \"parms\" in layer (did you mean \"params\"?)"},
      {"LayerMissingForwardWork",
       {set("/workload", layers_workload()), erase("/workload/layers/0/fwd_flops")},
       "/workload/layers/0/fwd_flops",
       "missing forward work: expected fwd_flops or fwd_time"},
      {"LayerMissingBackwardWork",
       {set("/workload", layers_workload()), erase("/workload/layers/0/bwd_flops")},
       "/workload/layers/0/bwd_input_flops",
       "missing backward dX work"},
      {"LayerMissingBackwardWeightHalf",
       {set("/workload", layers_workload()), erase("/workload/layers/1/bwd_weight_flops")},
       "/workload/layers/1/bwd_weight_flops",
       "missing backward dW work"},
      {"LayerBothBwdFlopsAndBwdInputFlops",
       {set("/workload", layers_workload()), set("/workload/layers/0/bwd_input_flops", 1e9)},
       "/workload/layers/0/bwd_flops",
       "give either bwd_flops or bwd_input_flops/bwd_weight_flops, not both"},
      {"LayerBothBwdTimeAndBwdWeightTime",
       {set("/workload", layers_workload()), set("/workload/layers/1/bwd_time", "20us"),
        set("/workload/layers/1/bwd_weight_time", "10us")},
       "/workload/layers/1/bwd_time",
       "give either bwd_time or bwd_input_time/bwd_weight_time, not both"},
      {"LayerNegativeFlops",
       {set("/workload", layers_workload()), set("/workload/layers/0/fwd_flops", -1)},
       "/workload/layers/0/fwd_flops",
       "expected a number >= 0, found number -1"},
      {"LayerFractionalBytes",
       {set("/workload", layers_workload()), set("/workload/layers/0/fwd_bytes", "0.5B")},
       "/workload/layers/0/fwd_bytes",
       "not a whole number of bytes"},
      {"LayerNegativeTime",
       {set("/workload", layers_workload()), set("/workload/layers/1/fwd_time", "-1us")},
       "/workload/layers/1/fwd_time",
       "negative time"},
      {"LayerParamsNegative",
       {set("/workload", layers_workload()), set("/workload/layers/0/params", -5)},
       "/workload/layers/0/params",
       "expected an integer >= 0"},

      // ---- training, sync, output ----
      {"TrainingNotAnObject", {set("/training", 20)}, "/training", "expected an object (training)"},
      {"TrainingUnknownKeyIteration",
       {set("/training/iteration", 5)},
       "/training/iteration",
       "unknown key \"iteration\" in training (did you mean \"iterations\"?)"},
      {"TrainingIterationsZero",
       {set("/training/iterations", 0)},
       "/training/iterations",
       "expected an integer in [1, 10000000], found number 0"},
      {"TrainingWarmupEqualsIterations",
       {set("/training/warmup", 20)},
       "/training/warmup",
       "expected fewer warm-up iterations than iterations (20), found number 20"},
      {"TrainingWarmupAboveIterations",
       {set("/training/iterations", 3), set("/training/warmup", 5)},
       "/training/warmup",
       "fewer warm-up iterations than iterations (3)"},
      {"TrainingWarmupNegative", {set("/training/warmup", -1)}, "/training/warmup", "expected an integer >= 0"},
      {"TrainingUnknownOptimizer",
       {set("/training/optimizer", "adamw")},
       "/training/optimizer",
       "expected one of \"adam\", \"sgd\", \"none\", found string \"adamw\""},
      {"TrainingTimeLimitZero",
       {set("/training/time_limit", "0s")},
       "/training/time_limit",
       "expected a time greater than zero"},
      {"TrainingTimeLimitWithoutUnit",
       {set("/training/time_limit", 3600)},
       "/training/time_limit",
       "expected a time string with a unit"},
      {"SyncNotAnObject", {set("/training/sync", "none")}, "/training/sync", "expected an object (sync)"},
      {"SyncUnknownKeyStratgy",
       {set("/training/sync", J(R"({"stratgy": "none"})"))},
       "/training/sync/stratgy",
       "unknown key \"stratgy\" in sync (did you mean \"strategy\"?)"},
      {"SyncUnknownStrategy",
       {set("/training/sync/strategy", "gossip")},
       "/training/sync/strategy",
       "expected one of \"none\", \"ddp\", \"ddp_no_overlap\", \"layerwise\", \"blockwise\", \"adaptive\", "
       "\"asc_wfbp\", \"localsgd\", \"plsgd\", \"dreamddp\", \"elastic\", found string \"gossip\""},
      {"OutputNotAnObject", {set("/output", "out")}, "/output", "expected an object (output)"},
      {"OutputUnknownKeyTraceFile",
       {set("/output/trace_file", "t.json")},
       "/output/trace_file",
       "unknown key \"trace_file\" in output"},
      {"OutputTraceNotBoolean",
       {set("/output/trace", "yes")},
       "/output/trace",
       "expected true or false, found string \"yes\""},
      {"OutputDirNotString", {set("/output/dir", 5)}, "/output/dir", "expected a string, found number 5"},
  };
  return rows;
}

class ScenarioErrors : public testing::TestWithParam<BadScenario> {};

TEST_P(ScenarioErrors, ThrowsAtThePointerOfTheBrokenValue) {
  const BadScenario& c = GetParam();
  json doc = apply_edits(base_doc(), c.edits);
  try {
    load_scenario(doc, "base");
    FAIL() << "accepted: " << doc.dump();
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, c.path) << e.what();
    EXPECT_NE(std::string(e.what()).find(c.fragment), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << c.fragment;
  } catch (const std::exception& e) {
    FAIL() << "threw a non-ScenarioError: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(, ScenarioErrors, testing::ValuesIn(bad_scenarios()),
                         [](const testing::TestParamInfo<BadScenario>& info) { return info.param.name; });

TEST(ScenarioErrorsTable, CoversAtLeastThirtyDistinctRows) { EXPECT_GE(bad_scenarios().size(), 30u); }

// ---- the documents the rows start from are valid ----

TEST(ScenarioErrorsBase, QuickstartCopyLoads) {
  Scenario s = load_scenario(base_doc(), "base");
  EXPECT_EQ(s.name, "quickstart");
  EXPECT_EQ(s.cluster.nodes, 1);
  EXPECT_EQ(s.cluster.gpus_per_node, 8);
  ASSERT_EQ(s.cluster.gpus.size(), 8u);
  EXPECT_EQ(s.cluster.gpus[7].name, "node0.gpu7");
  EXPECT_EQ(s.workload.model, "gpt2-xl");
  EXPECT_EQ(s.training.iterations, 20);
  EXPECT_EQ(s.training.warmup, 2);
  EXPECT_EQ(s.output.dir, "out/quickstart");
  EXPECT_TRUE(s.output.trace);
  // Defaults are filled into the resolved document.
  EXPECT_EQ(s.resolved["training"]["time_limit"], "24h");
  EXPECT_EQ(s.resolved["workload"]["grad_dtype"], "bf16");
  EXPECT_EQ(s.resolved["faults"], json::array());
  EXPECT_EQ(s.resolved["cluster"]["node"]["gpu"]["model"], "H100-SXM5-80GB");
}

TEST(ScenarioErrorsBase, QuickstartFileOnDiskLoads) {
  Scenario s = load_scenario_file(std::string(TRAINVP_SOURCE_DIR) + "/scenarios/quickstart.json", {});
  EXPECT_EQ(s.name, "quickstart");
}

TEST(ScenarioErrorsBase, MissingNameTakesTheDefaultName) {
  Scenario s = load_scenario(apply_edits(base_doc(), {erase("/name")}), "base");
  EXPECT_EQ(s.name, "base");
  EXPECT_EQ(s.output.dir, "out/base");
}

TEST(ScenarioErrorsBase, UnsafeDefaultNameIsReportedAtTheRoot) {
  try {
    load_scenario(apply_edits(base_doc(), {erase("/name")}), "my run");
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "");
    EXPECT_NE(std::string(e.what()).find("\"my run\""), std::string::npos) << e.what();
  }
}

TEST(ScenarioErrorsBase, RowBuildingBlocksLoad) {
  EXPECT_NO_THROW(load_scenario(apply_edits(base_doc(), {set("/workload", layers_workload())}), "base"));
  EXPECT_NO_THROW(load_scenario(apply_edits(base_doc(), {set("/cluster/node/gpu", custom_gpu())}), "base"));
  EXPECT_NO_THROW(
      load_scenario(apply_edits(base_doc(), {set("/cluster/node/gpu", h100_with({{"speed", 0.5}}))}), "base"));
  Scenario s = load_scenario(
      apply_edits(base_doc(), {set("/cluster/gpu_overrides", J(R"([{"target": "node0.gpu[0-3]", "speed": 0.5}])"))}),
      "base");
  EXPECT_DOUBLE_EQ(s.cluster.gpus[3].params.speed, 0.5);
  EXPECT_DOUBLE_EQ(s.cluster.gpus[4].params.speed, 1.0);
}

// ---- --set overrides ----

TEST(ScenarioErrorsOverride, SetsAnIntegerByPointer) {
  json doc = base_doc();
  apply_override(doc, "/cluster/nodes=4");
  EXPECT_EQ(doc["cluster"]["nodes"], 4);
  EXPECT_TRUE(doc["cluster"]["nodes"].is_number_integer());
  Scenario s = load_scenario(doc, "base");
  EXPECT_EQ(s.cluster.nodes, 4);
  EXPECT_EQ(s.cluster.gpus.size(), 32u);
}

TEST(ScenarioErrorsOverride, ValueThatIsNotJsonIsAPlainString) {
  json doc = base_doc();
  apply_override(doc, "/workload/model=gpt2-small");
  EXPECT_EQ(doc["workload"]["model"], "gpt2-small");
  EXPECT_EQ(load_scenario(doc, "base").workload.model, "gpt2-small");
  apply_override(doc, "/cluster/node/gpu={\"preset\": \"H100-SXM5-80GB\", \"speed\": 0.5}");
  EXPECT_TRUE(doc["cluster"]["node"]["gpu"].is_object());
  apply_override(doc, "/output/trace=false");
  EXPECT_EQ(doc["output"]["trace"], false);
}

TEST(ScenarioErrorsOverride, Gpt2IsAnAliasOfGpt2Small) {
  json doc = base_doc();
  apply_override(doc, "/workload/model=gpt2");
  Scenario s = load_scenario(doc, "base");
  EXPECT_EQ(s.workload.model, "gpt2-small");
  EXPECT_EQ(s.workload.total_params(), 124439808ULL);
}

TEST(ScenarioErrorsOverride, CreatesMissingParentObjects) {
  json doc = base_doc();
  doc.erase("output");
  apply_override(doc, "/output/dir=x");
  EXPECT_EQ(doc["output"], json({{"dir", "x"}}));
  EXPECT_EQ(load_scenario(doc, "base").output.dir, "x");
}

TEST(ScenarioErrorsOverride, AppendsToAnArrayWithDashOrTheNextIndex) {
  json doc = base_doc();
  doc["faults"] = json::array();
  apply_override(doc, "/faults/-=1");
  apply_override(doc, "/faults/1=2");
  EXPECT_EQ(doc["faults"], json({1, 2}));
}

// The ScenarioError that apply_override throws; a test failure if it throws none or another kind.
ScenarioError override_error(json doc, const std::string& assignment) {
  try {
    apply_override(doc, assignment);
  } catch (const ScenarioError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << assignment << ": threw a non-ScenarioError: " << e.what();
    return ScenarioError("<other>", "");
  }
  ADD_FAILURE() << assignment << ": accepted, giving " << doc.dump();
  return ScenarioError("<none>", "");
}

TEST(ScenarioErrorsOverride, AssignmentWithoutLeadingSlashIsRejected) {
  auto e = override_error(base_doc(), "nodes=4");
  EXPECT_EQ(e.path, "");
  EXPECT_NE(std::string(e.what()).find("expected /json/pointer=VALUE"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("\"nodes=4\""), std::string::npos) << e.what();
}

TEST(ScenarioErrorsOverride, AssignmentWithoutEqualsIsRejected) {
  EXPECT_EQ(override_error(base_doc(), "/cluster/nodes").path, "");
  EXPECT_EQ(override_error(base_doc(), "").path, "");
}

TEST(ScenarioErrorsOverride, IndexPastTheEndOfAnArrayIsRejected) {
  json doc = base_doc();
  doc["faults"] = json::array({0});
  auto e = override_error(doc, "/faults/3=1");
  EXPECT_EQ(e.path, "/faults/3");
  EXPECT_NE(std::string(e.what()).find("index past the end of the array (size 1)"), std::string::npos) << e.what();
}

TEST(ScenarioErrorsOverride, HugeArrayIndexIsAScenarioError) {
  json doc = base_doc();
  doc["faults"] = json::array();
  auto e = override_error(doc, "/faults/99999999999999999999999=1");
  EXPECT_EQ(e.path, "/faults/99999999999999999999999");
}

TEST(ScenarioErrorsOverride, IndexPastTheEndInsideThePointerIsRejected) {
  json doc = base_doc();
  doc["faults"] = json::array();
  auto e = override_error(doc, "/faults/5/kind=x");
  EXPECT_EQ(e.path, "/faults/5");
}

TEST(ScenarioErrorsOverride, NonNumericArrayIndexIsRejected) {
  json doc = base_doc();
  doc["faults"] = json::array();
  auto e = override_error(doc, "/faults/first=1");
  EXPECT_EQ(e.path, "/faults/first");
  EXPECT_NE(std::string(e.what()).find("array index expected"), std::string::npos) << e.what();
}

TEST(ScenarioErrorsOverride, SettingInsideAScalarIsRejected) {
  auto e = override_error(base_doc(), "/cluster/nodes/x=1");
  EXPECT_EQ(e.path, "/cluster/nodes");
  EXPECT_NE(std::string(e.what()).find("cannot --set inside a"), std::string::npos) << e.what();
  // The documented example: a key inside a GPU given as a preset string.
  EXPECT_EQ(override_error(base_doc(), "/cluster/node/gpu/efficiency=0.4").path, "/cluster/node/gpu");
}

TEST(ScenarioErrorsOverride, BadPointerSyntaxIsRejected) {
  // "~2" is not a valid escape in a JSON pointer.
  auto e = override_error(base_doc(), "/cluster/a~2b=1");
  EXPECT_EQ(e.path, "/cluster/a~2b");
  EXPECT_NE(std::string(e.what()).find("bad --set pointer"), std::string::npos) << e.what();
}

// ---- reading files ----

TEST(ScenarioErrorsFile, MalformedJsonNamesTheLineAndColumn) {
  std::string path = test::write_temp("trainvp_bad_line4.json",
                                      "{\n"
                                      "  \"trainvp\": 1,\n"
                                      "  \"cluster\": { \"nodes\": 1 },\n"
                                      "  \"workload\": { \"model\": \"gpt2-xl\", },\n"
                                      "}\n");
  try {
    read_json_file(path);
    FAIL() << "parsed";
  } catch (const ScenarioError& e) {
    std::string m = e.what();
    EXPECT_EQ(e.path, "");
    EXPECT_NE(m.find("malformed JSON in \"" + path + "\" at line 4, column"), std::string::npos) << m;
    EXPECT_NE(m.find("expected valid JSON"), std::string::npos) << m;
  }
}

TEST(ScenarioErrorsFile, ErrorOnTheFirstLineIsLineOne) {
  std::string path = test::write_temp("trainvp_bad_line1.json", "{ \"trainvp\": 1 ]\n");
  try {
    read_json_file(path);
    FAIL() << "parsed";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("at line 1, column 16"), std::string::npos) << e.what();
  }
}

TEST(ScenarioErrorsFile, TruncatedFileNamesItsLastLine) {
  std::string path = test::write_temp("trainvp_truncated.json", "{\n  \"trainvp\": 1,\n  \"cluster\": {\n");
  try {
    read_json_file(path);
    FAIL() << "parsed";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("at line 4"), std::string::npos) << e.what();
  }
}

TEST(ScenarioErrorsFile, MissingFileSaysItCannotBeRead) {
  try {
    read_json_file(testing::TempDir() + "trainvp_no_such_file.json");
    FAIL() << "read";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "");
    EXPECT_NE(std::string(e.what()).find("cannot read scenario file"), std::string::npos) << e.what();
  }
}

TEST(ScenarioErrorsFile, ValidFileParses) {
  std::string path = test::write_temp("trainvp_good.json", base_doc().dump(2));
  EXPECT_EQ(read_json_file(path), base_doc());
}

}  // namespace test_scenario_errors
}  // namespace trainvp
