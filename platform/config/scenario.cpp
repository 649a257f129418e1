#include "platform/config/scenario.hpp"

#include <fstream>
#include <sstream>

#include "models/cxl/rtl_engine.hpp"
#include "platform/config/fault_generator.hpp"
#include "platform/core/glob.hpp"

#include <algorithm>

namespace trainvp {

namespace {

// ---- schemas: one declaration per key, shared by the loader and `trainvp describe` ----

struct TopRaw {
  int version = 0;
  std::string name, description;
  std::uint64_t seed = 1;
};
const ParamSet<TopRaw>& top_schema() {
  static const ParamSet<TopRaw> s = [] {
    ParamSet<TopRaw> p("scenario", "/", "The top level of a scenario file.");
    p.integer("trainvp", &TopRaw::version, nullptr, "Scenario format version; this build reads 1")
        .text("name", &TopRaw::name, nullptr,
              "Run name: letters, digits, '.', '_' and '-'; default: the file's name without .json")
        .text("description", &TopRaw::description, nullptr, "Free text: what the scenario is for (not simulated)")
        .integer64("seed", &TopRaw::seed, 1, "Seed of every random draw; same scenario + seed = same results")
        .nested("cluster", "object", nullptr, "The GPUs and how they are connected (see `cluster`)")
        .nested("workload", "object", nullptr, "What each data-parallel replica trains (see `workload`)")
        .nested("training", "object", json::object(), "Iterations, optimizer and synchronization (see `training`)")
        .nested("faults", "array", json::array(),
                "Injected faults: objects {kind, target, start, duration, ...} (see `fault_*`, docs/faults.md)")
        .nested("fault_generator", "object", nullptr,
                "A seeded random fault campaign appended to `faults` (see `fault_generator`, docs/faults.md)")
        .nested("slo", "object", nullptr, "Service level of the degraded-throughput report (see `slo`)")
        .nested("output", "object", json::object(), "What is written and where (see `output`)")
        .required("trainvp")
        .required("cluster")
        .required("workload");
    return p;
  }();
  return s;
}

struct NodeRaw {
  int gpus = 8;
  int nics = 0;
};
const ParamSet<NodeRaw>& node_schema() {
  static const ParamSet<NodeRaw> s = [] {
    ParamSet<NodeRaw> p("node", "/cluster/node", "One node; every node of the cluster is alike.");
    p.integer("gpus", &NodeRaw::gpus, 8, "GPUs per node", {1, 1024})
        .nested("gpu", "string or object", nullptr, "The node's GPU: a preset name or a `gpu` object")
        .integer("nics", &NodeRaw::nics, 0, "RoCE NICs per node; 0: one per GPU. NIC i serves a contiguous group of GPUs",
                 Range::non_negative())
        .nested("nvlink", "object", json::object(), "NVLink/NVSwitch parameters (see `nvlink`)")
        .nested("pcie", "object", json::object(), "PCIe parameters (see `pcie`)")
        .nested("cxl", "object", json::object(), "The node's CXL aggregation device (see `cxl`)")
        .required("gpu");
    return p;
  }();
  return s;
}

struct ClusterRaw {
  int nodes = 1;
};
const ParamSet<ClusterRaw>& cluster_schema() {
  static const ParamSet<ClusterRaw> s = [] {
    ParamSet<ClusterRaw> p("cluster", "/cluster", "Nodes of GPUs. GPUs are named nodeN.gpuM; rank = N x gpus + M.");
    p.integer("nodes", &ClusterRaw::nodes, 1, "Number of nodes", {1, 65536})
        .nested("node", "object", nullptr, "What each node holds (see `node`)")
        .nested("gpu_overrides", "array", json::array(),
                "Per-GPU changes applied in order: objects {target, gpu, speed} (see `gpu_override`)")
        .nested("fabric", "object", json::object(), "The network between nodes (see `fabric`)")
        .required("node");
    return p;
  }();
  return s;
}

struct OverrideRaw {
  std::string target;
  double speed = -1;
};
const ParamSet<OverrideRaw>& override_schema() {
  static const ParamSet<OverrideRaw> s = [] {
    ParamSet<OverrideRaw> p("gpu_override", "/cluster/gpu_overrides/*",
                            "Changes some GPUs: heterogeneous clusters and persistently slow GPUs.");
    p.text("target", &OverrideRaw::target, nullptr, "GPU name or glob (`*`, `?`, `[0-3]`): \"node1.gpu3\", \"node2.*\"")
        .nested("gpu", "string or object", nullptr, "Replace the matched GPUs' model (preset name or `gpu` object)")
        .number("speed", &OverrideRaw::speed, nullptr, "Speed factor of the matched GPUs (phase times divided by it)",
                Range::positive())
        .required("target");
    return p;
  }();
  return s;
}

struct WorkloadRaw {
  std::string model;
  int batch = 8, seq = 1024, image_size = 224, micro_batches = 1;
  DType dtype = DType::BF16, grad_dtype = DType::BF16;
  bool sequence = false;
  bool functional = false;
  std::uint64_t functional_max_bytes = 64ull << 20;
};
const std::vector<std::pair<std::string, DType>> kDTypes = {
    {"fp32", DType::FP32}, {"tf32", DType::TF32}, {"bf16", DType::BF16}, {"fp16", DType::FP16}, {"fp8", DType::FP8}};
const ParamSet<WorkloadRaw>& workload_schema() {
  static const ParamSet<WorkloadRaw> s = [] {
    ParamSet<WorkloadRaw> p("workload", "/workload",
                            "The model one data-parallel replica trains: a zoo `model` or an explicit `layers` list "
                            "(exactly one of them).");
    p.text("model", &WorkloadRaw::model, nullptr, "Zoo model name (`trainvp describe` lists them)")
        .nested("layers", "array", nullptr, "Explicit layers in forward order (see `layer`), instead of `model`")
        .integer("batch", &WorkloadRaw::batch, 8, "Samples per micro-batch per GPU", Range::at_least(1))
        .integer("seq", &WorkloadRaw::seq, 1024, "Tokens per sample (sequence models)", Range::at_least(1))
        .integer("image_size", &WorkloadRaw::image_size, 224, "Pixels per side (vision models)", Range::at_least(1))
        .integer("micro_batches", &WorkloadRaw::micro_batches, 1, "Gradient-accumulation micro-batches per iteration",
                 Range::at_least(1))
        .choice("dtype", &WorkloadRaw::dtype, "bf16", kDTypes, "Compute dtype (selects the GPU peak)")
        .nested("kind", "choice", "training",
                "training (this schema) or collective (a collective benchmark: see `collective_workload`)")
        .choice("grad_dtype", &WorkloadRaw::grad_dtype, nullptr, kDTypes,
                "Dtype of gradients as communicated; default: the compute dtype")
        .flag("sequence", &WorkloadRaw::sequence, false,
              "Explicit layers only: report tokens/s (samples x seq); zoo models know this themselves")
        .flag("functional", &WorkloadRaw::functional, false,
              "Gradients carry deterministic synthetic values through the CXL devices and every GPU checks the "
              "reduced values it receives against the reference sum (ddp or ddp_no_overlap with cxl_allreduce or "
              "cxl_hierarchical; docs/cxl.md)")
        .size("functional_max_bytes", &WorkloadRaw::functional_max_bytes, "64MiB",
              "Largest gradient size per replica allowed in functional mode (the values are held in memory)",
              Range::positive());
    return p;
  }();
  return s;
}

struct LayerRaw {
  std::string name;
  std::uint64_t params = 0, fwd_bytes = 0, bwd_input_bytes = 0, bwd_weight_bytes = 0, activation_bytes = 0;
  double fwd_flops = -1, bwd_flops = -1, bwd_input_flops = -1, bwd_weight_flops = -1;
  std::int64_t fwd_time = -1, bwd_time = -1, bwd_input_time = -1, bwd_weight_time = -1;
  int kernels = 1;
};
const ParamSet<LayerRaw>& layer_schema() {
  static const ParamSet<LayerRaw> s = [] {
    ParamSet<LayerRaw> p("layer", "/workload/layers/*",
                         "One explicit layer. Give FLOPs (timed by roofline) or measured times per phase; "
                         "bwd_flops/bwd_time split evenly into the dX and dW halves.");
    p.text("name", &LayerRaw::name, nullptr, "Unique layer name")
        .integer64("params", &LayerRaw::params, 0, "Trainable parameters (the gradient's elements)")
        .number("fwd_flops", &LayerRaw::fwd_flops, nullptr, "Forward FLOPs per micro-batch", Range::non_negative())
        .number("bwd_flops", &LayerRaw::bwd_flops, nullptr, "Backward FLOPs (dX + dW) per micro-batch", Range::non_negative())
        .number("bwd_input_flops", &LayerRaw::bwd_input_flops, nullptr, "Backward dX FLOPs", Range::non_negative())
        .number("bwd_weight_flops", &LayerRaw::bwd_weight_flops, nullptr, "Backward dW FLOPs", Range::non_negative())
        .size("fwd_bytes", &LayerRaw::fwd_bytes, "0B", "Forward memory traffic")
        .size("bwd_input_bytes", &LayerRaw::bwd_input_bytes, "0B", "Backward dX memory traffic")
        .size("bwd_weight_bytes", &LayerRaw::bwd_weight_bytes, "0B", "Backward dW memory traffic")
        .size("activation_bytes", &LayerRaw::activation_bytes, "0B", "Activations kept for backward")
        .time("fwd_time", &LayerRaw::fwd_time, nullptr, "Measured forward time (replaces the roofline)")
        .time("bwd_time", &LayerRaw::bwd_time, nullptr, "Measured backward time (dX + dW)")
        .time("bwd_input_time", &LayerRaw::bwd_input_time, nullptr, "Measured backward dX time")
        .time("bwd_weight_time", &LayerRaw::bwd_weight_time, nullptr, "Measured backward dW time")
        .integer("kernels", &LayerRaw::kernels, 1, "Kernel launches per phase (roofline only)", Range::non_negative())
        .required("name");
    return p;
  }();
  return s;
}

struct TrainingRaw {
  int iterations = 10, warmup = 1;
  OptimizerKind optimizer = OptimizerKind::Adam;
  std::int64_t time_limit = 0;
};
const ParamSet<TrainingRaw>& training_schema() {
  static const ParamSet<TrainingRaw> s = [] {
    ParamSet<TrainingRaw> p("training", "/training", "How the job trains.");
    p.integer("iterations", &TrainingRaw::iterations, 10, "Iterations simulated, warm-up included", Range::at_least(1))
        .integer("warmup", &TrainingRaw::warmup, 1, "Leading iterations excluded from means; < iterations",
                 Range::non_negative())
        .choice("optimizer", &TrainingRaw::optimizer, "adam",
                {{"adam", OptimizerKind::Adam}, {"sgd", OptimizerKind::Sgd}, {"none", OptimizerKind::None}},
                "Optimizer step after backward: adam (fp32 w, m, v), sgd (fp32 w, momentum) or none")
        .nested("sync", "object", json{{"strategy", "none"}}, "Gradient synchronization (see `sync`)")
        .time("time_limit", &TrainingRaw::time_limit, "24h",
              "Simulated-time limit; a run that reaches it fails naming what each GPU waits for",
              Range::positive());
    return p;
  }();
  return s;
}

const ParamSet<SyncConfig>& sync_schema() {
  static const ParamSet<SyncConfig> s = [] {
    ParamSet<SyncConfig> p("sync", "/training/sync", "Gradient synchronization strategy (docs/scenario-format.md).");
    p.choice("strategy", &SyncConfig::strategy, "none",
             {{"none", SyncStrategyKind::None}, {"ddp", SyncStrategyKind::Ddp}, {"ddp_no_overlap", SyncStrategyKind::DdpNoOverlap},
              {"layerwise", SyncStrategyKind::Layerwise}, {"blockwise", SyncStrategyKind::Blockwise},
              {"adaptive", SyncStrategyKind::Adaptive}, {"asc_wfbp", SyncStrategyKind::AscWfbp},
              {"localsgd", SyncStrategyKind::LocalSgd}, {"plsgd", SyncStrategyKind::Plsgd},
              {"dreamddp", SyncStrategyKind::DreamDdp}},
             "none: replicas never exchange gradients; ddp: PyTorch DDP buckets all-reduced as they fill, overlapping "
             "backward; ddp_no_overlap: one all-reduce of all gradients after backward; layerwise, blockwise, adaptive: "
             "each layer's (block's) all-reduce starts when its gradient is ready, on size-class streams; asc_wfbp: "
             "every layer all-reduced as soon as ready, concurrently; localsgd: parameters averaged every `period` "
             "iterations; plsgd, dreamddp: one set of layers' parameters averaged per iteration, overlapping backward "
             "(docs/strategies.md)")
        .size("bucket", &SyncConfig::bucket, "25MiB", "DDP bucket cap (bucket_cap_mb)", Range::positive())
        .size("first_bucket", &SyncConfig::first_bucket, "1MiB", "Cap of the first bucket (the last layers)",
              Range::positive())
        .choice("algorithm", &SyncConfig::algorithm, "ring",
                {{"ring", CollectiveAlgo::Ring}, {"tree", CollectiveAlgo::Tree}, {"hierarchical", CollectiveAlgo::Hierarchical},
                 {"cxl_allreduce", CollectiveAlgo::CxlAllReduce}, {"cxl_hierarchical", CollectiveAlgo::CxlHierarchical}},
                "All-reduce algorithm: ring (reduce-scatter + all-gather), tree (double binary tree), hierarchical "
                "(intra-node reduce-scatter, inter-node all-reduce per rail, intra-node all-gather), cxl_allreduce "
                "(reduction in the node's CXL device; one node), cxl_hierarchical (reduction in each node's device, "
                "a ring between the devices through the NICs)")
        .integer("comm_streams", &SyncConfig::comm_streams, 1,
                 "Communication streams: bucket (unit) b runs on stream b mod N (asc_wfbp: one per layer)", {1, 64})
        .integer("period", &SyncConfig::period, 5,
                 "H: localsgd averages every H iterations; plsgd and dreamddp average each layer once per H iterations",
                 Range::at_least(1))
        .integer("block", &SyncConfig::block, 2, "blockwise, adaptive: adjacent parameter layers per unit",
                 Range::at_least(1))
        .integer("pack", &SyncConfig::pack, 10,
                 "layerwise, blockwise, adaptive: small units packed into one all-reduce this many at a time (1: none)",
                 Range::at_least(1))
        .size("large_bytes", &SyncConfig::large_bytes, "10MB", "Units of more gradient bytes are `large`",
              Range::positive())
        .size("small_bytes", &SyncConfig::small_bytes, "1MB", "Units of fewer gradient bytes are `small`; <= large_bytes",
              Range::positive())
        .nested("class_streams", "object", nullptr,
                "Stream of each size class {large, medium, small} (see `class_streams`); default: round-robin")
        .number("util_high", &SyncConfig::util_high, 0.9,
                "adaptive: GPU compute utilization above which it synchronizes layer-wise", Range::unit_open_closed())
        .number("util_low", &SyncConfig::util_low, 0.7,
                "adaptive: utilization below which it synchronizes block-wise; <= util_high", Range::unit_open_closed())
        .flag("fill_in", &SyncConfig::fill_in, false,
              "dreamddp: also average earlier layers whose averages still hide under the backward")
        .nested("profile", "array", nullptr,
                "dreamddp: per-layer backward and communication times (see `profile_layer`); default: measured")
        .nested("compression", "object", json{{"kind", "none"}}, "Per-layer compression (see `compression`)");
    return p;
  }();
  return s;
}

struct BenchRaw {
  bool functional = false;
  std::uint64_t functional_max_bytes = 64ull << 20;
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  std::uint64_t bytes = 0, min_bytes = 0, max_bytes = 0;
  int factor = 2, iterations = 20, warmup = 5, root = 0;
  std::string kind;
};
const ParamSet<BenchRaw>& bench_schema() {
  static const ParamSet<BenchRaw> s = [] {
    ParamSet<BenchRaw> p("collective_workload", "/workload (kind collective)",
                         "A collective benchmark in the manner of nccl-tests: for each size, `warmup` then `iterations` "
                         "collectives one after the other over the communicator; time, algbw and busbw per size.");
    p.text("kind", &BenchRaw::kind, nullptr, "\"collective\" (\"training\", the default, is the `workload` schema)")
        .choice("op", &BenchRaw::op, "all_reduce",
                {{"all_reduce", CollectiveOp::AllReduce}, {"reduce_scatter", CollectiveOp::ReduceScatter},
                 {"all_gather", CollectiveOp::AllGather}, {"broadcast", CollectiveOp::Broadcast},
                 {"sendrecv", CollectiveOp::SendRecv}},
                "Collective; sendrecv: every rank sends to the next and receives from the previous")
        .choice("algorithm", &BenchRaw::algorithm, "ring",
                {{"ring", CollectiveAlgo::Ring}, {"tree", CollectiveAlgo::Tree}, {"hierarchical", CollectiveAlgo::Hierarchical},
                 {"cxl_allreduce", CollectiveAlgo::CxlAllReduce}, {"cxl_hierarchical", CollectiveAlgo::CxlHierarchical}},
                "Algorithm (all but ring apply to all_reduce only)")
        .size("bytes", &BenchRaw::bytes, nullptr, "One size (bytes per rank's buffer, as nccl-tests counts)", Range::positive())
        .size("min_bytes", &BenchRaw::min_bytes, nullptr, "Smallest size of a range", Range::positive())
        .size("max_bytes", &BenchRaw::max_bytes, nullptr, "Largest size of a range", Range::positive())
        .integer("factor", &BenchRaw::factor, 2, "Size multiplier between steps of a range", Range::at_least(2))
        .integer("iterations", &BenchRaw::iterations, 20, "Measured collectives per size", Range::at_least(1))
        .integer("warmup", &BenchRaw::warmup, 5, "Unmeasured collectives before them", Range::non_negative())
        .nested("communicator", "array", nullptr, "Global ranks taking part, in ring order; default: every GPU")
        .integer("root", &BenchRaw::root, 0, "Broadcast root: a position in the communicator (0 = its first rank)",
                 Range::non_negative())
        .flag("functional", &BenchRaw::functional, false,
              "Reduce real synthetic values in the CXL engine and check every output against the reference model "
              "(cxl algorithms)")
        .size("functional_max_bytes", &BenchRaw::functional_max_bytes, "64MiB",
              "Largest collective size allowed in functional mode (its data is held in memory)", Range::positive());
    return p;
  }();
  return s;
}

const ParamSet<SloConfig>& slo_schema() {
  static const ParamSet<SloConfig> s = [] {
    ParamSet<SloConfig> p("slo", "/slo",
                          "The degraded-throughput report (results.json `degradation`, written when there are faults "
                          "or an `slo`): throughput below fraction x baseline counts as degraded.");
    p.number("fraction", &SloConfig::fraction, 0.9, "Fraction of the baseline throughput below which time is degraded",
             Range::unit_open_closed())
        .time("baseline", &SloConfig::baseline_ps, nullptr,
              "Healthy iteration time; default: the median iteration before the first fault starts",
              Range::positive());
    return p;
  }();
  return s;
}

struct OutputRaw {
  std::string dir;
  bool trace = true, waves = false;
  std::int64_t waves_from = 0, waves_to = -1;
};
const ParamSet<OutputRaw>& output_schema() {
  static const ParamSet<OutputRaw> s = [] {
    ParamSet<OutputRaw> p("output", "/output", "Where results go; `trainvp run -o DIR` overrides `dir`.");
    p.text("dir", &OutputRaw::dir, nullptr, "Output directory; default out/<name>")
        .flag("trace", &OutputRaw::trace, true, "Write trace.json (Chrome/Perfetto trace events)")
        .flag("waves", &OutputRaw::waves, false,
              "Write waves.vcd: the CXL engine's signals, cycle by cycle, for jobs that start in the window "
              "(fidelity rtl)")
        .time("waves_from", &OutputRaw::waves_from, "0s", "Start of the waveform window (simulated time)")
        .time("waves_to", &OutputRaw::waves_to, nullptr, "End of the waveform window; default: the end of the run");
    return p;
  }();
  return s;
}

// ---- loading ----

const json& member(const json& obj, const char* key) {
  static const json null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

std::string zoo_list() {
  std::string s;
  for (auto& m : zoo_models()) s += (s.empty() ? "" : ", ") + ("\"" + m.name + "\"");
  return s;
}

Layer load_layer(const json& value, const std::string& path, DType grad_dtype, json& resolved) {
  LayerRaw r;
  resolved = layer_schema().load(r, value, path);
  Layer l;
  l.name = r.name;
  l.params = r.params;
  l.grad_bytes = r.params * dtype_bytes(grad_dtype);
  l.activation_bytes = r.activation_bytes;
  l.fwd_bytes = static_cast<double>(r.fwd_bytes);
  l.bwd_input_bytes = static_cast<double>(r.bwd_input_bytes);
  l.bwd_weight_bytes = static_cast<double>(r.bwd_weight_bytes);
  l.fwd_kernels = l.bwd_input_kernels = l.bwd_weight_kernels = r.kernels;
  bool split_flops = r.bwd_input_flops >= 0 || r.bwd_weight_flops >= 0;
  bool split_time = r.bwd_input_time >= 0 || r.bwd_weight_time >= 0;
  if (r.bwd_flops >= 0 && split_flops)
    throw ScenarioError(ptr_join(path, "bwd_flops"), "give either bwd_flops or bwd_input_flops/bwd_weight_flops, not both");
  if (r.bwd_time >= 0 && split_time)
    throw ScenarioError(ptr_join(path, "bwd_time"), "give either bwd_time or bwd_input_time/bwd_weight_time, not both");
  if (r.fwd_flops < 0 && r.fwd_time < 0)
    throw ScenarioError(ptr_join(path, "fwd_flops"), "missing forward work: expected fwd_flops or fwd_time");
  // Each backward half takes a measured time if one is given, else FLOPs; a half with neither
  // is an error rather than a silent zero.
  double dx_flops = r.bwd_flops >= 0 ? r.bwd_flops / 2 : r.bwd_input_flops;
  double dw_flops = r.bwd_flops >= 0 ? r.bwd_flops / 2 : r.bwd_weight_flops;
  std::int64_t dx_time = r.bwd_time >= 0 ? r.bwd_time / 2 : r.bwd_input_time;
  std::int64_t dw_time = r.bwd_time >= 0 ? r.bwd_time - r.bwd_time / 2 : r.bwd_weight_time;
  if (dx_flops < 0 && dx_time < 0)
    throw ScenarioError(ptr_join(path, "bwd_input_flops"),
                        "missing backward dX work: expected bwd_flops, bwd_time, bwd_input_flops or bwd_input_time");
  if (dw_flops < 0 && dw_time < 0)
    throw ScenarioError(ptr_join(path, "bwd_weight_flops"),
                        "missing backward dW work: expected bwd_flops, bwd_time, bwd_weight_flops or bwd_weight_time");
  l.fwd_flops = std::max(0.0, r.fwd_flops);
  l.bwd_input_flops = std::max(0.0, dx_flops);
  l.bwd_weight_flops = std::max(0.0, dw_flops);
  l.fwd_time_ps = r.fwd_time;
  l.bwd_input_time_ps = dx_time;
  l.bwd_weight_time_ps = dw_time;
  return l;
}

bool cxl_algo_of(CollectiveAlgo a) { return a == CollectiveAlgo::CxlAllReduce || a == CollectiveAlgo::CxlHierarchical; }

json load_bench(CollectiveBenchConfig& b, const ClusterConfig& c, const json& value, const std::string& path) {
  BenchRaw r;
  json resolved = bench_schema().load(r, value, path);
  b.op = r.op;
  b.algorithm = r.algorithm;
  b.iterations = r.iterations;
  b.warmup = r.warmup;
  bool one = value.contains("bytes"), range = value.contains("min_bytes") || value.contains("max_bytes");
  if (one == range)
    throw ScenarioError(path, one ? "give either `bytes` or `min_bytes`/`max_bytes`, not both"
                                  : "missing the sizes: expected `bytes`, or `min_bytes` and `max_bytes`");
  if (one) {
    b.sizes = {r.bytes};
  } else {
    if (!value.contains("min_bytes") || !value.contains("max_bytes"))
      throw ScenarioError(ptr_join(path, value.contains("min_bytes") ? "max_bytes" : "min_bytes"),
                          "a size range needs both min_bytes and max_bytes");
    if (r.min_bytes > r.max_bytes)
      fail_expected(ptr_join(path, "max_bytes"), "a size >= min_bytes", value["max_bytes"]);
    for (std::uint64_t n = r.min_bytes; n <= r.max_bytes; n *= static_cast<std::uint64_t>(r.factor)) b.sizes.push_back(n);
  }
  const int world = static_cast<int>(c.gpus.size());
  std::string cp = ptr_join(path, "communicator");
  const json& comm = member(value, "communicator");
  if (comm.is_null()) {
    for (int i = 0; i < world; ++i) b.communicator.push_back(i);
  } else {
    if (!comm.is_array()) fail_expected(cp, "an array of ranks", comm);
    std::vector<bool> seen(static_cast<std::size_t>(world), false);
    for (std::size_t i = 0; i < comm.size(); ++i) {
      const json& v = comm[i];
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= world)
        fail_expected(ptr_join(cp, i), "a rank in [0, " + std::to_string(world - 1) + "]", v);
      int rank = v.get<int>();
      if (seen[static_cast<std::size_t>(rank)])
        fail_expected(ptr_join(cp, i), "each rank once: rank " + std::to_string(rank) + " is repeated", v);
      seen[static_cast<std::size_t>(rank)] = true;
      b.communicator.push_back(rank);
    }
  }
  if (b.communicator.size() < 2) fail_expected(cp, "at least 2 ranks", comm.is_null() ? json(world) : comm);
  resolved["communicator"] = b.communicator;
  if (r.root >= static_cast<int>(b.communicator.size()))
    fail_expected(ptr_join(path, "root"), "a position in the communicator (< " + std::to_string(b.communicator.size()) + ")",
                  json(r.root));
  b.root = r.root;
  b.functional = r.functional;
  if (b.functional) {
    if (!cxl_algo_of(b.algorithm))
      fail_expected(ptr_join(path, "functional"), "false unless the algorithm is cxl_allreduce or cxl_hierarchical", json(true));
    if (b.sizes.back() > r.functional_max_bytes)
      fail_expected(ptr_join(path, "functional_max_bytes"),
                    "at least the largest size in functional mode (" + std::to_string(b.sizes.back()) + " B)",
                    value.contains("functional_max_bytes") ? value["functional_max_bytes"] : json("64MiB"));
  }
  if (b.algorithm != CollectiveAlgo::Ring && b.op != CollectiveOp::AllReduce)
    fail_expected(ptr_join(path, "algorithm"), std::string("\"ring\" for ") + op_name(b.op), json(algo_name(b.algorithm)));
  const bool cxl_algo = b.algorithm == CollectiveAlgo::CxlAllReduce || b.algorithm == CollectiveAlgo::CxlHierarchical;
  if (b.algorithm == CollectiveAlgo::Hierarchical || cxl_algo) {
    std::vector<int> nodes_of;
    for (auto& g : c.gpus) nodes_of.push_back(g.node);
    DeviceMap dm;
    dm.ports_of_node.assign(static_cast<std::size_t>(c.nodes), std::vector<int>(static_cast<std::size_t>(c.cxl_ports), 0));
    try {
      build_program(b.op, b.algorithm, b.communicator, 1, 1, nodes_of, 0, &dm);
    } catch (const std::invalid_argument& e) {
      throw ScenarioError(cxl_algo && c.cxl_ports == 0 ? "/cluster/node/cxl/present" : cp, e.what());
    }
    if (cxl_algo && c.gpus_per_node > 8)
      fail_expected("/cluster/node/gpus", "at most 8 GPUs: the engine's MAX_CONTRIBUTORS", json(c.gpus_per_node));
  }
  return resolved;
}

json load_workload(Workload& w, WorkloadRaw& r, const json& value, const std::string& path) {
  json resolved = workload_schema().load(r, value, path);
  if (member(value, "grad_dtype").is_null()) {
    r.grad_dtype = r.dtype;
    resolved["grad_dtype"] = dtype_name(r.dtype);
  }
  w.shape = {r.batch, r.seq, r.image_size, r.dtype, r.grad_dtype};
  w.micro_batches = r.micro_batches;
  const json& layers = member(value, "layers");
  bool has_model = value.contains("model"), has_layers = !layers.is_null();
  if (has_model == has_layers)
    throw ScenarioError(path, has_model ? "give either `model` or `layers`, not both"
                                        : "missing the work: expected `model` (a zoo name) or `layers` (a list)");
  if (has_model) {
    const ZooModelInfo* info = find_zoo_model(r.model);
    if (!info) fail_expected(ptr_join(path, "model"), "a zoo model: one of " + zoo_list(), value["model"]);
    if (info->max_seq > 0 && r.seq > info->max_seq)
      fail_expected(ptr_join(path, "seq"),
                    "at most " + std::to_string(info->max_seq) + " tokens (" + r.model + "'s position table)", json(r.seq));
    try {
      w.layers = build_zoo_model(r.model, w.shape);
    } catch (const std::invalid_argument& e) {
      throw ScenarioError(path, e.what());
    }
    w.model = r.model;
    w.sequence_model = info->sequence_model;
    if (value.contains("sequence"))
      throw ScenarioError(ptr_join(path, "sequence"), "`sequence` applies to explicit layers only");
    resolved.erase("sequence");
  } else {
    std::string lp = ptr_join(path, "layers");
    if (!layers.is_array() || layers.empty()) fail_expected(lp, "a non-empty array of layer objects", layers);
    json out = json::array();
    for (std::size_t i = 0; i < layers.size(); ++i) {
      std::string p = ptr_join(lp, i);
      json lr;
      w.layers.push_back(load_layer(layers[i], p, r.grad_dtype, lr));
      for (std::size_t j = 0; j + 1 < w.layers.size(); ++j)
        if (w.layers[j].name == w.layers.back().name)
          throw ScenarioError(ptr_join(p, "name"), "duplicate layer name \"" + w.layers.back().name + "\"");
      out.push_back(lr);
    }
    resolved["layers"] = out;
    w.model = "custom";
    w.sequence_model = r.sequence;
  }
  return resolved;
}

json load_cluster(ClusterConfig& c, const json& value, const std::string& path) {
  ClusterRaw raw;
  json resolved = cluster_schema().load(raw, value, path);
  std::string node_path = ptr_join(path, "node");
  NodeRaw node;
  json node_resolved = node_schema().load(node, value["node"], node_path);
  GpuParams gpu;
  node_resolved["gpu"] = load_gpu(gpu, value["node"]["gpu"], ptr_join(node_path, "gpu"));
  const json& node_value = value["node"];
  node_resolved["nvlink"] = nvlink_schema().load(c.nvlink, member(node_value, "nvlink").is_null() ? json::object() : node_value["nvlink"],
                                                 ptr_join(node_path, "nvlink"));
  node_resolved["pcie"] = pcie_schema().load(c.pcie, member(node_value, "pcie").is_null() ? json::object() : node_value["pcie"],
                                             ptr_join(node_path, "pcie"));
  node_resolved["cxl"] = cxl_schema().load(c.cxl, member(node_value, "cxl").is_null() ? json::object() : node_value["cxl"],
                                           ptr_join(node_path, "cxl"));
  c.nodes = raw.nodes;
  c.gpus_per_node = node.gpus;
  if (static_cast<long long>(c.nodes) * c.gpus_per_node > 1 << 20)
    throw ScenarioError(path, "more than 1,048,576 GPUs: expected a smaller cluster");
  if (node.nics > node.gpus)
    fail_expected(ptr_join(node_path, "nics"), "at most one NIC per GPU (" + std::to_string(node.gpus) + ")", json(node.nics));
  c.nics_per_node = node.nics == 0 ? node.gpus : node.nics;
  node_resolved["nics"] = c.nics_per_node;
  resolved["node"] = node_resolved;

  std::string fp = ptr_join(path, "fabric");
  json fres = fabric_schema().load(c.fabric, member(value, "fabric").is_null() ? json::object() : value["fabric"], fp);
  const FabricConfig& f = c.fabric;
  const long long nics_total = static_cast<long long>(c.nodes) * c.nics_per_node;
  if (f.topology == Topology::Switch) {
    if (nics_total > f.switch_ports)
      fail_expected(ptr_join(fp, "switch_ports"),
                    "at least " + std::to_string(nics_total) + " ports, one per NIC (" + std::to_string(c.nodes) +
                        " nodes x " + std::to_string(c.nics_per_node) + " NICs); use more ports or topology leaf-spine",
                    json(f.switch_ports));
  } else {
    if (f.rail_optimized) {
      if (f.leaves != 0 && f.leaves != c.nics_per_node)
        fail_expected(ptr_join(fp, "leaves"), "0 or " + std::to_string(c.nics_per_node) + " (one leaf per rail)", json(f.leaves));
      if (c.nodes > f.leaf_ports)
        fail_expected(ptr_join(fp, "leaf_ports"),
                      "at least " + std::to_string(c.nodes) + " ports: a rail leaf takes one NIC of every node", json(f.leaf_ports));
      c.leaves = c.nics_per_node;
    } else {
      long long need = (nics_total + f.leaf_ports - 1) / f.leaf_ports;
      if (f.leaves != 0 && f.leaves < need)
        fail_expected(ptr_join(fp, "leaves"),
                      "at least " + std::to_string(need) + " leaves for " + std::to_string(nics_total) + " NICs at " +
                          std::to_string(f.leaf_ports) + " ports each",
                      json(f.leaves));
      c.leaves = f.leaves ? f.leaves : static_cast<int>(need);
    }
    c.spines = f.spines ? f.spines : std::max(1, f.leaf_ports / 2);
    fres["leaves"] = c.leaves;
    fres["spines"] = c.spines;
  }
  resolved["fabric"] = fres;
  if (c.cxl.present) {
    std::string xp = ptr_join(node_path, "cxl");
    const auto& lanes = rtl_lanes_available();
    if (std::find(lanes.begin(), lanes.end(), c.cxl.engine_lanes) == lanes.end()) {
      std::string list;
      for (int l : lanes) list += (list.empty() ? "" : ", ") + std::to_string(l);
      fail_expected(ptr_join(xp, "engine_lanes"),
                    lanes.empty() ? std::string("a build with the RTL (this one was configured with -DTRAINVP_RTL=OFF)")
                                  : "a compiled grad_reduce variant: " + list,
                    json(c.cxl.engine_lanes));
    }
    const std::uint64_t ig = c.cxl.interleave_granularity;
    if (ig < 256 || ig > 16384 || (ig & (ig - 1)) != 0 || ig > c.fabric.chunk)
      fail_expected(ptr_join(xp, "interleave_granularity"),
                    "256 B << k up to 16 KiB, and not above the fabric chunk (" + std::to_string(c.fabric.chunk) + " B)",
                    json(std::to_string(ig) + "B"));
    const int switches = (c.gpus_per_node + c.pcie.gpus_per_switch - 1) / c.pcie.gpus_per_switch;
    c.cxl_ports = c.cxl.ports ? c.cxl.ports : switches;
    node_resolved["cxl"]["ports"] = c.cxl_ports;
    resolved["node"] = node_resolved;
  }
  for (int n = 0; n < c.nodes; ++n)
    for (int g = 0; g < c.gpus_per_node; ++g)
      c.gpus.push_back({"node" + std::to_string(n) + ".gpu" + std::to_string(g), n, g, n * c.gpus_per_node + g, gpu});

  std::string op = ptr_join(path, "gpu_overrides");
  const json& overrides = member(value, "gpu_overrides");
  if (!overrides.is_null() && !overrides.is_array()) fail_expected(op, "an array of gpu_override objects", overrides);
  json out = json::array();
  for (std::size_t i = 0; overrides.is_array() && i < overrides.size(); ++i) {
    std::string p = ptr_join(op, i);
    OverrideRaw o;
    json r = override_schema().load(o, overrides[i], p);
    GpuParams replacement;
    bool replace = overrides[i].contains("gpu");
    if (replace) r["gpu"] = load_gpu(replacement, overrides[i]["gpu"], ptr_join(p, "gpu"));
    std::size_t matched = 0;
    for (auto& inst : c.gpus) {
      if (!glob_match(o.target, inst.name)) continue;
      ++matched;
      if (replace) inst.params = replacement;
      if (o.speed > 0) inst.params.speed = o.speed;
    }
    if (matched == 0)
      fail_expected(ptr_join(p, "target"), "a GPU name or glob matching at least one of node0.gpu0 .. " + c.gpus.back().name,
                    overrides[i]["target"]);
    out.push_back(r);
  }
  resolved["gpu_overrides"] = out;
  return resolved;
}


// ---- faults: one schema per kind; the common keys are declared in each ----

const std::vector<std::pair<std::string, FaultKind>> kFaultKinds = {{"link_degrade", FaultKind::LinkDegrade},
                                                                    {"gpu_slowdown", FaultKind::GpuSlowdown},
                                                                    {"cpu_contention", FaultKind::CpuContention},
                                                                    {"link_down", FaultKind::LinkDown},
                                                                    {"packet_loss", FaultKind::PacketLoss},
                                                                    {"congestion", FaultKind::Congestion}};

// `target_key`: what the kind calls its target (congestion: "source").
ParamSet<FaultConfig> fault_common(const char* name, const char* where, const char* help, const char* target_help,
                                   const char* target_key = "target") {
  ParamSet<FaultConfig> p(name, where, help);
  p.choice("kind", &FaultConfig::kind, nullptr, kFaultKinds, "Fault kind (docs/faults.md)")
      .text(target_key, &FaultConfig::target, nullptr, target_help)
      .time("start", &FaultConfig::start_ps, "0s", "When the fault begins (simulated time)")
      .time("duration", &FaultConfig::duration_ps, nullptr, "How long it lasts; omitted: to the end of the run",
            Range::positive())
      .choice("origin", &FaultConfig::generated, nullptr, {{"scenario", false}, {"generator", true}},
              "Where the event comes from; \"generator\" marks events drawn by `fault_generator` (DIR/faults.json "
              "keeps it, so a replay reports them alike); omitted: \"scenario\"")
      .choice("severity", &FaultConfig::severity, nullptr,
              {{"weak", "weak"}, {"medium", "medium"}, {"severe", "severe"}},
              "The generator's severity class of the event (informational)")
      .required("kind")
      .required(target_key);
  return p;
}
constexpr const char* kLinkTarget =
    "Link name or glob (`trainvp describe topology`): \"link:node0.nic3-switch\", \"link:node0.*\"; a device name "
    "or glob selects every link of the matched devices";
constexpr const char* kGpuTarget = "GPU name or glob: \"node1.gpu3\", \"node3.*\"";

const ParamSet<FaultConfig>& fault_schema(FaultKind k) {
  static const ParamSet<FaultConfig> degrade = [] {
    auto p = fault_common("fault_link_degrade", "/faults/* (kind link_degrade)",
                          "Lower bandwidth and/or added latency on links, both directions.", kLinkTarget);
    p.number("bandwidth_factor", &FaultConfig::bandwidth_factor, 1.0, "Link rate multiplied by this factor",
             Range::unit_open_closed())
        .time("added_latency", &FaultConfig::added_latency_ps, "0s", "Latency added to every chunk on the link");
    return p;
  }();
  static const ParamSet<FaultConfig> slow = [] {
    auto p = fault_common("fault_gpu_slowdown", "/faults/* (kind gpu_slowdown)",
                          "Compute fail-slow (thermal throttling): phase times divided by `factor`.", kGpuTarget);
    p.number("factor", &FaultConfig::factor, nullptr, "Compute rate factor (0.8 = 20% slower)", Range::unit_open_closed())
        .time("ramp", &FaultConfig::ramp_ps, "0s",
              "Time over which the rate goes linearly from 1 to `factor`, in 10 equal steps; 0: at once")
        .required("factor");
    return p;
  }();
  static const ParamSet<FaultConfig> cpu = [] {
    auto p = fault_common("fault_cpu_contention", "/faults/* (kind cpu_contention)",
                          "CPU contention on the GPUs' host: kernel-launch overhead multiplied.", kGpuTarget);
    p.number("launch_factor", &FaultConfig::launch_factor, nullptr, "Kernel-launch overhead multiplied by this",
             Range::at_least(1))
        .required("launch_factor");
    return p;
  }();
  static const ParamSet<FaultConfig> down = fault_common(
      "fault_link_down", "/faults/* (kind link_down)",
      "Links carry nothing for the duration (no new transmissions; chunks on the wire finish); new routes avoid "
      "down network links where the fabric has an alternative.",
      kLinkTarget);
  static const ParamSet<FaultConfig> loss = [] {
    auto p = fault_common("fault_packet_loss", "/faults/* (kind packet_loss)",
                          "Random packet loss on links, recovered by go-back-N (costs time, never data).", kLinkTarget);
    p.number("rate", &FaultConfig::loss_rate, nullptr, "Probability that a transmitted packet is lost",
             Range{0, 1, true, true})
        .time("timeout", &FaultConfig::loss_timeout_ps, "131.072us",
              "Retransmission timeout, paid when the lost packet has nothing of its flow behind it to reveal the gap "
              "(default 4.096us x 2^5, the shortest RDMA local-ACK timeout)",
              Range::positive())
        .required("rate");
    return p;
  }();
  static const ParamSet<FaultConfig> congestion = [] {
    auto p = fault_common("fault_congestion", "/faults/* (kind congestion)",
                          "Background cross-traffic from `source` NICs to `destination` NICs, paced at `rate`, "
                          "competing in the link queues with the training traffic.",
                          "Source NIC name or glob: \"node0.nic0\", \"node[0-1].nic*\"", "source");
    p.text("destination", &FaultConfig::destination, nullptr, "Destination NIC name or glob; every source sends to every other matched NIC")
        .bandwidth("rate", &FaultConfig::congestion_bps, nullptr, "Payload rate of each source-destination pair while on")
        .integer("flows", &FaultConfig::flows, 1, "Parallel flows per pair (each rate / flows, its own ECMP path)", {1, 64})
        .time("on", &FaultConfig::on_ps, nullptr, "On time of the on/off pattern (required with `off`)", Range::positive())
        .time("off", &FaultConfig::off_ps, "0s", "Off time of the on/off pattern; 0: always on")
        .size("chunk", &FaultConfig::congestion_chunk, nullptr, "Message (chunk) size; default: /cluster/fabric/chunk",
              Range::at_least(64))
        .required("destination")
        .required("rate");
    return p;
  }();
  switch (k) {
    case FaultKind::Congestion: return congestion;
    case FaultKind::LinkDegrade: return degrade;
    case FaultKind::GpuSlowdown: return slow;
    case FaultKind::CpuContention: return cpu;
    case FaultKind::PacketLoss: return loss;
    case FaultKind::LinkDown: break;
  }
  return down;
}

std::vector<FaultConfig> load_faults(const json& faults, json& resolved) {
  std::vector<FaultConfig> out;
  resolved = json::array();
  if (faults.is_null()) return out;
  if (!faults.is_array()) fail_expected("/faults", "an array of fault objects", faults);
  for (std::size_t i = 0; i < faults.size(); ++i) {
    std::string p = ptr_join("/faults", i);
    const json& f = faults[i];
    if (!f.is_object()) fail_expected(p, "a fault object {kind, target, ...}", f);
    const json& kind = member(f, "kind");
    if (kind.is_null()) throw ScenarioError(ptr_join(p, "kind"), "missing required key \"kind\" (the fault kind)");
    auto it = std::find_if(kFaultKinds.begin(), kFaultKinds.end(),
                           [&](const auto& kv) { return kind.is_string() && kv.first == kind.get<std::string>(); });
    if (it == kFaultKinds.end())
      fail_expected(ptr_join(p, "kind"),
                    "a fault kind: one of \"link_degrade\", \"gpu_slowdown\", \"cpu_contention\", \"link_down\", "
                    "\"packet_loss\", \"congestion\"",
                    kind);
    FaultConfig c;
    c.index = static_cast<int>(i);
    c.kind = it->second;
    json r = fault_schema(c.kind).load(c, f, p);
    if (c.kind == FaultKind::LinkDegrade && !f.contains("bandwidth_factor") && !f.contains("added_latency"))
      throw ScenarioError(p, "a link_degrade fault needs `bandwidth_factor` and/or `added_latency`");
    if (c.kind == FaultKind::GpuSlowdown && c.duration_ps > 0 && c.ramp_ps > c.duration_ps)
      fail_expected(ptr_join(p, "ramp"), "a ramp no longer than the duration", f["ramp"]);
    if (c.kind == FaultKind::Congestion && c.off_ps > 0 && !f.contains("on"))
      throw ScenarioError(ptr_join(p, "on"), "missing key \"on\": an `off` time needs the on time of the pattern");
    c.params = r;
    out.push_back(c);
    resolved.push_back(r);
  }
  return out;
}

const std::vector<std::pair<std::string, FaultKind>>& fault_kinds() { return kFaultKinds; }

}  // namespace

const ParamSet<FaultConfig>& fault_kind_schema(FaultKind k) { return fault_schema(k); }
std::vector<FaultConfig> load_fault_list(const json& faults, json& resolved) { return load_faults(faults, resolved); }
const std::vector<std::pair<std::string, FaultKind>>& fault_kind_names() { return fault_kinds(); }

const char* fault_kind_name(FaultKind k) {
  for (auto& kv : fault_kinds())
    if (kv.second == k) return kv.first.c_str();
  return "?";
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("", "cannot read scenario file \"" + path + "\"");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into line:column for people.
    const std::string text = ss.str();
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') line++, col = 1;
      else col++;
    }
    throw ScenarioError("", "malformed JSON in \"" + path + "\" at line " + std::to_string(line) + ", column " +
                                std::to_string(col) + ": expected valid JSON (" + e.what() + ")");
  }
}

