#include "platform/config/parallel.hpp"

#include <cstdio>
#include <map>

#include "models/gpu/roofline.hpp"
#include "models/parallel/plan.hpp"
#include "models/parallel/memory.hpp"
#include "platform/config/scenario.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

const NameTable<PipelineScheduleKind>& pipeline_schedule_names() {
  static const NameTable<PipelineScheduleKind> t = {{"gpipe", PipelineScheduleKind::GPipe},
                                                    {"1f1b", PipelineScheduleKind::OneFOneB},
                                                    {"interleaved", PipelineScheduleKind::Interleaved}};
  return t;
}

const NameTable<RecomputeKind>& recompute_names() {
  static const NameTable<RecomputeKind> t = {
      {"none", RecomputeKind::None}, {"selective", RecomputeKind::Selective}, {"full", RecomputeKind::Full}};
  return t;
}

const ParamSet<ParallelRaw>& parallel_schema() {
  static const ParamSet<ParallelRaw> s = [] {
    ParamSet<ParallelRaw> p("parallel", "/training/parallel",
                            "Hybrid parallelism (Megatron-LM): tp x pp x dp GPUs, the GPU count of the cluster. "
                            "Present: the layout is used; absent: pure data parallelism (docs/parallelism.md).");
    p.integer("tp", &ParallelRaw::tp, 1, "Tensor-parallel size t: each layer's GEMMs split over t GPUs", {1, 65536})
        .integer("pp", &ParallelRaw::pp, 1, "Pipeline stages p: contiguous layers per stage", {1, 65536})
        .integer("dp", &ParallelRaw::dp, nullptr, "Data-parallel size d; default: the GPUs left, GPU count / (tp x pp)",
                 {1, 65536})
        .integer("micro_batches", &ParallelRaw::micro_batches, 1,
                 "Micro-batches m per iteration through each pipeline (workload.batch samples each)", {1, 65536})
        .integer("global_batch", &ParallelRaw::global_batch, nullptr,
                 "Global batch B in samples, instead of micro_batches: m = B / (workload.batch x dp), which must "
                 "divide it (Megatron-LM's --global-batch-size)",
                 {1, 1 << 30})
        .choice("schedule", &ParallelRaw::schedule, "1f1b", pipeline_schedule_names(),
                "Pipeline schedule: gpipe (all forwards, then all backwards), 1f1b, or interleaved 1F1B "
                "(virtual_stages chunks per GPU, micro_batches a multiple of pp)")
        .integer("virtual_stages", &ParallelRaw::virtual_stages, 1,
                 "Model chunks v per GPU: >= 2 with interleaved, 1 otherwise", {1, 1024})
        .flag("sequence_parallel", &ParallelRaw::sequence_parallel, false,
              "Split norms, dropout and their activations by t too (all-reduce becomes reduce-scatter + all-gather)")
        .integer("zero", &ParallelRaw::zero, 0,
                 "ZeRO stage over each DP group: 0 none, 1 optimizer state, 2 + gradients, 3 + parameters", {0, 3})
        .integer("zero3_prefetch", &ParallelRaw::zero3_prefetch, nullptr,
                 "ZeRO-3: phases ahead whose layer parameter all-gathers start at each phase end, also the gathered "
                 "layers held at once; default 2 (1: just in time)",
                 {1, 64})
        .choice("recompute", &ParallelRaw::recompute, "none", recompute_names(),
                "Activation recomputation: none, selective (attention scores) or full (each layer's input kept)")
        .flag(
            "overlap_grad_reduce", &ParallelRaw::overlap_grad_reduce, false,
            "Megatron's --overlap-grad-reduce (its default: off): DP gradient buckets reduce as the last micro-batch's "
            "backward produces them (sync ddp's buckets); off, one reduction after the backward (ddp_no_overlap's)")
        .flag("overlap_param_gather", &ParallelRaw::overlap_param_gather, false,
              "Megatron's --overlap-param-gather (default off): ZeRO-1/2's parameter all-gather runs behind the next "
              "iteration's forward instead of before it")
        .flag(
            "tp_comm_overlap", &ParallelRaw::tp_comm_overlap, false,
            "Megatron's --tp-comm-overlap (default off): a TP collective runs behind the phases that follow it; a stage "
            "waits for its TP collectives only before its pipeline sends and the optimizer step")
        .flag("overlap_p2p", &ParallelRaw::overlap_p2p, true,
              "Megatron's overlap_p2p_comm (default on): a stage computes on while its pipeline sends travel; off, it "
              "waits for each send to arrive")
        .text("order", &ParallelRaw::order, "tp-dp-pp",
              "Rank order, fastest-varying first: a permutation of tp, dp and pp joined by '-' (Megatron: tp-dp-pp)")
        .nested("stage_layers", "array", nullptr,
                "Layers per model chunk, pp x virtual_stages positive counts in model order summing to the "
                "workload's layers; default: balanced by roofline time")
        .nested("rank_map", "array", nullptr,
                "The [tp, pp, dp] coordinate of each GPU in global rank order (a bijection); default: from `order`");
    return p;
  }();
  return s;
}

