// Building the fabric (fabric.hpp): per node its GPUs, NVSwitch, PCIe switches, root complex, NICs
// and CXL ports; the CPU aggregators' ports and NICs; then the network between the NICs.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "platform/system/fabric/fabric.hpp"

namespace trainvp {

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu: return "gpu";
    case DeviceKind::Nic: return "nic";
    case DeviceKind::Switch: return "switch";
    case DeviceKind::Leaf: return "leaf";
    case DeviceKind::Spine: return "spine";
    case DeviceKind::Core: return "core";
    case DeviceKind::NvSwitch: return "nvswitch";
    case DeviceKind::PcieSwitch: return "pcie-switch";
    case DeviceKind::RootComplex: return "root-complex";
    case DeviceKind::CxlPort: return "cxl-port";
    case DeviceKind::AggregatorPort: return "aggregator-port";
    case DeviceKind::NvlsUnit: return "nvls";
  }
  return "?";
}

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::Ethernet: return "ethernet";
    case LinkKind::Nvlink: return "nvlink";
    case LinkKind::Pcie: return "pcie";
    case LinkKind::Cxl: return "cxl";
  }
  return "?";
}

// SystemC module names take neither the devices' dots nor the links' dashes and arrows.
static std::string sc_safe(std::string s) {
  for (char& c : s)
    if (c == '.' || c == ':' || c == '-' || c == '>') c = '_';
  return s;
}

int Fabric::add_device(std::string name, DeviceKind kind, int node, std::int64_t egress_latency_ps) {
  FabricDevice d;
  d.kind = kind;
  d.node = node;
  d.egress_latency_ps = egress_latency_ps;
  if (kind != DeviceKind::Gpu && kind != DeviceKind::CxlPort && kind != DeviceKind::AggregatorPort &&
      kind != DeviceKind::NvlsUnit && s_.cluster.fabric.fidelity != FabricFidelity::Flow)
    d.fwd = std::make_unique<Forwarder>(("fab_" + sc_safe(name)).c_str(), name);
  d.name = std::move(name);
  devices_.push_back(std::move(d));
  return static_cast<int>(devices_.size() - 1);
}