void apply_override(json& doc, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || assignment.empty() || assignment[0] != '/')
    throw ScenarioError("", "bad --set \"" + assignment + "\": expected /json/pointer=VALUE");
  std::string ptr = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error&) {
    value = text;  // not JSON: a plain string such as 400Gbps or gpt2-xl
  }
  std::vector<std::string> tokens;
  try {
    for (json::json_pointer jp(ptr); !jp.empty(); jp.pop_back()) tokens.insert(tokens.begin(), jp.back());
  } catch (const json::exception& e) {
    throw ScenarioError(ptr, std::string("bad --set pointer: ") + e.what());
  }
  // Walk from the root. Missing containers are created (an array where the next token is an
  // index, else an object), as a user writing --set /output/dir=... expects; array indices must
  // exist already or be the next one ("-" or the size), so arrays are never padded with nulls.
  auto is_index = [](const std::string& t) {
    return t == "-" || (!t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos);
  };
  json* cur = &doc;
  std::string prefix;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    const bool last = i + 1 == tokens.size();
    if (cur->is_null()) *cur = is_index(tok) ? json::array() : json::object();
    std::string here = ptr_join(prefix, tok);
    if (cur->is_object()) {
      cur = &(*cur)[tok];
    } else if (cur->is_array()) {
      if (!is_index(tok) || (tok == "-" && !last))
        throw ScenarioError(here, "bad --set pointer: array index expected (0.." + std::to_string(cur->size()) + " or -)");
      std::size_t idx = tok == "-" ? cur->size() : std::stoul(tok);
      if (idx > cur->size())
        throw ScenarioError(here, "index past the end of the array (size " + std::to_string(cur->size()) + ")");
      if (idx == cur->size()) cur->push_back(nullptr);
      cur = &(*cur)[idx];
    } else {
      throw ScenarioError(prefix, "cannot --set inside a " + std::string(cur->type_name()) + " value");
    }
    prefix = here;
  }
  *cur = value;
}

