#include "platform/config/fabric_config.hpp"

namespace trainvp {

double PcieConfig::bandwidth_bps() const {
  // GT/s per lane by generation; Gen3+ use 128b/130b coding.
  double gts = gen == 3 ? 8e9 : gen == 4 ? 16e9 : gen == 5 ? 32e9 : 64e9;
  return gts * lanes * 128.0 / 130.0;
}

const ParamSet<FabricConfig>& fabric_schema() {
  static const ParamSet<FabricConfig> s = [] {
    ParamSet<FabricConfig> p(
        "fabric", "/cluster/fabric",
        "The RoCEv2 network between nodes: one NIC per GPU (see node.nics) on a single switch, a "
        "leaf-spine or a three-tier Clos (pods of leaves and spines joined by core switches). Transfers move in chunks of `chunk` bytes; each link frames them into "
        "packets and pays per-packet overhead.");
    p.choice("topology", &FabricConfig::topology, "switch",
             {{"switch", Topology::Switch}, {"leaf-spine", Topology::LeafSpine}, {"three-tier", Topology::ThreeTier}},
             "switch: every NIC on one switch; leaf-spine: NICs on leaves, every leaf linked to every spine; "
             "three-tier: pods of leaves and spines (every leaf of a pod linked to every spine of the pod), spine S "
             "of every pod linked to the core switches of plane S (docs/fabric.md#three-tier-clos)")
        .bandwidth("link_bw", &FabricConfig::link_bw, "400Gbps", "NIC and switch port rate, per direction")
        .time("link_latency", &FabricConfig::link_latency_ps, "1us", "Propagation latency of a network link")
        .integer("mtu", &FabricConfig::mtu, 4096, "RoCE payload bytes per packet", {64, 9000})
        .integer("framing", &FabricConfig::framing, 82,
                 "On-wire bytes per packet beyond the payload (Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + "
                 "preamble/IFG 20)",
                 Range::non_negative())
        .time("switch_latency", &FabricConfig::switch_latency_ps, "500ns", "Switch port-to-port latency (our default)")
        .size("switch_buffer", &FabricConfig::switch_buffer, "1MiB",
              "Output-queue capacity of every link (switch, NIC, NVSwitch, PCIe and GPU ports); when full the sender "
              "is paused (PFC-like), nothing is dropped",
              Range::positive())
        .integer("switch_ports", &FabricConfig::switch_ports, 64, "Ports of the single switch (topology switch)",
                 {1, 1024})
        .time("nic_latency", &FabricConfig::nic_latency_ps, "500ns", "NIC processing latency, each way (our default)")
        .size("chunk", &FabricConfig::chunk, "1MiB",
              "Transfer granularity: smaller is more faithful (pipelining, sharing), larger is faster to simulate",
              Range::at_least(64))
        .integer("leaves", &FabricConfig::leaves, 0,
                 "Leaf switches; 0: as many as the NICs need (leaf_ports each), "
                 "or NICs per node when rail_optimized",
                 {0, 4096})
        .integer("spines", &FabricConfig::spines, 0, "Spine switches; 0: leaf_ports / 2", {0, 4096})
        .integer("leaf_ports", &FabricConfig::leaf_ports, 32, "NIC-facing ports per leaf (a three-tier's ToR)",
                 {1, 1024})
        .number("oversubscription", &FabricConfig::oversubscription, 1.0,
                "Leaf downlink to uplink bandwidth ratio: each leaf-spine link runs at leaf_ports x link_bw / "
                "(spines x oversubscription), pod_spines under three-tier",
                Range::at_least(1.0))
        .flag("rail_optimized", &FabricConfig::rail_optimized, false,
              "HGX rail layout: NIC i of every node on leaf i (leaf-spine), or on its pod's leaf i (three-tier)")
        .integer("pods", &FabricConfig::pods, 0,
                 "three-tier: pods; 0: as many as the NICs need (pod_leaves x leaf_ports NICs each, or leaf_ports "
                 "nodes each when rail_optimized)",
                 {0, 4096})
        .integer("pod_leaves", &FabricConfig::pod_leaves, 0,
                 "three-tier: leaves (ToR switches) per pod; 0: leaf_ports, or NICs per node when rail_optimized",
                 {0, 4096})
        .integer("pod_spines", &FabricConfig::pod_spines, 0, "three-tier: spines per pod; 0: leaf_ports / 2", {0, 4096})
        .integer("cores", &FabricConfig::cores, 0,
                 "three-tier: core (aggregation) switches, a multiple of pod_spines: plane S holds cores / pod_spines "
                 "of them and spine S of every pod links to each; 0: pod_spines (one per plane)",
                 {0, 65536})
        .number("core_oversubscription", &FabricConfig::core_oversubscription, 1.0,
                "three-tier: spine downlink to core uplink bandwidth ratio: each spine-core link runs at leaf_ports x "
                "pod_leaves x link_bw / (cores x oversubscription x core_oversubscription)",
                Range::at_least(1.0))
        .choice("fidelity", &FabricConfig::fidelity, "auto",
                {{"auto", FabricFidelity::Auto}, {"packet", FabricFidelity::Packet}, {"flow", FabricFidelity::Flow}},
                "packet: chunks store-and-forwarded hop by hop with queues and back-pressure; flow: each transfer is "
                "one flow at its max-min fair share of the links it crosses, recomputed when flows start or end "
                "(thousands of GPUs; no queues, docs/fabric.md#flow-fidelity); auto: flow above 512 GPUs unless "
                "the scenario needs packets (DCQCN, PFC ingress or off, CXL devices, aggregators, an nvls all-reduce), "
                "else packet "
                "(docs/fabric.md#choosing-a-fidelity)")
        .flag("group_ring_steps", &FabricConfig::group_ring_steps, true,
              "Flow fidelity: a ring step whose transfers are alike and cross links nothing else uses is one flow "
              "of all of them instead of one per transfer (the same times, far fewer events; "
              "docs/fabric.md#ring-steps-as-one-flow); false: one flow per transfer")
        .nested("nccl", "object", json::object(), "NCCL's channels and ring order for flat rings (see `nccl`)")
        .choice("congestion_control", &FabricConfig::congestion_control, "none",
                {{"none", CongestionControlKind::None}, {"dcqcn", CongestionControlKind::Dcqcn}},
                "none: back-pressure only; dcqcn: switches ECN-mark, receiving NICs send CNPs and sending NICs pace "
                "each queue pair at its DCQCN rate (packet fidelity only; parameters in `dcqcn`, "
                "docs/fabric.md#ecn-and-dcqcn)")
        .nested("dcqcn", "object", json::object(), "ECN and DCQCN parameters (see `dcqcn`)")
        .nested("pfc", "object", json::object(),
                "How Ethernet links push back: egress, ingress PFC or off (see `pfc`)");
    return p;
  }();
  return s;
}

const ParamSet<NcclConfig>& nccl_schema() {
  static const ParamSet<NcclConfig> s = [] {
    ParamSet<NcclConfig> p(
        "nccl", "/cluster/fabric/nccl",
        "How collectives use the fabric, as NCCL does: flat rings (all_reduce ring, reduce_scatter, "
        "all_gather) run `channels` rings at once, each over its slice of the buffer, in rank or "
        "topology order (docs/fabric.md#channels-and-ring-order); tree connections hold `buffsize`.");
    p.integer("channels", &NcclConfig::channels, 0,
              "Rings per collective, each carrying 1/channels of the buffer; 0: 1 in rank order, and in topology "
              "order one per NIC of a node when the communicator spans nodes (else 1)",
              {0, 64})
        .choice("order", &NcclConfig::order, "rank", {{"rank", RingOrder::Rank}, {"topology", RingOrder::Topology}},
                "rank: every channel in communicator order; topology: each channel enters and leaves every node "
                "through NICs of one rail, crossing the node's GPUs over NVLink (NCCL's ring search)")
        .size("buffsize", &NcclConfig::buffsize, "4MiB",
              "NCCL_BUFFSIZE: each tree connection holds at most max(1, buffsize / fabric.chunk) chunks in flight, "
              "a chunk sent only once the receiver has passed on the one that many chunks earlier "
              "(docs/fabric.md#double-binary-tree-tree-all_reduce-only)",
              Range::positive())
        .choice(
            "model", &NcclConfig::tuner, "tuner", {{"tuner", true}, {"bound", false}},
            "tuner: ring and tree collectives of GPUs pay the protocol NCCL's tuner picks for their size (LL, LL128 "
            "or Simple: its latencies and its bandwidth below the fabric's; NCCL 2.18.3's tables, "
            "docs/fabric.md#nccls-protocols); bound: the fabric's own rates and latencies (the closed forms)");
    return p;
  }();
  return s;
}

// Defaults: the DCQCN paper's (Zhu et al., SIGCOMM 2015, for 40 Gbit/s), except min_rate (the HPCC
// ns-3 simulator's MinRate, 100 Mbit/s). docs/fabric.md#ecn-and-dcqcn says where each comes from.
const ParamSet<DcqcnParams>& dcqcn_schema() {
  static const ParamSet<DcqcnParams> s = [] {
    ParamSet<DcqcnParams> p("dcqcn", "/cluster/fabric/dcqcn",
                            "ECN marking and DCQCN (fabric.congestion_control \"dcqcn\"): switch egress queues mark "
                            "packets with a probability rising from 0 at kmin to pmax at kmax (1 above); the receiving "
                            "NIC returns a CNP at most once per cnp_interval per queue pair; the sending NIC cuts and "
                            "recovers the queue pair's rate (docs/fabric.md#ecn-and-dcqcn).");
    p.size("kmin", &DcqcnParams::kmin, "5KB", "Queue below which nothing is marked (paper: 5 KB)")
        .size("kmax", &DcqcnParams::kmax, "200KB",
              "Queue at which the marking probability is pmax, 1 above (paper: 200 KB)", Range::positive())
        .number("pmax", &DcqcnParams::pmax, 0.01, "Marking probability at kmax (paper: 1%)", Range::unit_closed())
        .time("cnp_interval", &DcqcnParams::cnp_interval_ps, "50us",
              "Receiving NIC: at most one CNP per queue pair per interval (paper: 50 us)")
        .number("g", &DcqcnParams::g, 1.0 / 256, "alpha's gain: alpha = (1 - g) alpha + g on a CNP (paper: 1/256)",
                Range::unit_open_closed())
        .time("alpha_timer", &DcqcnParams::alpha_timer_ps, "55us",
              "alpha decays by (1 - g) every interval without a CNP (paper: 55 us)", Range::positive())
        .time("rate_timer", &DcqcnParams::rate_timer_ps, "55us", "Rate-increase timer T (paper: 55 us)",
              Range::positive())
        .size("byte_counter", &DcqcnParams::byte_counter, "10MB", "Rate-increase byte counter B (paper: 10 MB)",
              Range::positive())
        .integer("fast_recovery", &DcqcnParams::fast_recovery, 5,
                 "F: increase events of fast recovery before additive increase (paper: 5)", {1, 1000})
        .bandwidth("rate_ai", &DcqcnParams::rate_ai_bps, "40Mbps", "Additive increase R_AI (paper: 40 Mbit/s)")
        .bandwidth("rate_hai", &DcqcnParams::rate_hai_bps, "200Mbps", "Hyper increase step R_HAI (paper: 200 Mbit/s)")
        .bandwidth("min_rate", &DcqcnParams::min_rate_bps, "100Mbps",
                   "Lowest rate a cut leaves (the HPCC ns-3 simulator's MinRate)");
    return p;
  }();
  return s;
}

const ParamSet<NvlinkConfig>& nvlink_schema() {
  static const ParamSet<NvlinkConfig> s = [] {
    ParamSet<NvlinkConfig> p("nvlink", "/cluster/node/nvlink",
                             "GPU-to-NVSwitch links, used when the GPU's nvlink_bw > 0 (bandwidth from the GPU).");
    p.time("latency", &NvlinkConfig::latency_ps, "250ns", "GPU to NVSwitch link latency (our default)")
        .time("switch_latency", &NvlinkConfig::switch_latency_ps, "100ns", "NVSwitch forwarding latency (our default)")
        .integer("mtu", &NvlinkConfig::mtu, 256, "Payload bytes per NVLink packet", Range::at_least(16))
        .integer("framing", &NvlinkConfig::framing, 56,
                 "Header, CRC and flow-control bytes per NVLink packet: 56 of 312 leave 82% of the line rate for data, "
                 "NCCL's effective NVLink bandwidth (370 of 450 GB/s on H100: S. Jeaugey, NVIDIA/nccl-tests#212)",
                 Range::non_negative());
    return p;
  }();
  return s;
}

const ParamSet<PcieConfig>& pcie_schema() {
  static const ParamSet<PcieConfig> s = [] {
    ParamSet<PcieConfig> p("pcie", "/cluster/node/pcie",
                           "PCIe inside a node: GPUs and NICs on PCIe switches (gpus_per_switch GPUs and their NICs "
                           "each), switches on the CPU root complex. GPUs without NVLink talk through it.");
    p.integer("gen", &PcieConfig::gen, 5, "PCIe generation (3: 8, 4: 16, 5: 32, 6: 64 GT/s per lane)", {3, 6})
        .integer("lanes", &PcieConfig::lanes, 16, "Lanes per link", {1, 32})
        .time("latency", &PcieConfig::latency_ps, "300ns", "Link latency (our default)")
        .time("switch_latency", &PcieConfig::switch_latency_ps, "150ns", "PCIe switch forwarding latency (our default)")
        .integer("gpus_per_switch", &PcieConfig::gpus_per_switch, 2, "GPUs (and their NICs) per PCIe switch",
                 Range::at_least(1))
        .integer("mtu", &PcieConfig::mtu, 256, "Max TLP payload bytes", {64, 4096})
        .integer("framing", &PcieConfig::framing, 24, "TLP header + DLLP + framing bytes per TLP",
                 Range::non_negative());
    return p;
  }();
  return s;
}

}  // namespace trainvp