void Fabric::connect(int a, int b, LinkKind kind, double bps, std::int64_t latency_ps, int mtu, int framing,
                     std::uint64_t buffer, bool whole_packets) {
  const int link = static_cast<int>(links_.size());
  links_.push_back({"link:" + devices_[a].name + "-" + devices_[b].name, kind, a, b, bps, latency_ps});
  for (int dirn = 0; dirn < 2; ++dirn) {
    int from = dirn == 0 ? a : b, to = dirn == 0 ? b : a;
    FabricDevice& f = devices_[static_cast<std::size_t>(from)];
    FabricDevice& t = devices_[static_cast<std::size_t>(to)];
    LinkDirParams p;
    p.bandwidth_bps = bps;
    p.latency_ps = latency_ps + f.egress_latency_ps;
    p.mtu = static_cast<std::uint32_t>(mtu);
    p.overhead = static_cast<std::uint32_t>(framing);
    p.buffer = buffer;
    p.whole_packets = whole_packets;
    std::string label = f.name + "->" + t.name;
    FabricDir d;
    d.from = from;
    d.to = to;
    d.link = link;
    d.kind = kind;
    if (s_.cluster.fabric.fidelity == FabricFidelity::Flow) {
      d.dir = std::make_unique<LinkState>(std::move(label), p);  // the flow network reads and fills it alone
    } else {
      auto dir = std::make_unique<LinkDir>(("dir_" + sc_safe(label)).c_str(), label, p,
                                           static_cast<std::uint32_t>(s_.cluster.fabric.chunk), ctx_);
      LinkDir& l = *dir;
      d.packet = dir.get();
      d.dir = std::move(dir);
      const PfcConfig& pfc = s_.cluster.fabric.pfc;
      if (kind == LinkKind::Ethernet && pfc.mode != PfcMode::Egress) {
        // Every Ethernet port counts and pauses (docs/fabric.md#pfc); a switch's output queue is then
        // bounded by its ingress ports' thresholds, a NIC's still by the buffer (it pushes back on PCIe).
        const bool sw = f.kind == DeviceKind::Switch || f.kind == DeviceKind::Leaf || f.kind == DeviceKind::Spine ||
                        f.kind == DeviceKind::Core;
        l.set_pfc(pfc_port_params(pfc, bps, latency_ps, p.latency_ps,
                                  l.wire_bytes(static_cast<std::uint32_t>(s_.cluster.fabric.chunk))),
                  sw);
      }
      if (f.gpu) bind_pair(f.gpu->dma, l.in);
      else if (f.cxl) bind_pair(f.cxl->dma, l.in);
      else if (f.agg) bind_pair(f.agg->dma, l.in);
      else if (f.nvls) bind_pair(f.nvls->port.dma, l.in);
      else bind_pair(f.fwd->out, l.in);
      if (t.gpu) bind_pair(l.out, t.gpu->mem);
      else if (t.cxl) bind_pair(l.out, t.cxl->mem);
      else if (t.agg) bind_pair(l.out, t.agg->mem);
      else if (t.nvls) bind_pair(l.out, t.nvls->port.mem);
      else bind_pair(l.out, t.fwd->in);
      // Between a link and a forwarder each side offers one chunk at a time, so a held chunk can end
      // its request and leave the socket free for express messages (request exclusion, 15.2.6 e);
      // a GPU's or aggregator's AT initiator would send its next chunk at END_REQ, so its link holds
      // without one (they send no express messages).
      if (f.fwd || f.cxl) l.end_held_requests();  // a CXL port's AT initiator holds (hold_until_response)
      if (t.fwd) t.fwd->end_held_requests(t.in_ports++);
    }
    d.cost = static_cast<double>(p.latency_ps) * 1e-12 + static_cast<double>(d.dir->wire_bytes(1 << 20)) * 8.0 / bps;
    f.out.push_back(static_cast<int>(dirs_.size()));
    dirs_.push_back(std::move(d));
  }
}

Fabric::Fabric(const Scenario& s, const std::vector<Gpu*>& gpus, const std::vector<CxlDevice*>& cxl, RunContext& ctx,
               const std::vector<Aggregator*>& aggs, const std::vector<NvlsUnit*>& nvls)
    : s_(s), ctx_(ctx) {
  // A debugging aid, off by default: a checker costs a hash lookup per hop (docs/fabric.md).
  if (const char* v = std::getenv("TRAINVP_CHECK_TLM"); v && *v && std::string(v) != "0") check_tlm_ = true;
  gpu_device_.resize(gpus.size());
  nic_of_gpu_.resize(gpus.size());
  std::vector<int> nic_devices;  // in node-major order
  for (int n = 0; n < s.cluster.nodes; ++n)
    build_node(n, gpus, n < static_cast<int>(cxl.size()) ? cxl[static_cast<std::size_t>(n)] : nullptr, nic_devices);
  const std::size_t gpu_nics = nic_devices.size();
  build_aggregators(aggs, nic_devices);
  build_nvls_units(nvls);
  build_network(nic_devices, gpu_nics);
  route_host_paths();
  attach_congestion_control();
  if (s.cluster.fabric.fidelity == FabricFidelity::Flow) {
    std::vector<LinkState*> dirs;
    dirs.reserve(dirs_.size());
    for (FabricDir& d : dirs_) dirs.push_back(d.dir.get());
    flow_ = std::make_unique<FlowNetwork>("flow_network", std::move(dirs), ctx_.calendar());
  }
}