// Functional training needs data the devices can carry: a cxl algorithm under a DDP strategy
// (the unit strategies' compression and parameter averages are not gradient sums), and a
// bounded gradient size; the fabric chunk splits no element.
static void check_functional_training(const Scenario& s, const json& wl, std::uint64_t cap) {
  const SyncConfig& sc = s.training.sync;
  if (!cxl_algo_of(sc.algorithm) || (sc.strategy != SyncStrategyKind::Ddp && sc.strategy != SyncStrategyKind::DdpNoOverlap))
    fail_expected("/workload/functional",
                  "false unless training.sync is ddp or ddp_no_overlap with algorithm cxl_allreduce or cxl_hierarchical "
                  "(the data paths functional mode carries)",
                  json(true));
  if (s.workload.total_grad_bytes() > cap)
    fail_expected("/workload/functional_max_bytes",
                  "at least the gradient bytes per replica in functional mode (" +
                      std::to_string(s.workload.total_grad_bytes()) + " B)",
                  wl.contains("functional_max_bytes") ? wl["functional_max_bytes"] : json("64MiB"));
  if (s.cluster.fabric.chunk % 4 != 0)
    fail_expected("/cluster/fabric/chunk", "a multiple of 4 bytes in functional mode (chunks carry whole elements)",
                  json(std::to_string(s.cluster.fabric.chunk) + "B"));
}

