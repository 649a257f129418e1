#pragma once
// /cluster: the nodes, each node's GPUs, NVLink, PCIe, NICs and CXL device, per-GPU overrides, and
// CPU aggregator nodes, and the fabric between nodes (whose schemas are in fabric_config.hpp).
#include <string>
#include <vector>

#include "models/aggregator/cpu_params.hpp"
#include "models/cxl/cxl_params.hpp"
#include "models/gpu/gpu_params.hpp"
#include "platform/config/fabric_config.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct GpuInstance {
  std::string name;  // "node3.gpu2"
  int node = 0;
  int local = 0;  // index within the node
  int rank = 0;   // global rank
  GpuParams params;
};

struct ClusterConfig {
  int nodes = 1;
  int gpus_per_node = 8;
  int nics_per_node = 8;
  std::vector<GpuInstance> gpus;  // rank order
  FabricConfig fabric;
  NvlinkConfig nvlink;
  PcieConfig pcie;
  CxlParams cxl;
  int cxl_ports = 0;           // resolved: ports per node's device (0 without a device)
  int leaves = 0, spines = 0;  // resolved for leaf-spine; three-tier: all leaves, all spines
  int pods = 0, pod_leaves = 0, pod_spines = 0, cores = 0;  // resolved for three-tier
  AggregatorParams aggregators;                             // CPU aggregator nodes (count 0: none)
  // Resolved from the sections that name collectives: some all-reduce uses algorithm nvls, so the
  // nodes that can (nvls_capable) get their NVSwitch's NVLink SHARP unit.
  bool nvls = false;
  int node_of(int rank) const { return rank / gpus_per_node; }
};

// Whether node n's NVSwitch does NVLink SHARP: every GPU of it Hopper-class (sm90, which trainvp
// knows by its FP8 tensor cores, as NCCL's tuner caps do) on NVLink.
bool nvls_capable(const ClusterConfig& c, int node);

// The keys of /cluster, /cluster/node and /cluster/gpu_overrides/* as given, before resolution.
struct ClusterRaw {
  int nodes = 1;
};
struct NodeRaw {
  int gpus = 8;
  int nics = 0;
};
struct OverrideRaw {
  std::string target;
  double speed = -1;
};
const ParamSet<ClusterRaw>& cluster_schema();
const ParamSet<NodeRaw>& node_schema();
const ParamSet<OverrideRaw>& override_schema();

// Reads /cluster (at `path`) into `c`: the GPUs named and ranked in order, overrides applied, NICs,
// leaves, spines and CXL ports resolved. Returns the resolved object; throws ScenarioError naming
// the pointer of the first problem.
json load_cluster(ClusterConfig& c, const json& value, const std::string& path);

}  // namespace trainvp