void Fabric::build_node(int n, const std::vector<Gpu*>& gpus, CxlDevice* dev, std::vector<int>& nic_devices) {
  const ClusterConfig& c = s_.cluster;
  const FabricConfig& f = c.fabric;
  const int G = c.gpus_per_node, nics = c.nics_per_node;
  const double pcie_bw = c.pcie.bandwidth_bps();
  const std::string node = "node" + std::to_string(n);
  std::vector<int> gdev;
  for (int g = 0; g < G; ++g) {
    int d = add_device(node + ".gpu" + std::to_string(g), DeviceKind::Gpu, n, 0);
    devices_[static_cast<std::size_t>(d)].gpu = gpus[static_cast<std::size_t>(n * G + g)];
    gpu_device_[static_cast<std::size_t>(n * G + g)] = d;
    gdev.push_back(d);
  }
  bool nvlink = false;
  for (int g = 0; g < G; ++g) nvlink |= c.gpus[static_cast<std::size_t>(n * G + g)].params.nvlink_bw > 0;
  if (nvlink) {
    int sw = add_device(node + ".nvswitch", DeviceKind::NvSwitch, n, c.nvlink.switch_latency_ps);
    nvswitch_of_node_.resize(static_cast<std::size_t>(n) + 1, -1);
    nvswitch_of_node_[static_cast<std::size_t>(n)] = sw;
    for (int g = 0; g < G; ++g) {
      double bw = c.gpus[static_cast<std::size_t>(n * G + g)].params.nvlink_bw;
      if (bw > 0)
        connect(gdev[g], sw, LinkKind::Nvlink, bw, c.nvlink.latency_ps, c.nvlink.mtu, c.nvlink.framing,
                f.switch_buffer);
    }
  }
  int root = add_device(node + ".cpu", DeviceKind::RootComplex, n, c.pcie.switch_latency_ps);
  const int per = c.pcie.gpus_per_switch, nsw = (G + per - 1) / per;
  std::vector<int> psw;
  for (int k = 0; k < nsw; ++k) {
    psw.push_back(add_device(node + ".pcie" + std::to_string(k), DeviceKind::PcieSwitch, n, c.pcie.switch_latency_ps));
    connect(psw.back(), root, LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu, c.pcie.framing, f.switch_buffer);
  }
  for (int g = 0; g < G; ++g)
    connect(gdev[g], psw[static_cast<std::size_t>(g / per)], LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu,
            c.pcie.framing, f.switch_buffer);
  // NIC i serves the contiguous group of GPUs g with g x nics / G == i, and sits on the PCIe
  // switch of the first of them.
  for (int i = 0; i < nics; ++i) {
    int first_gpu = (i * G + nics - 1) / nics;
    int nic = add_device(node + ".nic" + std::to_string(i), DeviceKind::Nic, n, f.nic_latency_ps);
    connect(nic, psw[static_cast<std::size_t>(first_gpu / per)], LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu,
            c.pcie.framing, f.switch_buffer);
    nic_devices.push_back(nic);
  }
  for (int g = 0; g < G; ++g)
    nic_of_gpu_[static_cast<std::size_t>(n * G + g)] = nic_devices[static_cast<std::size_t>(n * nics + g * nics / G)];
  // The CXL device's ports, each on a PCIe switch (round-robin), with flit-framed links.
  device_map_.ports_of_node.emplace_back();
  for (std::size_t k = 0; dev && k < dev->ports.size(); ++k) {
    const CxlParams& cp = dev->params();
    device_map_.interleave = cp.interleave_granularity;
    int port = add_device(node + ".cxl.p" + std::to_string(k), DeviceKind::CxlPort, n, 0);
    devices_[static_cast<std::size_t>(port)].cxl = dev->ports[k].get();
    connect(port, psw[k % psw.size()], LinkKind::Cxl, cp.link_bps(), cp.link_latency_ps, cp.flit_payload(),
            cp.flit_overhead(), f.switch_buffer,
            true);  // flits are fixed-size: a 4-byte MMIO write takes a whole one
    device_map_.ports_of_node.back().push_back(static_cast<int>(gpu_device_.size()));
    gpu_device_.push_back(port);
    // Between nodes a port uses a NIC on its own PCIe switch (else the node's first NIC).
    int nic = n * nics;
    for (int i = 0; i < nics; ++i)
      if (((i * G + nics - 1) / nics) / per == static_cast<int>(k % psw.size())) {
        nic = n * nics + i;
        break;
      }
    nic_of_gpu_.push_back(nic_devices[static_cast<std::size_t>(nic)]);
    if (k == 0) {  // the device's driver sits on the root complex; its CXL.io goes to port 0
      FabricDevice& rc = devices_[static_cast<std::size_t>(root)];
      bind_pair(dev->driver().mmio, rc.fwd->in);
      ++rc.in_ports;
      host_paths_.push_back({dev, root, port, static_cast<int>(rc.out.size()), {}});
      bind_pair(rc.fwd->out, dev->driver().host);
    }
    host_paths_.back().ports.push_back(port);
  }
}

