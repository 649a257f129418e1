#include "platform/config/cluster.hpp"

#include <algorithm>
#include <utility>

#include "models/cxl/rtl_engine.hpp"
#include "platform/config/section.hpp"
#include "platform/core/glob.hpp"

namespace trainvp {

namespace {
constexpr long long kMaxGpus = 65536;             // GPUs in all (docs/reliability.md)
constexpr long long kMaxElaboration = 1LL << 22;  // devices + links elaborated
}  // namespace

const ParamSet<NodeRaw>& node_schema() {
  static const ParamSet<NodeRaw> s = [] {
    ParamSet<NodeRaw> p("node", "/cluster/node", "One node; every node of the cluster is alike.");
    p.integer("gpus", &NodeRaw::gpus, 8, "GPUs per node", {1, 1024})
        .nested("gpu", "string or object", nullptr, "The node's GPU: a preset name or a `gpu` object")
        .integer("nics", &NodeRaw::nics, 0,
                 "RoCE NICs per node; 0: one per GPU. NIC i serves a contiguous group of GPUs", {0, 1024})
        .nested("nvlink", "object", json::object(), "NVLink/NVSwitch parameters (see `nvlink`)")
        .nested("pcie", "object", json::object(), "PCIe parameters (see `pcie`)")
        .nested("cxl", "object", json::object(), "The node's CXL aggregation device (see `cxl`)")
        .required("gpu");
    return p;
  }();
  return s;
}

const ParamSet<ClusterRaw>& cluster_schema() {
  static const ParamSet<ClusterRaw> s = [] {
    ParamSet<ClusterRaw> p("cluster", "/cluster", "Nodes of GPUs. GPUs are named nodeN.gpuM; rank = N x gpus + M.");
    p.integer("nodes", &ClusterRaw::nodes, 1, "Number of nodes", {1, 8192})
        .nested("node", "object", nullptr, "What each node holds (see `node`)")
        .nested("gpu_overrides", "array", json::array(),
                "Per-GPU changes applied in order: objects {target, gpu, speed} (see `gpu_override`)")
        .nested("fabric", "object", json::object(), "The network between nodes (see `fabric`)")
        .nested("aggregators", "object", json::object(),
                "CPU aggregator nodes on the same network, for the `ps` algorithm (see `aggregators`)")
        .required("node");
    return p;
  }();
  return s;
}

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

json load_cluster(ClusterConfig& c, const json& value, const std::string& path) {
  ClusterRaw raw;
  json resolved = cluster_schema().load(raw, value, path);
  std::string node_path = ptr_join(path, "node");
  NodeRaw node;
  json node_resolved = node_schema().load(node, value["node"], node_path);
  GpuParams gpu;
  node_resolved["gpu"] = load_gpu(gpu, value["node"]["gpu"], ptr_join(node_path, "gpu"));
  const json& node_value = value["node"];
  node_resolved["nvlink"] =
      nvlink_schema().load(c.nvlink, object_or_empty(member(node_value, "nvlink")), ptr_join(node_path, "nvlink"));
  node_resolved["pcie"] =
      pcie_schema().load(c.pcie, object_or_empty(member(node_value, "pcie")), ptr_join(node_path, "pcie"));
  node_resolved["cxl"] =
      cxl_schema().load(c.cxl, object_or_empty(member(node_value, "cxl")), ptr_join(node_path, "cxl"));
  c.nodes = raw.nodes;
  c.gpus_per_node = node.gpus;
  if (static_cast<long long>(c.nodes) * c.gpus_per_node > kMaxGpus)
    fail_expected(ptr_join(path, "nodes"),
                  "at most " + std::to_string(kMaxGpus) + " GPUs in all (" + std::to_string(c.nodes) + " nodes x " +
                      std::to_string(c.gpus_per_node) + " GPUs per node; docs/reliability.md)",
                  json(c.nodes));
  if (node.nics > node.gpus)
    fail_expected(ptr_join(node_path, "nics"), "at most one NIC per GPU (" + std::to_string(node.gpus) + ")",
                  json(node.nics));
  c.nics_per_node = node.nics == 0 ? node.gpus : node.nics;
  node_resolved["nics"] = c.nics_per_node;
  resolved["node"] = node_resolved;

  // Aggregators appear in the resolved scenario only when given (results of scenarios without them
  // keep their shape: the goldens).
  resolved.erase("aggregators");
  const json& aggs = member(value, "aggregators");
  if (!aggs.is_null()) {
    const std::string ap = ptr_join(path, "aggregators");
    json ares = aggregators_schema().load(c.aggregators, object_or_empty(aggs), ap);
    ares["cpu"] =
        load_cpu(c.aggregators.cpu, aggs.is_object() && aggs.contains("cpu") ? aggs["cpu"] : json("xeon-8380"),
                 ptr_join(ap, "cpu"));
    resolved["aggregators"] = ares;
  }
  const int agg_nics = c.aggregators.count * c.aggregators.nics;

  std::string fp = ptr_join(path, "fabric");
  json fres = fabric_schema().load(c.fabric, object_or_empty(member(value, "fabric")), fp);
  const FabricConfig& f = c.fabric;
  const long long nics_total = static_cast<long long>(c.nodes) * c.nics_per_node + agg_nics;
  if (f.topology == Topology::Switch) {
    if (nics_total > f.switch_ports)
      fail_expected(ptr_join(fp, "switch_ports"),
                    "at least " + std::to_string(nics_total) + " ports, one per NIC (" + std::to_string(c.nodes) +
                        " nodes x " + std::to_string(c.nics_per_node) + " NICs" +
                        (agg_nics ? " + " + std::to_string(agg_nics) + " aggregator NICs" : std::string()) +
                        "); use more ports or topology leaf-spine",
                    json(f.switch_ports));
  } else if (f.topology == Topology::LeafSpine) {
    for (auto [k, v] :
         {std::pair{"pods", f.pods}, {"pod_leaves", f.pod_leaves}, {"pod_spines", f.pod_spines}, {"cores", f.cores}})
      if (v != 0) fail_expected(ptr_join(fp, k), "0 or absent with topology leaf-spine (a three-tier key)", json(v));
    if (f.rail_optimized && agg_nics > 0)
      fail_expected(ptr_join(fp, "rail_optimized"),
                    "false when the cluster has aggregators (their NICs are on no rail)", json(true));
    if (f.rail_optimized) {
      if (f.leaves != 0 && f.leaves != c.nics_per_node)
        fail_expected(ptr_join(fp, "leaves"), "0 or " + std::to_string(c.nics_per_node) + " (one leaf per rail)",
                      json(f.leaves));
      if (c.nodes > f.leaf_ports)
        fail_expected(ptr_join(fp, "leaf_ports"),
                      "at least " + std::to_string(c.nodes) + " ports: a rail leaf takes one NIC of every node",
                      json(f.leaf_ports));
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
  } else {  // three-tier (docs/fabric.md#three-tier-clos)
    for (auto [k, v] : {std::pair{"leaves", f.leaves}, {"spines", f.spines}})
      if (v != 0)
        fail_expected(ptr_join(fp, k),
                      std::string("0 or absent with topology three-tier (pod_") + k + " counts per pod)", json(v));
    long long need = 0;  // pods
    if (f.rail_optimized) {
      if (agg_nics > 0)
        fail_expected(ptr_join(fp, "rail_optimized"),
                      "false when the cluster has aggregators (their NICs are on no rail)", json(true));
      if (f.pod_leaves != 0 && f.pod_leaves != c.nics_per_node)
        fail_expected(ptr_join(fp, "pod_leaves"),
                      "0 or " + std::to_string(c.nics_per_node) + " (one leaf per rail in each pod)",
                      json(f.pod_leaves));
      c.pod_leaves = c.nics_per_node;
      need = (c.nodes + f.leaf_ports - 1) / f.leaf_ports;  // a rail leaf takes one NIC of each node of its pod
    } else {
      c.pod_leaves = f.pod_leaves ? f.pod_leaves : f.leaf_ports;
      const long long per_pod = static_cast<long long>(c.pod_leaves) * f.leaf_ports;
      need = (nics_total + per_pod - 1) / per_pod;
    }
    if (f.pods != 0 && f.pods < need)
      fail_expected(ptr_join(fp, "pods"),
                    "at least " + std::to_string(need) + " pods for " +
                        (f.rail_optimized ? std::to_string(c.nodes) + " nodes at " + std::to_string(f.leaf_ports) +
                                                " per pod (leaf_ports, one NIC of each on every rail leaf)"
                                          : std::to_string(nics_total) + " NICs at " + std::to_string(c.pod_leaves) +
                                                " leaves x " + std::to_string(f.leaf_ports) + " ports per pod"),
                    json(f.pods));
    c.pods = f.pods ? f.pods : static_cast<int>(need);
    c.pod_spines = f.pod_spines ? f.pod_spines : std::max(1, f.leaf_ports / 2);
    c.cores = f.cores ? f.cores : c.pod_spines;
    if (c.cores % c.pod_spines != 0)
      fail_expected(ptr_join(fp, "cores"),
                    "a multiple of pod_spines (" + std::to_string(c.pod_spines) +
                        "): spine S of every pod links to the cores of plane S, cores / pod_spines each",
                    json(f.cores));
    c.leaves = c.pods * c.pod_leaves;
    c.spines = c.pods * c.pod_spines;
    fres["pods"] = c.pods;
    fres["pod_leaves"] = c.pod_leaves;
    fres["pod_spines"] = c.pod_spines;
    fres["cores"] = c.cores;
  }
  // The three-tier keys appear in the resolved scenario only under three-tier (the results of
  // other topologies keep their shape: the goldens).
  if (f.topology != Topology::ThreeTier)
    for (const char* k : {"pods", "pod_leaves", "pod_spines", "cores", "core_oversubscription"}) fres.erase(k);
  // Elaboration cost, checked before anything is built: devices (GPUs, NICs, switches) plus links
  // (a leaf-spine mesh is leaves x spines of them) stay within a bound a workstation elaborates.
  {
    const long long gpus = static_cast<long long>(c.nodes) * c.gpus_per_node;
    const long long mesh = f.topology == Topology::ThreeTier ? static_cast<long long>(c.leaves) * c.pod_spines +
                                                                   static_cast<long long>(c.pods) * c.cores
                                                             : static_cast<long long>(c.leaves) * c.spines;
    const long long cost = 2 * gpus + 2 * nics_total + c.leaves + c.spines + c.cores + mesh;
    if (cost > kMaxElaboration && f.topology == Topology::ThreeTier) {
      const char* k = f.pods ? "pods" : f.pod_spines ? "pod_spines" : f.pod_leaves ? "pod_leaves" : "leaf_ports";
      fail_expected(
          ptr_join(fp, k),
          "a fabric of at most " + std::to_string(kMaxElaboration) +
              " devices and links (this one: " + std::to_string(cost) + ", " + std::to_string(c.pods) + " pods of " +
              std::to_string(c.pod_leaves) + " leaves x " + std::to_string(c.pod_spines) + " spines, " +
              std::to_string(c.cores) + " cores; docs/reliability.md)",
          member(member(value, "fabric"), k).is_null() ? json(f.leaf_ports) : member(member(value, "fabric"), k));
    }
    if (cost > kMaxElaboration)
      fail_expected(ptr_join(fp, f.spines ? "spines" : "leaf_ports"),
                    "a fabric of at most " + std::to_string(kMaxElaboration) +
                        " devices and links (this one: " + std::to_string(cost) + ", " + std::to_string(c.leaves) +
                        " leaves x " + std::to_string(c.spines) + " spines; docs/reliability.md)",
                    json(f.spines ? f.spines : f.leaf_ports));
  }
  // `auto`: flow fidelity for large clusters, unless a setting needs packets (checked below when
  // set explicitly with flow). The resolved scenario names what runs, so it reruns the same.
  if (f.fidelity == FabricFidelity::Auto) {
    const json& fabric_value = member(value, "fabric");
    const json& pfc_mode = member(member(fabric_value, "pfc"), "mode");
    const bool needs_packets = f.congestion_control == CongestionControlKind::Dcqcn || c.cxl.present || agg_nics > 0 ||
                               (pfc_mode.is_string() && pfc_mode != "egress");
    const long long gpus = static_cast<long long>(c.nodes) * c.gpus_per_node;
    c.fabric.fidelity = gpus > kAutoFlowAboveGpus && !needs_packets ? FabricFidelity::Flow : FabricFidelity::Packet;
    c.fabric.fidelity_auto = true;
  }
  fres["fidelity"] = f.fidelity == FabricFidelity::Flow ? "flow" : "packet";
  // Likewise `nccl` appears only when the scenario sets it.
  const json& nccl = member(member(value, "fabric"), "nccl");
  fres.erase("nccl");
  if (!nccl.is_null()) fres["nccl"] = nccl_schema().load(c.fabric.nccl, object_or_empty(nccl), ptr_join(fp, "nccl"));
  // congestion_control and dcqcn likewise, only when the scenario names them.
  const json& cc = member(member(value, "fabric"), "congestion_control");
  const json& dq = member(member(value, "fabric"), "dcqcn");
  c.fabric.congestion_control_set = !cc.is_null();
  if (cc.is_null()) fres.erase("congestion_control");
  fres.erase("dcqcn");
  if (!dq.is_null()) fres["dcqcn"] = dcqcn_schema().load(c.fabric.dcqcn, object_or_empty(dq), ptr_join(fp, "dcqcn"));
  if (c.fabric.dcqcn.kmax <= c.fabric.dcqcn.kmin)
    fail_expected(ptr_join(ptr_join(fp, "dcqcn"), "kmax"),
                  "more than kmin (" + std::to_string(c.fabric.dcqcn.kmin) + " bytes)", json(c.fabric.dcqcn.kmax));
  if (f.congestion_control == CongestionControlKind::Dcqcn && f.fidelity == FabricFidelity::Flow)  // no queues to mark
    fail_expected(ptr_join(fp, "congestion_control"),
                  "\"none\" with fabric.fidelity \"flow\" (flows have no queues to mark)", json("dcqcn"));
  // And `pfc` (docs/fabric.md#pfc).
  const json& pfc = member(member(value, "fabric"), "pfc");
  fres.erase("pfc");
  if (!pfc.is_null())
    fres["pfc"] = load_pfc(c.fabric.pfc, object_or_empty(pfc), ptr_join(fp, "pfc"), f.switch_buffer, f.chunk,
                           f.fidelity == FabricFidelity::Flow);
  resolved["fabric"] = fres;
  if (c.cxl.present && f.fidelity == FabricFidelity::Flow)  // CXL.io messages and device reductions are per chunk
    fail_expected(ptr_join(fp, "fidelity"), "\"packet\" when the nodes have a CXL device (cluster.node.cxl)",
                  json("flow"));
  if (agg_nics > 0 && f.fidelity == FabricFidelity::Flow)  // reductions are per chunk, as the CXL device's
    fail_expected(ptr_join(fp, "fidelity"), "\"packet\" when the cluster has aggregators (cluster.aggregators)",
                  json("flow"));
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
      fail_expected(
          ptr_join(xp, "interleave_granularity"),
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
      fail_expected(ptr_join(p, "target"),
                    "a GPU name or glob matching at least one of node0.gpu0 .. " + c.gpus.back().name,
                    overrides[i]["target"]);
    out.push_back(r);
  }
  resolved["gpu_overrides"] = out;
  return resolved;
}

bool nvls_capable(const ClusterConfig& c, int node) {
  if (node < 0 || node >= c.nodes) return false;
  for (int g = 0; g < c.gpus_per_node; ++g) {
    const GpuParams& p = c.gpus[static_cast<std::size_t>(node * c.gpus_per_node + g)].params;
    if (p.nvlink_bw <= 0 || p.peak_fp8 <= 0) return false;
  }
  return true;
}

}  // namespace trainvp