namespace {

std::array<ParallelDim, 3> parse_order(const std::string& text, const std::string& path) {
  std::array<ParallelDim, 3> out{};
  bool seen[3] = {false, false, false};
  std::size_t start = 0;
  int n = 0;
  for (;;) {
    const std::size_t dash = text.find('-', start);
    const std::string tok = text.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
    const int k = tok == "tp" ? 0 : tok == "dp" ? 1 : tok == "pp" ? 2 : -1;
    if (k < 0 || n >= 3 || seen[k]) break;
    seen[k] = true;
    out[static_cast<std::size_t>(n++)] = k == 0 ? ParallelDim::Tp : k == 1 ? ParallelDim::Dp : ParallelDim::Pp;
    if (dash == std::string::npos) break;
    start = dash + 1;
  }
  if (n != 3 || text.size() != 8)
    fail_expected(path, "a permutation of tp, dp and pp joined by '-', fastest first (e.g. \"tp-dp-pp\")", json(text));
  return out;
}

std::vector<int> read_stage_layers(const json& v, const std::string& path) {
  if (!v.is_array() || v.empty()) fail_expected(path, "a non-empty array of layer counts", v);
  std::vector<int> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(static_cast<int>(params_detail::as_integer(v[i], ptr_join(path, i), {1, 1 << 30})));
  return out;
}

std::vector<ParallelCoord> read_rank_map(const json& v, const std::string& path) {
  if (!v.is_array() || v.empty()) fail_expected(path, "a non-empty array of [tp, pp, dp] coordinates", v);
  std::vector<ParallelCoord> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = ptr_join(path, i);
    if (!v[i].is_array() || v[i].size() != 3) fail_expected(p, "a [tp, pp, dp] triple of integers", v[i]);
    int c[3];
    for (std::size_t k = 0; k < 3; ++k)
      c[k] = static_cast<int>(params_detail::as_integer(v[i][k], ptr_join(p, k), {0, 65535}));
    out.push_back({c[0], c[1], c[2]});
  }
  return out;
}

std::string gib(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::string gib_capacity(std::uint64_t bytes) {
  const double g = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  char buf[32];
  std::snprintf(buf, sizeof buf, g == static_cast<double>(static_cast<std::uint64_t>(g)) ? "%.0f" : "%.1f", g);
  return buf;
}

}  // namespace