// CPU aggregator nodes: NIC i reaches the host's memory (port i) over PCIe, as a GPU node's NIC
// reaches its GPUs; their NICs go on the network after the GPU nodes'.
void Fabric::build_aggregators(const std::vector<Aggregator*>& aggs, std::vector<int>& nic_devices) {
  const ClusterConfig& c = s_.cluster;
  const FabricConfig& f = c.fabric;
  const double pcie_bw = c.pcie.bandwidth_bps();
  for (std::size_t a = 0; a < aggs.size(); ++a) {
    const std::string host = "agg" + std::to_string(a);
    const int node = c.nodes + static_cast<int>(a);
    device_map_.ports_of_aggregator.emplace_back();
    for (std::size_t i = 0; i < aggs[a]->ports.size(); ++i) {
      const int port = add_device(host + ".p" + std::to_string(i), DeviceKind::AggregatorPort, node, 0);
      devices_[static_cast<std::size_t>(port)].agg = aggs[a]->ports[i].get();
      const int nic = add_device(host + ".nic" + std::to_string(i), DeviceKind::Nic, node, f.nic_latency_ps);
      connect(port, nic, LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu, c.pcie.framing, f.switch_buffer);
      nic_devices.push_back(nic);
      device_map_.ports_of_aggregator.back().push_back(static_cast<int>(gpu_device_.size()));
      gpu_device_.push_back(port);
      nic_of_gpu_.push_back(nic);
    }
  }
}

// NVLink SHARP: node n's NVLS unit hangs off its NVSwitch, an endpoint numbered after the
// aggregators' ports. Its link stands for the switch's crossbar, which copies a multicast to every
// GPU port at once: it runs at the GPUs' NVLink rate times their count plus one, so it never limits
// what the GPUs' own links carry (docs/fabric.md#nvlink-sharp-nvls).
void Fabric::build_nvls_units(const std::vector<NvlsUnit*>& units) {
  const ClusterConfig& c = s_.cluster;
  device_map_.nvls_of_node.assign(static_cast<std::size_t>(c.nodes), -1);
  for (std::size_t n = 0; n < units.size(); ++n) {
    if (!units[n]) continue;
    const int sw = n < nvswitch_of_node_.size() ? nvswitch_of_node_[n] : -1;
    if (sw < 0) throw std::logic_error("an NVLS unit on a node without an NVSwitch");
    double bw = 0;
    for (int g = 0; g < c.gpus_per_node; ++g)
      bw = std::max(
          bw, c.gpus[n * static_cast<std::size_t>(c.gpus_per_node) + static_cast<std::size_t>(g)].params.nvlink_bw);
    const int d = add_device("node" + std::to_string(n) + ".nvls", DeviceKind::NvlsUnit, static_cast<int>(n), 0);
    devices_[static_cast<std::size_t>(d)].nvls = units[n];
    connect(d, sw, LinkKind::Nvlink, bw * (c.gpus_per_node + 1), 0, c.nvlink.mtu, c.nvlink.framing,
            c.fabric.switch_buffer);
    device_map_.nvls_of_node[n] = static_cast<int>(gpu_device_.size());
    gpu_device_.push_back(d);
    nic_of_gpu_.push_back(nic_of_gpu_[n * static_cast<std::size_t>(c.gpus_per_node)]);  // never used: no NIC traffic
  }
}