Scenario load_scenario(const json& doc, const std::string& default_name) {
  Scenario s;
  TopRaw top;
  json resolved = top_schema().load(top, doc, "");
  if (top.version != kScenarioFormatVersion)
    fail_expected("/trainvp", "scenario format version " + std::to_string(kScenarioFormatVersion) +
                                  " (the only version this build of trainvp reads)",
                  doc["trainvp"]);
  if (!doc.contains("name")) {
    top.name = default_name;
    resolved["name"] = default_name;
  }
  if (!safe_name(top.name))
    fail_expected(doc.contains("name") ? "/name" : "", "a run name of letters, digits, '.', '_' and '-'", json(top.name));
  s.name = top.name;
  s.seed = top.seed;

  resolved["cluster"] = load_cluster(s.cluster, doc["cluster"], "/cluster");
  const json& wl = doc["workload"];
  const json& kind = member(wl, "kind");
  if (!kind.is_null() && kind != "training" && kind != "collective")
    fail_expected("/workload/kind", "\"training\" or \"collective\"", kind);
  WorkloadRaw wraw;
  if (kind == "collective") {
    s.collective_bench = true;
    resolved["workload"] = load_bench(s.bench, s.cluster, wl, "/workload");
  } else {
    json wl_plain = wl;
    if (wl_plain.is_object()) wl_plain.erase("kind");
    resolved["workload"] = load_workload(s.workload, wraw, wl_plain, "/workload");
    resolved["workload"]["kind"] = "training";
  }

  const json& training = member(doc, "training");
  TrainingRaw tr;
  json tres = training_schema().load(tr, training.is_null() ? json::object() : training, "/training");
  if (tr.warmup >= tr.iterations)
    fail_expected("/training/warmup", "fewer warm-up iterations than iterations (" + std::to_string(tr.iterations) + ")",
                  json(tr.warmup));
  const json& sync = member(training, "sync");
  SyncConfig sc;
  tres["sync"] = sync_schema().load(sc, sync.is_null() ? json{{"strategy", "none"}} : sync, "/training/sync");
  tres["sync"] = finish_sync(sc, sync.is_null() ? json::object() : sync, tres["sync"], s.workload, "/training/sync");
  const bool cxl_sync = sc.algorithm == CollectiveAlgo::CxlAllReduce || sc.algorithm == CollectiveAlgo::CxlHierarchical;
  if (cxl_sync && sc.strategy != SyncStrategyKind::None) {
    if (!s.cluster.cxl.present)
      fail_expected("/cluster/node/cxl/present", "true: the cxl algorithms need the node's CXL device", json(false));
    if (s.cluster.nodes != 1 && sc.algorithm == CollectiveAlgo::CxlAllReduce)
      fail_expected("/training/sync/algorithm",
                    "an algorithm that spans nodes (cxl_allreduce reduces inside one node: use cxl_hierarchical)",
                    json("cxl_allreduce"));
    if (s.cluster.gpus_per_node > 8)
      fail_expected("/cluster/node/gpus", "at most 8 GPUs: the engine's MAX_CONTRIBUTORS", json(s.cluster.gpus_per_node));
  }
  if (s.cluster.cxl.present && !s.collective_bench && s.workload.shape.grad_dtype != DType::FP32 &&
      s.workload.shape.grad_dtype != DType::BF16)
    fail_expected("/workload/grad_dtype", "fp32 or bf16: the formats the CXL engine reduces",
                  json(dtype_name(s.workload.shape.grad_dtype)));
  s.training = {tr.iterations, tr.warmup, sc, tr.time_limit};
  if (wraw.functional) check_functional_training(s, wl, wraw.functional_max_bytes);
  s.training.functional = wraw.functional;
  s.workload.optimizer = tr.optimizer;
  resolved["training"] = tres;

  json fres;
  s.faults = load_faults(member(doc, "faults"), fres);
  resolved["faults"] = fres;
  if (const json& gen = member(doc, "fault_generator"); !gen.is_null()) {
    s.fault_generator = load_fault_generator(gen, s);
    resolved["fault_generator"] = s.fault_generator.resolved;
  }
  if (const json& slo = member(doc, "slo"); !slo.is_null()) {
    resolved["slo"] = slo_schema().load(s.slo, slo, "/slo");
    s.slo.given = true;
  }

  const json& output = member(doc, "output");
  OutputRaw out;
  json ores = output_schema().load(out, output.is_null() ? json::object() : output, "/output");
  if (out.dir.empty()) out.dir = "out/" + s.name;
  ores["dir"] = out.dir;
  if (out.waves && (!s.cluster.cxl.present || s.cluster.cxl.fidelity != CxlFidelity::Rtl))
    fail_expected("/output/waves", "false unless cluster.node.cxl is present with fidelity \"rtl\"", json(true));
  s.output = {out.dir, out.trace, out.waves, out.waves_from, out.waves_to};
  resolved["output"] = ores;

  // Cross-checks that need several sections.
  for (auto& g : s.cluster.gpus)
    if (!s.collective_bench && g.params.compute_rate(s.workload.shape.dtype) <= 0)
      fail_expected("/workload/dtype",
                    std::string("a dtype that ") + g.name + " (" + g.params.model + ") computes in (its peak_" +
                        dtype_name(s.workload.shape.dtype) + " is 0)",
                    json(dtype_name(s.workload.shape.dtype)));
  s.resolved = resolved;
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file) {
  json doc = read_json_file(path);
  if (!faults_file.empty()) {
    json f = read_json_file(faults_file);
    if (f.is_object() && f.contains("faults")) f = f["faults"];
    if (!f.is_array())
      throw ScenarioError("", "--faults \"" + faults_file +
                                  "\": expected a JSON list of faults (as DIR/faults.json holds it) or an object with "
                                  "a `faults` list, found " + describe_found(f));
    if (doc.is_object()) doc["faults"] = f, doc.erase("fault_generator");
  }
  for (auto& o : overrides) apply_override(doc, o);
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  Scenario s = load_scenario(doc, stem);
  s.faults_file = faults_file;
  return s;
}

std::vector<SchemaInfo> all_schemas() {
  std::vector<SchemaInfo> out = {top_schema().info(),      cluster_schema().info(),  node_schema().info(),   gpu_schema().info(),
          nvlink_schema().info(),   pcie_schema().info(),     fabric_schema().info(), override_schema().info(),
          workload_schema().info(), layer_schema().info(),    bench_schema().info(),  training_schema().info(),
          sync_schema().info(),     slo_schema().info(),     compression_schema().info(), class_streams_schema().info(),
          profile_schema().info(),     cxl_schema().info(),      fault_schema(FaultKind::LinkDegrade).info(),
          fault_schema(FaultKind::GpuSlowdown).info(), fault_schema(FaultKind::CpuContention).info(),
          fault_schema(FaultKind::LinkDown).info(), fault_schema(FaultKind::PacketLoss).info(),
          fault_schema(FaultKind::Congestion).info()};
  for (SchemaInfo& g : fault_generator_schemas()) out.push_back(std::move(g));
  out.push_back(output_schema().info());
  return out;
}

}  // namespace trainvp