json load_parallel(ParallelConfig& p, const json& value, const ClusterConfig& c, int batch) {
  p = ParallelConfig{};
  if (value.is_null()) return nullptr;
  const std::string path = "/training/parallel";
  ParallelRaw r;
  json resolved = parallel_schema().load(r, value, path);
  const int gpus = static_cast<int>(c.gpus.size());
  if (r.dp == 0) {
    const long long tp_pp = 1LL * r.tp * r.pp;
    if (gpus % tp_pp != 0)
      fail_expected(ptr_join(path, "tp"),
                    "tp x pp dividing the cluster's " + std::to_string(gpus) +
                        " GPUs (dp is omitted: GPU count / (tp x pp)); tp x pp = " + std::to_string(r.tp) + " x " +
                        std::to_string(r.pp),
                    json(r.tp));
    r.dp = static_cast<int>(gpus / tp_pp);
    resolved["dp"] = r.dp;
  }
  if (r.global_batch != 0) {
    const std::string gp = ptr_join(path, "global_batch");
    if (!member(value, "micro_batches").is_null())
      throw ScenarioError(
          gp, "give global_batch or micro_batches, not both (micro_batches = global_batch / (workload.batch x dp))");
    const long long per_pass = 1LL * batch * r.dp;  // samples of one micro-batch over every DP replica
    if (r.global_batch % per_pass != 0 || r.global_batch / per_pass > 65536)
      fail_expected(gp,
                    "a multiple of workload.batch x dp = " + std::to_string(batch) + " x " + std::to_string(r.dp) +
                        " = " + std::to_string(per_pass) +
                        " (micro_batches = global_batch / (workload.batch x dp), at most 65536)",
                    json(r.global_batch));
    r.micro_batches = static_cast<int>(r.global_batch / per_pass);
    resolved["micro_batches"] = r.micro_batches;
  }
  p.enabled = true;
  p.tp = r.tp, p.pp = r.pp, p.dp = r.dp;
  p.micro_batches = r.micro_batches;
  p.schedule = r.schedule;
  p.virtual_stages = r.virtual_stages;
  p.sequence_parallel = r.sequence_parallel;
  p.zero = r.zero;
  p.zero3_prefetch = r.zero3_prefetch;
  p.recompute = r.recompute;
  p.overlap_grad_reduce = r.overlap_grad_reduce;
  p.overlap_param_gather = r.overlap_param_gather;
  p.tp_comm_overlap = r.tp_comm_overlap;
  p.overlap_p2p = r.overlap_p2p;
  p.order = parse_order(r.order, ptr_join(path, "order"));
  if (p.schedule == PipelineScheduleKind::Interleaved) {
    if (p.pp < 2) fail_expected(ptr_join(path, "pp"), "at least 2 stages with the interleaved schedule", json(p.pp));
    if (p.virtual_stages < 2)
      fail_expected(ptr_join(path, "virtual_stages"), "at least 2 model chunks per GPU with the interleaved schedule",
                    json(p.virtual_stages));
    if (p.micro_batches % p.pp != 0)
      fail_expected(
          ptr_join(path, "micro_batches"),
          "a multiple of pp (" + std::to_string(p.pp) + ") with the interleaved schedule, as Megatron-LM requires",
          json(p.micro_batches));
  } else if (p.virtual_stages != 1) {
    fail_expected(ptr_join(path, "virtual_stages"), "1 unless schedule is \"interleaved\"", json(p.virtual_stages));
  }
  if (const json& sl = member(value, "stage_layers"); !sl.is_null())
    p.stage_layers = read_stage_layers(sl, ptr_join(path, "stage_layers"));
  if (const json& rm = member(value, "rank_map"); !rm.is_null())
    p.rank_map = read_rank_map(rm, ptr_join(path, "rank_map"));
  try {
    ParallelLayout(p, gpus);
  } catch (const LayoutError& e) {
    throw ScenarioError(path + "/" + e.field, e.what());  // field: "tp", "rank_map/3", ...
  }
  return resolved;
}

namespace {

// One message for every training that does not fit, with or without training.parallel.
[[noreturn]] void fail_memory(const std::string& path, const GpuInstance& g, const std::string& where,
                              const StageMemory& m) {
  throw ScenarioError(path, "GPU " + g.name + where + " needs " + gib(m.total()) + " GiB (weights " + gib(m.weights) +
                                ", gradients " + gib(m.gradients) + ", optimizer " + gib(m.optimizer) +
                                ", activations " + gib(m.activations) +
                                (m.gathered ? ", ZeRO-3 gathered layers " + gib(m.gathered) : std::string()) +
                                " GiB) but has " + gib_capacity(g.params.mem_capacity) + " GiB of HBM");
}

// Without training.parallel every GPU holds a whole replica: its weights, gradients and optimizer
// state, and one micro-batch's activations (workload.micro_batches accumulate one after another),
// the layout tp = pp = 1 of the same memory model.
void check_replica_memory(const Scenario& s, const std::vector<GpuInstance>& gpus) {
  if (s.collective_bench || s.chakra || s.workload.layers.empty()) return;
  ParallelConfig one;
  one.enabled = true;
  one.dp = static_cast<int>(gpus.size());
  one.micro_batches = s.workload.micro_batches;
  std::vector<int> ranks;
  for (const GpuInstance& g : gpus) ranks.push_back(g.rank);
  // The roofline partition is of one chunk: any GPU's parameters give it.
  const std::unique_ptr<ParallelPlan> plan =
      make_parallel_plan(s.workload, one, static_cast<int>(gpus.size()), gpus.front().params, ranks);
  const StageMemory& m = plan->memory.front();
  for (const GpuInstance& g : gpus)
    if (m.total() > g.params.mem_capacity)
      fail_memory("/training", g, " (a whole replica: training.parallel can shard it)", m);
}

}  // namespace

