#pragma once
// Configuration of the fabric: the network between nodes (cluster.fabric) and the links inside
// a node (cluster.node.nvlink, cluster.node.pcie, cluster.node.nics).
#include <cstdint>
#include <string>

#include "models/collectives/program.hpp"
#include "models/link/dcqcn.hpp"
#include "platform/config/pfc_config.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

enum class Topology { Switch, LeafSpine, ThreeTier };
// packet: chunks store-and-forwarded hop by hop (LinkDir); flow: max-min fair flows (FlowNetwork);
// auto: as loaded only, resolved by load_cluster to flow above kAutoFlowAboveGpus GPUs when nothing
// the scenario asks for needs packets, else packet (docs/fabric.md#choosing-a-fidelity).
enum class FabricFidelity { Packet, Flow, Auto };
// Packet fidelity's largest cluster under `auto`: a 512-GPU GPT-2 XL DDP iteration
// (scenarios/clusters/gpt2xl-64node-ddp.json) takes about 7 s of one core in packet fidelity and
// flow fidelity agrees with it to 0.001%; a 1,024-GPU pipeline iteration takes minutes in packets
// (docs/fabric.md#choosing-a-fidelity).
constexpr int kAutoFlowAboveGpus = 512;
// ECN marking at switch egress and DCQCN at the sending NICs (docs/fabric.md#ecn-and-dcqcn), or neither.
enum class CongestionControlKind { None, Dcqcn };

// NCCL's use of the fabric by flat rings (cluster.fabric.nccl): channels and ring order.
struct NcclConfig {
  int channels = 0;                   // 0: as NCCL chooses (ring_channels)
  RingOrder order = RingOrder::Rank;  // rank: the single rank-order ring; topology: NCCL's rail-aligned rings
  std::uint64_t buffsize = 4 << 20;   // NCCL_BUFFSIZE: what one tree connection holds in flight
  bool tuner = true;                  // NCCL's protocol costs (nccl_tuner.hpp); false: the fabric's bound
};

struct FabricConfig {
  Topology topology = Topology::Switch;
  double link_bw = 400e9;  // bits/s per direction, NIC to switch
  std::int64_t link_latency_ps = 1000000;
  int mtu = 4096;    // RoCE payload per packet
  int framing = 82;  // on-wire bytes per packet beyond the payload
  std::int64_t switch_latency_ps = 500000;
  std::uint64_t switch_buffer = 1 << 20;  // per output port
  int switch_ports = 64;
  std::int64_t nic_latency_ps = 500000;
  std::uint64_t chunk = 1 << 20;  // transfer granularity (speed vs fidelity)
  int leaves = 0, spines = 0, leaf_ports = 32;
  double oversubscription = 1.0;
  bool rail_optimized = false;
  // three-tier: pods of leaves and spines, the pods joined by core switches (docs/fabric.md#three-tier-clos)
  int pods = 0, pod_leaves = 0, pod_spines = 0, cores = 0;
  double core_oversubscription = 1.0;
  FabricFidelity fidelity = FabricFidelity::Packet;  // packet or flow once loaded
  bool fidelity_auto = false;                        // `auto` picked it
  bool group_ring_steps = true;                      // flow fidelity: a ring step as one flow where exact
  NcclConfig nccl;
  CongestionControlKind congestion_control = CongestionControlKind::None;
  bool congestion_control_set = false;  // the scenario names congestion_control (links then report pauses)
  DcqcnParams dcqcn;
  PfcConfig pfc;
};

struct NvlinkConfig {
  std::int64_t latency_ps = 250000;
  std::int64_t switch_latency_ps = 100000;
  int mtu = 256, framing = 56;  // 82% for data: NCCL's effective NVLink rate (fabric_config.cpp)
};

struct PcieConfig {
  int gen = 5, lanes = 16;
  std::int64_t latency_ps = 300000;
  std::int64_t switch_latency_ps = 150000;
  int gpus_per_switch = 2;
  int mtu = 256, framing = 24;
  double bandwidth_bps() const;  // per direction, after 128b/130b line coding
};

const ParamSet<FabricConfig>& fabric_schema();
const ParamSet<NcclConfig>& nccl_schema();
const ParamSet<DcqcnParams>& dcqcn_schema();
const ParamSet<NvlinkConfig>& nvlink_schema();
const ParamSet<PcieConfig>& pcie_schema();

}  // namespace trainvp
