#include "platform/config/workload.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "platform/config/chakra_workload.hpp"
#include "platform/config/hf_workload.hpp"
#include "platform/config/torch_workload.hpp"
#include "platform/config/scenario.hpp"
#include "platform/config/train.hpp"
#include "platform/config/section.hpp"
#include "platform/core/checked.hpp"

namespace trainvp {

const ParamSet<WorkloadRaw>& workload_schema() {
  static const ParamSet<WorkloadRaw> s = [] {
    ParamSet<WorkloadRaw> p(
        "workload", "/workload",
        "The model one data-parallel replica trains: a zoo `model`, a Hugging Face `hf_config`, a "
        "PyTorch profiler trace `torch_profile` or an explicit `layers` list (exactly one of them).");
    p.text("model", &WorkloadRaw::model, nullptr, "Zoo model name (`trainvp describe` lists them)")
        .text("hf_config", &WorkloadRaw::hf_config, nullptr,
              "A Hugging Face config.json (model_type gpt2, bert, llama, mistral or mixtral; docs/workloads.md), "
              "instead of `model`; a relative path is looked for beside the scenario file, then in the current "
              "directory")
        .text("torch_profile", &WorkloadRaw::torch_profile, nullptr,
              "A Chrome trace of one training step exported by torch.profiler (docs/workloads.md), instead of `model`: "
              "its layers with their measured times; found as hf_config is")
        .nested("layers", "array", nullptr, "Explicit layers in forward order (see `layer`), instead of `model`")
        .text("name", &WorkloadRaw::name, nullptr,
              "Explicit layers only: the workload's name in reports (`trainvp convert` keeps the model's); "
              "default \"custom\"")
        .nested("transformer", "object", nullptr,
                "Explicit layers only: the transformer's dimensions (see `transformer`), for pipeline parallelism "
                "and the activation-memory and model-FLOPs closed forms")
        .integer("batch", &WorkloadRaw::batch, 8, "Samples per micro-batch per GPU", Range::at_least(1))
        .integer("seq", &WorkloadRaw::seq, 1024, "Tokens per sample (sequence models)", Range::at_least(1))
        .integer("image_size", &WorkloadRaw::image_size, 224, "Pixels per side (vision models)", Range::at_least(1))
        .integer("micro_batches", &WorkloadRaw::micro_batches, 1, "Gradient-accumulation micro-batches per iteration",
                 {1, 65536})
        .choice("dtype", &WorkloadRaw::dtype, "bf16", dtype_names(), "Compute dtype (selects the GPU peak)")
        .choice("attention", &WorkloadRaw::flash_attention, "flash", {{"flash", true}, {"unfused", false}},
                "Zoo and Hugging Face transformers: flash, one fused kernel that keeps no score matrix "
                "(FlashAttention-2); unfused, Megatron-LM's kernels of 2021-22 (batched GEMMs around a fused softmax "
                "and a dropout, keeping the probabilities: their time, and 5as/h more activation bytes per token; "
                "docs/models.md#kernels)")
        .time("optimizer_time", &WorkloadRaw::optimizer_time, nullptr,
              "Measured optimizer step of the whole replica, replacing the roofline's estimate (divided among ZeRO "
              "shards); a torch_profile import takes its trace's Optimizer.step time unless this is given")
        .nested("train", "object", nullptr,
                "Real training in the loop beside the timed run (see `train`; docs/strategies.md#time-to-accuracy)")
        .nested(
            "kind", "choice", "training",
            "training (this schema), collective (a collective benchmark: see `collective_workload`) or chakra (Chakra execution "
            "traces: see `chakra_workload`; `chakra` alone selects it)")
        .choice("grad_dtype", &WorkloadRaw::grad_dtype, nullptr, dtype_names(),
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

const ParamSet<TransformerDims>& transformer_schema() {
  static const ParamSet<TransformerDims> s = [] {
    ParamSet<TransformerDims> p("transformer", "/workload/transformer",
                                "An explicit layer list's transformer dimensions, as a zoo or Hugging Face transformer "
                                "states them (`trainvp convert` writes them).");
    p.integer("layers", &TransformerDims::layers, nullptr, "Transformer layers (each an attention and an mlp layer)",
              Range::at_least(1))
        .integer("hidden", &TransformerDims::hidden, nullptr, "Hidden size h", Range::at_least(1))
        .integer("heads", &TransformerDims::heads, nullptr, "Attention heads", Range::at_least(1))
        .integer("vocab", &TransformerDims::vocab, 0, "Vocabulary size (0: none)", Range::non_negative())
        .required("layers")
        .required("hidden")
        .required("heads");
    return p;
  }();
  return s;
}

const ParamSet<BenchRaw>& bench_schema() {
  static const ParamSet<BenchRaw> s = [] {
    ParamSet<BenchRaw> p(
        "collective_workload", "/workload (kind collective)",
        "A collective benchmark in the manner of nccl-tests: for each size, `warmup` then `iterations` "
        "collectives one after the other over the communicator; time, algbw and busbw per size.");
    p.text("kind", &BenchRaw::kind, nullptr, "\"collective\" (\"training\", the default, is the `workload` schema)")
        .choice("op", &BenchRaw::op, "all_reduce", collective_op_names(),
                "Collective; sendrecv: every rank sends to the next and receives from the previous; all_to_all: "
                "part j of every rank's buffer goes to rank j; reduce: a pipelined chain ending at the root; gather, "
                "scatter: part j from or to rank j")
        .choice("algorithm", &BenchRaw::algorithm, "ring", collective_algo_names(),
                "Algorithm (all but ring apply to all_reduce only; nvls: NVLink SHARP inside one node of Hopper-class "
                "GPUs, docs/fabric.md#nvlink-sharp-nvls)")
        .size("bytes", &BenchRaw::bytes, nullptr, "One size (bytes per rank's buffer, as nccl-tests counts)",
              Range::positive())
        .size("min_bytes", &BenchRaw::min_bytes, nullptr, "Smallest size of a range", Range::positive())
        .size("max_bytes", &BenchRaw::max_bytes, nullptr, "Largest size of a range", Range::positive())
        .integer("factor", &BenchRaw::factor, 2, "Size multiplier between steps of a range", Range::at_least(2))
        .integer("iterations", &BenchRaw::iterations, 20, "Measured collectives per size", Range::at_least(1))
        .integer("warmup", &BenchRaw::warmup, 5, "Unmeasured collectives before them", Range::non_negative())
        .nested("communicator", "array", nullptr, "Global ranks taking part, in ring order; default: every GPU")
        .integer("root", &BenchRaw::root, 0,
                 "Root of broadcast, reduce, gather and scatter: a position in the communicator (0 = its first rank)",
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

namespace {

std::string zoo_list() {
  std::string s;
  for (auto& m : zoo_models()) s += (s.empty() ? "" : ", ") + ("\"" + m.name + "\"");
  return s;
}

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
    for (std::uint64_t n = r.min_bytes; n <= r.max_bytes; n *= static_cast<std::uint64_t>(r.factor))
      b.sizes.push_back(n);
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
    fail_expected(ptr_join(path, "root"),
                  "a position in the communicator (< " + std::to_string(b.communicator.size()) + ")", json(r.root));
  b.root = r.root;
  b.functional = r.functional;
  if (b.functional) {
    if (!cxl_algo_of(b.algorithm))
      fail_expected(ptr_join(path, "functional"), "false unless the algorithm is cxl_allreduce or cxl_hierarchical",
                    json(true));
    if (b.sizes.back() > r.functional_max_bytes)
      fail_expected(ptr_join(path, "functional_max_bytes"),
                    "at least the largest size in functional mode (" + std::to_string(b.sizes.back()) + " B)",
                    value.contains("functional_max_bytes") ? value["functional_max_bytes"] : json("64MiB"));
  }
  if (b.algorithm != CollectiveAlgo::Ring && b.op != CollectiveOp::AllReduce)
    fail_expected(ptr_join(path, "algorithm"), std::string("\"ring\" for ") + op_name(b.op),
                  json(algo_name(b.algorithm)));
  if (b.algorithm == CollectiveAlgo::Ps && c.aggregators.count == 0)
    fail_expected("/cluster/aggregators/count", "at least 1: the ps algorithm sums in CPU aggregators", json(0));
  const bool cxl_algo = cxl_algo_of(b.algorithm);
  if (b.algorithm == CollectiveAlgo::Nvls) {
    std::vector<int> nodes_of;
    DeviceMap dm;
    for (auto& g : c.gpus) nodes_of.push_back(g.node);
    for (int n = 0; n < c.nodes; ++n) dm.nvls_of_node.push_back(nvls_capable(c, n) ? 0 : -1);
    try {
      build_program(b.op, b.algorithm, b.communicator, 1, 1, nodes_of, 0, &dm);
    } catch (const std::invalid_argument& e) {
      const bool spans = std::string(e.what()).find("spans") != std::string::npos;
      throw ScenarioError(spans ? cp : "/cluster/node/gpu", e.what());
    }
  }
  if (b.algorithm == CollectiveAlgo::Hierarchical || cxl_algo) {
    std::vector<int> nodes_of;
    for (auto& g : c.gpus) nodes_of.push_back(g.node);
    DeviceMap dm;
    dm.ports_of_node.assign(static_cast<std::size_t>(c.nodes),
                            std::vector<int>(static_cast<std::size_t>(c.cxl_ports), 0));
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

// Keys that belong to explicit layers only.
void refuse_layer_keys(const json& value, const std::string& path) {
  for (const char* k : {"sequence", "name", "transformer"})
    if (value.contains(k))
      throw ScenarioError(ptr_join(path, k), std::string("`") + k + "` applies to explicit layers only");
}

json load_workload(Workload& w, WorkloadRaw& r, const json& value, const std::string& path,
                   const std::string& scenario_dir) {
  json resolved = workload_schema().load(r, value, path);
  if (member(value, "grad_dtype").is_null()) {
    r.grad_dtype = r.dtype;
    resolved["grad_dtype"] = dtype_name(r.dtype);
  }
  w.shape = {r.batch, r.seq, r.image_size, r.dtype, r.grad_dtype, r.flash_attention};
  w.micro_batches = r.micro_batches;
  const json& layers = member(value, "layers");
  const bool has_model = value.contains("model"), has_hf = value.contains("hf_config"),
             has_torch = value.contains("torch_profile"), has_layers = !layers.is_null();
  const int given = has_model + has_hf + has_torch + has_layers;
  if (given != 1)
    throw ScenarioError(path, given > 1
                                  ? "give one of `model`, `hf_config`, `torch_profile` and `layers`, not several"
                                  : "missing the work: expected `model` (a zoo name), `hf_config` (a Hugging Face "
                                    "config.json), `torch_profile` (a PyTorch profiler trace) or `layers` (a list)");
  if (has_torch) {
    refuse_layer_keys(value, path);
    const std::string pointer = ptr_join(path, "torch_profile");
    const std::string file = find_torch_profile(r.torch_profile, scenario_dir, pointer);
    build_torch_workload(w, read_torch_profile(file, pointer), torch_profile_name(file), r.grad_dtype);
    resolved.erase("sequence");
  } else if (has_hf) {
    refuse_layer_keys(value, path);
    const std::string pointer = ptr_join(path, "hf_config");
    const std::string file = find_hf_config(r.hf_config, scenario_dir, pointer);
    build_hf_workload(w, read_hf_config(file, pointer), hf_model_name(file), path);
    resolved.erase("sequence");
  } else if (has_model) {
    const ZooModelInfo* info = find_zoo_model(r.model);
    if (!info)
      fail_expected(ptr_join(path, "model"), "a zoo model: one of " + zoo_list() + " (\"gpt2\" names gpt2-small)",
                    value["model"]);
    r.model = info->name;  // aliases ("gpt2") resolve to the zoo's own name
    resolved["model"] = info->name;
    if (info->max_seq > 0 && r.seq > info->max_seq)
      fail_expected(ptr_join(path, "seq"),
                    "at most " + std::to_string(info->max_seq) + " tokens (" + r.model + "'s position table)",
                    json(r.seq));
    // Activation and traffic sizes are batch x seq (or image_size^2) x width x dtype bytes: require
    // the element count times 2^20 (widths and bytes the zoo uses, with room) to fit in 2^63.
    {
      auto per_sample = info->sequence_model ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(r.seq))
                                             : checked_mul<std::uint64_t>(r.image_size, r.image_size);
      auto elems =
          per_sample ? checked_mul<std::uint64_t>(static_cast<std::uint64_t>(r.batch), *per_sample) : std::nullopt;
      auto bytes = elems ? checked_mul<std::uint64_t>(*elems, std::uint64_t{1} << 20) : std::nullopt;
      if (!bytes || *bytes > static_cast<std::uint64_t>(INT64_MAX))
        fail_expected(ptr_join(path, info->sequence_model ? "batch" : "image_size"),
                      std::string("a batch and sample size whose activation sizes (batch x ") +
                          (info->sequence_model ? "seq" : "image_size^2") + " x width x dtype bytes) fit in 2^63 bytes",
                      json(info->sequence_model ? r.batch : r.image_size));
    }
    try {
      w.layers = build_zoo_model(r.model, w.shape);
    } catch (const std::invalid_argument& e) {
      throw ScenarioError(path, e.what());
    }
    w.model = r.model;
    w.convention = info->convention;
    w.dims = zoo_transformer_dims(r.model);
    w.sequence_model = info->sequence_model;
    refuse_layer_keys(value, path);
    resolved.erase("sequence");
  } else {
    std::string lp = ptr_join(path, "layers");
    if (!layers.is_array() || layers.empty()) fail_expected(lp, "a non-empty array of layer objects", layers);
    json out = json::array();
    std::uint64_t total_params = 0, total_grad = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      std::string p = ptr_join(lp, i);
      json lr;
      w.layers.push_back(load_layer(layers[i], p, r.grad_dtype, lr));
      // The workload's totals (parameters, gradient bytes: every bucket is a sum of these) fit too.
      const auto params_sum = checked_add<std::uint64_t>(total_params, w.layers.back().params);
      const auto grad_sum = checked_add<std::uint64_t>(total_grad, w.layers.back().grad_bytes);
      if (!params_sum || !grad_sum || *grad_sum > static_cast<std::uint64_t>(INT64_MAX))
        fail_expected(ptr_join(p, "params"),
                      "parameters whose sum over the layers (gradient bytes included) fits in 2^63",
                      json(w.layers.back().params));
      total_params = *params_sum;
      total_grad = *grad_sum;
      for (std::size_t j = 0; j + 1 < w.layers.size(); ++j)
        if (w.layers[j].name == w.layers.back().name)
          throw ScenarioError(ptr_join(p, "name"), "duplicate layer name \"" + w.layers.back().name + "\"");
      out.push_back(lr);
    }
    resolved["layers"] = out;
    w.model = r.name.empty() ? "custom" : r.name;
    w.sequence_model = r.sequence;
    if (const json& dims = member(value, "transformer"); !dims.is_null())
      resolved["transformer"] = transformer_schema().load(w.dims, dims, ptr_join(path, "transformer"));
  }
  if (r.optimizer_time >= 0) w.optimizer_time_ps = r.optimizer_time;  // given beats a trace's
  return resolved;
}

// Functional training needs data the devices can carry: a cxl algorithm under a DDP strategy
// (the unit strategies' compression and parameter averages are not gradient sums), and a
// bounded gradient size; the fabric chunk splits no element.
void check_functional_training(const Scenario& s, const json& wl, std::uint64_t cap) {
  const SyncConfig& sc = s.training.sync;
  if (!cxl_algo_of(sc.algorithm) ||
      (sc.strategy != SyncStrategyKind::Ddp && sc.strategy != SyncStrategyKind::DdpNoOverlap))
    fail_expected(
        "/workload/functional",
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

}  // namespace

json load_workload_section(Scenario& s, WorkloadRaw& raw, const json& value, const std::string& scenario_dir) {
  const json& kind = member(value, "kind");
  if (!kind.is_null() && kind != "training" && kind != "collective" && kind != "chakra")
    fail_expected("/workload/kind", "\"training\", \"collective\" or \"chakra\"", kind);
  if (kind == "chakra" || (value.is_object() && value.contains("chakra") && kind.is_null())) {
    for (auto it = value.begin(); it != value.end(); ++it)
      if (it.key() != "kind" && it.key() != "chakra")
        throw ScenarioError(ptr_join("/workload", it.key()),
                            "does not apply to Chakra traces (the traces hold the work)");
    if (!value.contains("chakra"))
      throw ScenarioError("/workload/chakra", "missing: kind \"chakra\" runs the traces it names");
    s.chakra = true;
    std::vector<int> nodes_of;
    for (auto& g : s.cluster.gpus) nodes_of.push_back(g.node);
    json resolved = json::object();
    resolved["kind"] = "chakra";
    resolved["chakra"] = load_chakra_workload(s.chakra_workload, value["chakra"], "/workload/chakra",
                                              static_cast<int>(s.cluster.gpus.size()), nodes_of, scenario_dir);
    for (auto& g : s.cluster.gpus)
      if (g.params.compute_rate(s.chakra_workload.dtype) <= 0)
        fail_expected("/workload/chakra/dtype",
                      std::string("a dtype that ") + g.name + " (" + g.params.model + ") computes in",
                      json(dtype_name(s.chakra_workload.dtype)));
    return resolved;
  }
  if (kind == "collective") {
    s.collective_bench = true;
    return load_bench(s.bench, s.cluster, value, "/workload");
  }
  json plain = value;
  if (plain.is_object()) plain.erase("kind"), plain.erase("train");
  json resolved = load_workload(s.workload, raw, plain, "/workload", scenario_dir);
  resolved["kind"] = "training";
  if (const json& t = member(value, "train"); !t.is_null()) resolved["train"] = load_train(s.train, t);
  return resolved;
}

void check_training_workload(const Scenario& s, const json& value, const WorkloadRaw& raw) {
  if (s.cluster.cxl.present && s.trains() && s.workload.shape.grad_dtype != DType::FP32 &&
      s.workload.shape.grad_dtype != DType::BF16)
    fail_expected("/workload/grad_dtype", "fp32 or bf16: the formats the CXL engine reduces",
                  json(dtype_name(s.workload.shape.grad_dtype)));
  if (raw.functional) check_functional_training(s, value, raw.functional_max_bytes);
}

void check_workload_dtype_on_gpus(const Scenario& s) {
  for (auto& g : s.cluster.gpus)
    if (s.trains() && g.params.compute_rate(s.workload.shape.dtype) <= 0)
      fail_expected("/workload/dtype",
                    std::string("a dtype that ") + g.name + " (" + g.params.model + ") computes in (its peak_" +
                        dtype_name(s.workload.shape.dtype) + " is 0)",
                    json(dtype_name(s.workload.shape.dtype)));
}

}  // namespace trainvp