void check_parallel_workload(Scenario& s, const std::vector<GpuInstance>* job_gpus) {
  const std::vector<GpuInstance>& gpus = job_gpus ? *job_gpus : s.cluster.gpus;
  const ParallelConfig& p = s.training.parallel;
  if (!p.enabled) {
    check_replica_memory(s, gpus);
    return;
  }
  const std::string path = "/training/parallel";
  if (s.collective_bench)
    throw ScenarioError(path, "applies to training workloads, not to workload.kind \"collective\"");
  if (s.chakra)
    throw ScenarioError(path,
                        "applies to training workloads, not to Chakra traces (they hold their own parallel layout)");
  if (s.workload.micro_batches != 1)
    fail_expected("/workload/micro_batches",
                  "1 with training.parallel: the pipeline's micro-batches are /training/parallel/micro_batches",
                  json(s.workload.micro_batches));
  // Functional mode checks a whole replica's gradients arriving at every GPU; a TP shard of a
  // pipeline stage is not that replica.
  if (s.training.functional)
    fail_expected("/workload/functional", "false with training.parallel (functional mode checks whole replicas)",
                  json(true));
  // The plan the run will execute: partition, TP shards with recomputation, schedules, memory.
  std::unique_ptr<ParallelPlan> plan;
  try {
    std::vector<int> ranks;
    if (job_gpus)
      for (const GpuInstance& g : gpus) ranks.push_back(g.rank);
    plan = make_parallel_plan(s.workload, p, static_cast<int>(gpus.size()), gpus.front().params, ranks);
  } catch (const LayoutError& e) {
    throw ScenarioError(path + "/" + e.field, e.what());
  }
  s.training.partition = plan->partition;
  const ParallelLayout& layout = plan->layout;
  const std::vector<StageMemory>& per_stage = plan->memory;
  for (const GpuInstance& g : gpus) {
    const int stage = layout.coord(g.rank).pp;
    const StageMemory& m = per_stage[static_cast<std::size_t>(stage)];
    if (m.total() > g.params.mem_capacity) fail_memory(path, g, " (stage " + std::to_string(stage) + ")", m);
  }
  // A hierarchical all-reduce needs as many ranks of its group on every node it touches; a DP
  // group of a layout may not have them (3 nodes of 8 with pp 2: 8 + 4 ranks). Refused here, at the
  // key, instead of failing the run when its program is built (#45).
  if (s.training.sync.algorithm == CollectiveAlgo::Hierarchical && s.training.sync.strategy != SyncStrategyKind::None &&
      p.dp > 1) {
    std::map<int, int> node_of;
    for (const GpuInstance& g : gpus) node_of[g.rank] = g.node;
    for (int t = 0; t < p.tp; ++t)
      for (int stage = 0; stage < p.pp; ++stage) {
        std::map<int, int> per_node;
        for (int r : layout.dp_group(t, stage)) ++per_node[node_of.at(r)];
        for (const auto& [node, n] : per_node)
          if (n != per_node.begin()->second)
            fail_expected("/training/sync/algorithm",
                          "an algorithm other than hierarchical for this layout: the data-parallel group of stage " +
                              std::to_string(stage) + " has " + std::to_string(per_node.begin()->second) +
                              " ranks on node " + std::to_string(per_node.begin()->first) + " and " +
                              std::to_string(n) + " on node " + std::to_string(node) +
                              ", and hierarchical needs as many on every node",
                          json("hierarchical"));
      }
  }
}

json parallel_placement(const Scenario& s) {
  const ParallelConfig& p = s.training.parallel;
  if (!p.enabled) return nullptr;
  const ParallelLayout layout(p, static_cast<int>(s.cluster.gpus.size()));
  json ranks = json::array();
  for (const GpuInstance& g : s.cluster.gpus) {
    const ParallelCoord c = layout.coord(g.rank);
    ranks.push_back({{"rank", g.rank}, {"gpu", g.name}, {"tp", c.tp}, {"pp", c.pp}, {"dp", c.dp}});
  }
  json stages = json::array();
  for (int stage = 0; stage < p.pp; ++stage) {
    json chunks = json::array();
    for (int k = 0; stage + k * p.pp < s.training.partition.chunks(); ++k) {
      const int c = stage + k * p.pp;
      json names = json::array();
      for (int i = s.training.partition.begin(c); i < s.training.partition.end(c); ++i)
        names.push_back(s.workload.layers[static_cast<std::size_t>(i)].name);
      chunks.push_back(
          {{"chunk", c}, {"virtual", k}, {"first_layer", s.training.partition.begin(c)}, {"layers", names}});
    }
    stages.push_back({{"stage", stage}, {"chunks", chunks}});
  }
  static const char* dims[] = {"tp", "dp", "pp"};
  std::string order;
  for (ParallelDim d : p.order) order += (order.empty() ? "" : "-") + std::string(dims[static_cast<int>(d)]);
  return {{"tp", p.tp}, {"pp", p.pp}, {"dp", p.dp}, {"order", order}, {"ranks", ranks}, {"stages", stages}};
}

}  // namespace trainvp