// The network: one switch, a leaf-spine or a three-tier Clos. nic_devices: the GPU nodes' NICs (the first
// gpu_nics), then the aggregators'.
void Fabric::build_network(const std::vector<int>& nic_devices, std::size_t gpu_nics) {
  const ClusterConfig& c = s_.cluster;
  const FabricConfig& f = c.fabric;
  const double agg_bw = c.aggregators.nic_bw > 0 ? c.aggregators.nic_bw : f.link_bw;
  auto eth = [&](int a, int b, double bw) {
    connect(a, b, LinkKind::Ethernet, bw, f.link_latency_ps, f.mtu, f.framing, f.switch_buffer);
  };
  if (f.topology == Topology::Switch) {
    int sw = add_device("switch", DeviceKind::Switch, -1, f.switch_latency_ps);
    for (std::size_t k = 0; k < nic_devices.size(); ++k) eth(nic_devices[k], sw, k < gpu_nics ? f.link_bw : agg_bw);
    return;
  }
  if (f.topology == Topology::ThreeTier) {
    build_three_tier(nic_devices, gpu_nics, agg_bw);
    return;
  }
  const int leaves = c.leaves, spines = c.spines, nics = c.nics_per_node;
  std::vector<int> leaf, spine;
  for (int i = 0; i < leaves; ++i)
    leaf.push_back(add_device("leaf" + std::to_string(i), DeviceKind::Leaf, -1, f.switch_latency_ps));
  for (int i = 0; i < spines; ++i)
    spine.push_back(add_device("spine" + std::to_string(i), DeviceKind::Spine, -1, f.switch_latency_ps));
  std::vector<int> down(static_cast<std::size_t>(leaves), 0);
  for (std::size_t k = 0; k < nic_devices.size(); ++k) {
    int l = f.rail_optimized ? static_cast<int>(k) % nics : static_cast<int>(k) / f.leaf_ports;
    eth(nic_devices[k], leaf[static_cast<std::size_t>(l)], k < gpu_nics ? f.link_bw : agg_bw);
    ++down[static_cast<std::size_t>(l)];
  }
  // Each leaf-spine link carries its share of the leaf's downlink bandwidth, over the oversubscription.
  double up = f.link_bw * f.leaf_ports / (spines * f.oversubscription);
  for (int l : leaf)
    for (int sp : spine) eth(l, sp, up);
}

