#include "platform/config/sync.hpp"

#include "platform/config/section.hpp"

namespace trainvp {

const NameTable<SyncStrategyKind>& sync_strategy_names() {
  static const NameTable<SyncStrategyKind> t = {{"none", SyncStrategyKind::None},
                                                {"ddp", SyncStrategyKind::Ddp},
                                                {"ddp_no_overlap", SyncStrategyKind::DdpNoOverlap},
                                                {"layerwise", SyncStrategyKind::Layerwise},
                                                {"blockwise", SyncStrategyKind::Blockwise},
                                                {"adaptive", SyncStrategyKind::Adaptive},
                                                {"asc_wfbp", SyncStrategyKind::AscWfbp},
                                                {"localsgd", SyncStrategyKind::LocalSgd},
                                                {"plsgd", SyncStrategyKind::Plsgd},
                                                {"dreamddp", SyncStrategyKind::DreamDdp},
                                                {"elastic", SyncStrategyKind::Elastic}};
  return t;
}

const char* sync_strategy_name(SyncStrategyKind k) { return name_in(sync_strategy_names(), k); }

bool cxl_algo_of(CollectiveAlgo a) { return a == CollectiveAlgo::CxlAllReduce || a == CollectiveAlgo::CxlHierarchical; }

const ParamSet<SyncConfig>& sync_schema() {
  static const ParamSet<SyncConfig> s = [] {
    ParamSet<SyncConfig> p("sync", "/training/sync", "Gradient synchronization strategy (docs/scenario-format.md).");
    p.choice(
         "strategy", &SyncConfig::strategy, "none", sync_strategy_names(),
         "none: replicas never exchange gradients; ddp: PyTorch DDP buckets all-reduced as they fill, overlapping "
         "backward; ddp_no_overlap: one all-reduce of all gradients after backward; layerwise, blockwise, adaptive: "
         "each layer's (block's) all-reduce starts when its gradient is ready, on size-class streams; asc_wfbp: "
         "every layer all-reduced as soon as ready, concurrently; localsgd: parameters averaged every `period` "
         "iterations; plsgd, dreamddp: one set of layers' parameters averaged per iteration, overlapping backward; "
         "elastic: layerwise whose optimizer step waits for each unit only until its timeout (`elastic`) "
         "(docs/strategies.md)")
        .size("bucket", &SyncConfig::bucket, "25MiB", "DDP bucket cap (bucket_cap_mb)", Range::positive())
        .size("first_bucket", &SyncConfig::first_bucket, "1MiB", "Cap of the first bucket (the last layers)",
              Range::positive())
        .choice("algorithm", &SyncConfig::algorithm, "ring", collective_algo_names(),
                "All-reduce algorithm: ring (reduce-scatter + all-gather), tree (double binary tree), hierarchical "
                "(intra-node reduce-scatter, inter-node all-reduce per rail, intra-node all-gather), cxl_allreduce "
                "(reduction in the node's CXL device; one node), cxl_hierarchical (reduction in each node's device, "
                "a ring between the devices through the NICs), ps (parameter server: part k of every GPU's buffer "
                "pushed to CPU aggregator k, summed there and pulled back; cluster.aggregators), nvls (NVLink SHARP: "
                "the NVSwitch sums and multicasts; one node of Hopper-class GPUs)")
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
        .size("small_bytes", &SyncConfig::small_bytes, "1MB",
              "Units of fewer gradient bytes are `small`; <= large_bytes", Range::positive())
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
        .nested("compression", "object", json{{"kind", "none"}}, "Per-layer compression (see `compression`)")
        .nested("elastic", "object", nullptr, "elastic: the weak-sync timeout (see `elastic`; default 500ms)")
        .nested("retry", "object", nullptr,
                "Transport give-up and layer-granular retry (see `retry`); absent: transfers never fail");
    return p;
  }();
  return s;
}

const ParamSet<CompressionConfig>& compression_schema() {
  static const ParamSet<CompressionConfig> s = [] {
    ParamSet<CompressionConfig> p("compression", "/training/sync/compression",
                                  "Per-layer compression of what a strategy synchronizes (docs/strategies.md).");
    p.choice("kind", &CompressionConfig::kind, "none", compression_kind_names(),
             "none; topk: ratio x n values plus 4-byte indices per layer, all-gathered; powersgd: (m + n) x rank "
             "values per m x n matrix in two all-reduces, plus the projection matmuls on the GPU")
        .number("ratio", &CompressionConfig::ratio, 0.01, "topk: fraction of each layer's values kept",
                Range::unit_open_closed())
        .integer("rank", &CompressionConfig::rank, 4, "powersgd: rank of the low-rank approximation",
                 Range::at_least(1))
        .size("min_bytes", &CompressionConfig::min_bytes, "1MB",
              "Layers whose uncompressed synchronization is smaller stay uncompressed");
    return p;
  }();
  return s;
}

const ParamSet<ClassStreams>& class_streams_schema() {
  static const ParamSet<ClassStreams> s = [] {
    ParamSet<ClassStreams> p("class_streams", "/training/sync/class_streams",
                             "Which communication stream each size class of layerwise, blockwise and adaptive uses "
                             "(each in [0, comm_streams - 1]); classes may share a stream.");
    p.integer("large", &ClassStreams::large, nullptr, "Stream of units of more than large_bytes", Range::non_negative())
        .integer("medium", &ClassStreams::medium, nullptr, "Stream of units between small_bytes and large_bytes",
                 Range::non_negative())
        .integer("small", &ClassStreams::small, nullptr, "Stream of (packed) units of fewer than small_bytes",
                 Range::non_negative())
        .required("large")
        .required("medium")
        .required("small");
    return p;
  }();
  return s;
}

const ParamSet<ProfileEntry>& profile_schema() {
  static const ParamSet<ProfileEntry> s = [] {
    ParamSet<ProfileEntry> p("profile_layer", "/training/sync/profile/*",
                             "One layer of an explicit dreamddp profile. Every layer with parameters must appear once; "
                             "layers without parameters may appear (with their backward time).");
    p.text("layer", &ProfileEntry::layer, nullptr, "Layer name (as `trainvp describe model` lists it)")
        .time("bwd_time", &ProfileEntry::bwd_ps, nullptr,
              "Backward time of the layer (dX + dW of one micro-batch): from the previous layer's gradient to its own")
        .time("comm_time", &ProfileEntry::comm_ps, "0s", "Time of the layer's synchronization alone on the fabric")
        .required("layer")
        .required("bwd_time");
    return p;
  }();
  return s;
}

const ParamSet<ElasticConfig>& elastic_schema() {
  static const ParamSet<ElasticConfig> s = [] {
    ParamSet<ElasticConfig> p("elastic", "/training/sync/elastic",
                              "The elastic strategy's weak-network protocol (docs/strategies.md#elastic).");
    // Read by load_elastic: a time, or "none" for no deadline.
    p.nested("timeout", "time or \"none\"", "500ms",
             "How long the optimizer step waits for a unit after the unit became ready; a unit not done by then is "
             "weak-sync for the iteration (the rank steps with its own gradient, the average is merged at the first "
             "step after it arrives). \"none\": no deadline (layerwise)");
    return p;
  }();
  return s;
}

const ParamSet<RetryConfig>& retry_schema() {
  static const ParamSet<RetryConfig> s = [] {
    ParamSet<RetryConfig> p("retry", "/training/sync/retry",
                            "Transport failure and layer-granular retry of the unit-based strategies "
                            "(docs/faults.md#transport-failure). Defaults: NCCL_IB_RETRY_CNT 7, NCCL_IB_TIMEOUT 20.");
    p.flag("enabled", &RetryConfig::enabled, true, "false: transfers never fail (as without the object)")
        .integer("retry_cnt", &RetryConfig::retry_cnt, 7,
                 "Transport retries (NCCL_IB_RETRY_CNT): a transfer fails after retry_cnt x timeout without progress",
                 {1, 7})
        .time("timeout", &RetryConfig::timeout_ps, "4.294967296s",
              "Transport timeout, 4.096 us x 2^NCCL_IB_TIMEOUT (default 20)", Range::positive())
        .time("backoff", &RetryConfig::backoff_ps, "1ms",
              "Wait between a layer's failed synchronization and its relaunch")
        .integer("attempts", &RetryConfig::attempts, 4,
                 "Tries of one layer's synchronization, the first included; then the rank applies its own gradient",
                 Range::at_least(1));
    return p;
  }();
  return s;
}

namespace {

// /training/sync/elastic/timeout: a positive time, or "none" (-1: the step waits for every unit).
json load_elastic(SyncConfig& sc, const json& value, const std::string& path) {
  ElasticConfig e;
  json resolved = elastic_schema().load(e, value, path);
  const std::string tp = ptr_join(path, "timeout");
  const json t = value.contains("timeout") ? value["timeout"] : json("500ms");
  if (t.is_string() && t.get<std::string>() == "none") {
    sc.elastic_timeout_ps = -1;
  } else {
    if (!t.is_string()) fail_expected(tp, "a time (\"500ms\") or \"none\"", t);
    sc.elastic_timeout_ps =
        static_cast<std::int64_t>(params_detail::quantity(t, tp, Quantity::Time, Range::positive()));
  }
  resolved["timeout"] = t;
  return resolved;
}

json finish_sync(SyncConfig& sc, const json& value, json resolved, const Workload& w, const std::string& path) {
  auto member = [&value](const char* key) -> const json* {
    return value.is_object() && value.contains(key) ? &value[key] : nullptr;
  };
  if (sc.small_bytes > sc.large_bytes)
    fail_expected(ptr_join(path, "small_bytes"), "a size <= large_bytes (" + std::to_string(sc.large_bytes) + " B)",
                  member("small_bytes") ? *member("small_bytes") : json(sc.small_bytes));
  if (sc.util_low > sc.util_high)
    fail_expected(ptr_join(path, "util_low"), "a utilization <= util_high (" + json(sc.util_high).dump() + ")",
                  member("util_low") ? *member("util_low") : json(sc.util_low));

  if (const json* c = member("compression")) {
    resolved["compression"] = compression_schema().load(sc.compression, *c, ptr_join(path, "compression"));
  } else {
    resolved["compression"] = compression_schema().load(sc.compression, json::object(), ptr_join(path, "compression"));
  }

  // Resolved only where it matters, so other strategies' resolved scenarios stay as they were.
  if (member("elastic") || sc.strategy == SyncStrategyKind::Elastic)
    resolved["elastic"] =
        load_elastic(sc, member("elastic") ? *member("elastic") : json::object(), ptr_join(path, "elastic"));

  if (const json* r = member("retry")) {
    const std::string rp = ptr_join(path, "retry");
    resolved["retry"] = retry_schema().load(sc.retry, *r, rp);
    sc.retry.enabled = resolved["retry"]["enabled"].get<bool>();
    if (sc.retry.enabled && (sc.strategy == SyncStrategyKind::None || sc.strategy == SyncStrategyKind::Ddp ||
                             sc.strategy == SyncStrategyKind::DdpNoOverlap))
      fail_expected(rp, "no retry object: retry needs a layer-wise or partial strategy (layerwise, blockwise, ...)",
                    *r);
  }

  if (const json* cs = member("class_streams")) {
    std::string cp = ptr_join(path, "class_streams");
    resolved["class_streams"] = class_streams_schema().load(sc.class_streams, *cs, cp);
    sc.has_class_streams = true;
    for (auto [key, v] : {std::pair<const char*, int>{"large", sc.class_streams.large},
                          {"medium", sc.class_streams.medium},
                          {"small", sc.class_streams.small}})
      if (v >= sc.comm_streams)
        fail_expected(ptr_join(cp, key),
                      "a stream in [0, " + std::to_string(sc.comm_streams - 1) + "] (comm_streams is " +
                          std::to_string(sc.comm_streams) + ")",
                      json(v));
  }

  if (const json* prof = member("profile")) {
    std::string pp = ptr_join(path, "profile");
    if (!prof->is_array() || prof->empty()) fail_expected(pp, "a non-empty array of profile_layer objects", *prof);
    json out = json::array();
    std::vector<bool> seen(w.layers.size(), false);
    for (std::size_t i = 0; i < prof->size(); ++i) {
      std::string ep = ptr_join(pp, i);
      ProfileEntry e;
      out.push_back(profile_schema().load(e, (*prof)[i], ep));
      int found = -1;
      for (std::size_t l = 0; l < w.layers.size(); ++l)
        if (w.layers[l].name == e.layer) found = static_cast<int>(l);
      if (found < 0)
        fail_expected(ptr_join(ep, "layer"),
                      "the name of a layer of the workload (`trainvp describe model` lists them)", (*prof)[i]["layer"]);
      if (seen[static_cast<std::size_t>(found)])
        fail_expected(ptr_join(ep, "layer"), "each layer once: \"" + e.layer + "\" is repeated", (*prof)[i]["layer"]);
      seen[static_cast<std::size_t>(found)] = true;
      if (w.layers[static_cast<std::size_t>(found)].params == 0 && e.comm_ps > 0)
        fail_expected(ptr_join(ep, "comm_time"), "0s: layer \"" + e.layer + "\" has no parameters to synchronize",
                      (*prof)[i]["comm_time"]);
      sc.profile.push_back(e);
    }
    for (std::size_t l = 0; l < w.layers.size(); ++l)
      if (w.layers[l].params > 0 && !seen[l])
        throw ScenarioError(
            pp, "missing layer \"" + w.layers[l].name + "\": expected an entry for every layer with parameters");
    resolved["profile"] = out;
  }
  return resolved;
}

// The cxl algorithms reduce in the nodes' devices: the cluster must have them, and the engine
// takes at most 8 contributors.
void check_cxl_sync(const SyncConfig& sc, const ClusterConfig& c) {
  if (!cxl_algo_of(sc.algorithm) || sc.strategy == SyncStrategyKind::None) return;
  if (!c.cxl.present)
    fail_expected("/cluster/node/cxl/present", "true: the cxl algorithms need the node's CXL device", json(false));
  if (c.nodes != 1 && sc.algorithm == CollectiveAlgo::CxlAllReduce)
    fail_expected("/training/sync/algorithm",
                  "an algorithm that spans nodes (cxl_allreduce reduces inside one node: use cxl_hierarchical)",
                  json("cxl_allreduce"));
  if (c.gpus_per_node > 8)
    fail_expected("/cluster/node/gpus", "at most 8 GPUs: the engine's MAX_CONTRIBUTORS", json(c.gpus_per_node));
}

// nvls reduces in one node's NVSwitch: one node, whose GPUs can.
void check_nvls_sync(const SyncConfig& sc, const ClusterConfig& c) {
  if (sc.algorithm != CollectiveAlgo::Nvls || sc.strategy == SyncStrategyKind::None) return;
  if (c.nodes != 1)
    fail_expected("/training/sync/algorithm",
                  "an algorithm that spans nodes (nvls reduces in one node's NVSwitch; this cluster has " +
                      std::to_string(c.nodes) + " nodes)",
                  json("nvls"));
  if (!nvls_capable(c, 0))
    fail_expected("/cluster/node/gpu", "Hopper-class GPUs (FP8) on NVLink: nvls needs NVLink SHARP",
                  json(c.gpus.front().params.model));
}

// The ps algorithm pushes to CPU aggregator nodes: the cluster must have some.
void check_ps_sync(const SyncConfig& sc, const ClusterConfig& c) {
  if (sc.algorithm != CollectiveAlgo::Ps || sc.strategy == SyncStrategyKind::None) return;
  if (c.aggregators.count == 0)
    fail_expected("/cluster/aggregators/count", "at least 1: the ps algorithm sums gradients in CPU aggregators",
                  json(0));
}

}  // namespace

json load_sync(SyncConfig& sc, const json& value, const Workload& w, const ClusterConfig& c) {
  const std::string path = "/training/sync";
  json resolved = sync_schema().load(sc, value.is_null() ? json{{"strategy", "none"}} : value, path);
  resolved = finish_sync(sc, object_or_empty(value), resolved, w, path);
  check_cxl_sync(sc, c);
  check_ps_sync(sc, c);
  check_nvls_sync(sc, c);
  return resolved;
}

}  // namespace trainvp