// Three tiers (docs/fabric.md#three-tier-clos): pod P holds leaves pod<P>.leaf<L> and spines
// pod<P>.spine<S>, every leaf of a pod linked to every spine of the pod; the cores core<C> are in
// pod_spines planes of cores / pod_spines each, plane S = cores S x per_plane .. (S + 1) x per_plane - 1,
// and spine S of every pod is linked to every core of plane S (the fat tree's wiring, Al-Fares et al.,
// SIGCOMM 2008). NICs fill the leaves in order (leaf_ports each, pod by pod), or with
// rail_optimized NIC I of node N on leaf I of pod N / leaf_ports.
void Fabric::build_three_tier(const std::vector<int>& nic_devices, std::size_t gpu_nics, double agg_bw) {
  const ClusterConfig& c = s_.cluster;
  const FabricConfig& f = c.fabric;
  auto eth = [&](int a, int b, double bw) {
    connect(a, b, LinkKind::Ethernet, bw, f.link_latency_ps, f.mtu, f.framing, f.switch_buffer);
  };
  const int pods = c.pods, pl = c.pod_leaves, ps = c.pod_spines, cores = c.cores, nics = c.nics_per_node;
  std::vector<int> leaf, spine, core;  // leaf P x pl + L, spine P x ps + S
  for (int p = 0; p < pods; ++p) {
    const std::string pod = "pod" + std::to_string(p);
    for (int l = 0; l < pl; ++l)
      leaf.push_back(add_device(pod + ".leaf" + std::to_string(l), DeviceKind::Leaf, -1, f.switch_latency_ps));
    for (int sp = 0; sp < ps; ++sp)
      spine.push_back(add_device(pod + ".spine" + std::to_string(sp), DeviceKind::Spine, -1, f.switch_latency_ps));
  }
  for (int k = 0; k < cores; ++k)
    core.push_back(add_device("core" + std::to_string(k), DeviceKind::Core, -1, f.switch_latency_ps));
  for (std::size_t k = 0; k < nic_devices.size(); ++k) {
    const int node = static_cast<int>(k) / nics, rail = static_cast<int>(k) % nics;
    const int l = f.rail_optimized ? node / f.leaf_ports * pl + rail : static_cast<int>(k) / f.leaf_ports;
    eth(nic_devices[k], leaf[static_cast<std::size_t>(l)], k < gpu_nics ? f.link_bw : agg_bw);
  }
  // A leaf's uplinks carry its downlink capacity over `oversubscription`, a pod's (one link to each
  // core) the pod's leaf uplink capacity over `core_oversubscription`.
  const double up = f.link_bw * f.leaf_ports / (ps * f.oversubscription);
  const double core_up = f.link_bw * f.leaf_ports * pl / (cores * f.oversubscription * f.core_oversubscription);
  const int per_plane = cores / ps;
  for (int p = 0; p < pods; ++p) {
    for (int l = 0; l < pl; ++l)
      for (int sp = 0; sp < ps; ++sp)
        eth(leaf[static_cast<std::size_t>(p * pl + l)], spine[static_cast<std::size_t>(p * ps + sp)], up);
    for (int sp = 0; sp < ps; ++sp)
      for (int k = sp * per_plane; k < (sp + 1) * per_plane; ++k)
        eth(spine[static_cast<std::size_t>(p * ps + sp)], core[static_cast<std::size_t>(k)], core_up);
  }
}

// The driver's TLPs enter the root complex from its socket (route entry 0) and take the shortest
// path to port 0; the device's come back the same way and leave the root complex to the driver.
void Fabric::route_host_paths() {
  for (const HostPath& h : host_paths_) {
    auto to = std::make_unique<Route>(), back = std::make_unique<Route>();
    to->ports.push_back(0);
    router_.append_path(*to, h.root, h.port0, 0);
    router_.append_path(*back, h.port0, h.root, 0);
    back->ports.push_back(h.rc_port);
    const std::uint32_t flow =
        0xC5100000u + static_cast<std::uint32_t>(devices_[static_cast<std::size_t>(h.root)].node);
    h.dev->set_host_paths(to.get(), back.get(), flow, devices_[static_cast<std::size_t>(h.root)].egress_latency_ps);
    host_routes_.push_back(std::move(to));
    host_routes_.push_back(std::move(back));
    // CXL.mem: the same way to and from every port (the HDM decoder spreads loads and stores over them).
    std::vector<const Route*> to_ports, to_host;
    for (int port : h.ports) {
      auto mto = std::make_unique<Route>(), mback = std::make_unique<Route>();
      mto->ports.push_back(0);
      router_.append_path(*mto, h.root, port, 0);
      router_.append_path(*mback, port, h.root, 0);
      mback->ports.push_back(h.rc_port);
      to_ports.push_back(mto.get());
      to_host.push_back(mback.get());
      host_routes_.push_back(std::move(mto));
      host_routes_.push_back(std::move(mback));
    }
    h.dev->set_mem_paths(std::move(to_ports), std::move(to_host),
                         0xC5200000u + static_cast<std::uint32_t>(devices_[static_cast<std::size_t>(h.root)].node));
  }
}

}  // namespace trainvp
