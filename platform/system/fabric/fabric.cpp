#include "platform/system/fabric/fabric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <queue>

#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

const char* device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::Gpu: return "gpu";
    case DeviceKind::Nic: return "nic";
    case DeviceKind::Switch: return "switch";
    case DeviceKind::Leaf: return "leaf";
    case DeviceKind::Spine: return "spine";
    case DeviceKind::NvSwitch: return "nvswitch";
    case DeviceKind::PcieSwitch: return "pcie-switch";
    case DeviceKind::RootComplex: return "root-complex";
    case DeviceKind::CxlPort: return "cxl-port";
    case DeviceKind::AggregatorPort: return "aggregator-port";
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

// ECMP hashes with fmix32 (platform/core/hash.hpp): every input bit moves every output bit, or
// flows that differ only in high bits would share a path.

static std::string sc_safe(std::string s) {
  for (char& c : s)
    if (c == '.' || c == ':' || c == '-' || c == '>') c = '_';
  return s;
}

template <class From, class To>
void Fabric::bind_pair(From& from, To& to) {
  if (!check_tlm_) {
    from.bind(to);
    return;
  }
  checkers_.push_back(std::make_unique<ProtocolChecker>(("tlm_check" + std::to_string(checkers_.size())).c_str()));
  from.bind(checkers_.back()->in);
  checkers_.back()->out.bind(to);
}

int Fabric::add_device(std::string name, DeviceKind kind, int node, std::int64_t egress_latency_ps) {
  FabricDevice d;
  d.kind = kind;
  d.node = node;
  d.egress_latency_ps = egress_latency_ps;
  if (kind != DeviceKind::Gpu && kind != DeviceKind::CxlPort && kind != DeviceKind::AggregatorPort)
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
    d.dir = std::make_unique<LinkDir>(("dir_" + sc_safe(label)).c_str(), label, p,
                                      static_cast<std::uint32_t>(s_.cluster.fabric.chunk), ctx_);
    const PfcConfig& pfc = s_.cluster.fabric.pfc;
    if (kind == LinkKind::Ethernet && pfc.mode != PfcMode::Egress) {
      // Every Ethernet port counts and pauses (docs/fabric.md#pfc); a switch's output queue is then
      // bounded by its ingress ports' thresholds, a NIC's still by the buffer (it pushes back on PCIe).
      const bool sw = f.kind == DeviceKind::Switch || f.kind == DeviceKind::Leaf || f.kind == DeviceKind::Spine;
      d.dir->set_pfc(pfc_port_params(pfc, bps, latency_ps, p.latency_ps,
                                     d.dir->wire_bytes(static_cast<std::uint32_t>(s_.cluster.fabric.chunk))),
                     sw);
    }
    d.cost = static_cast<double>(p.latency_ps) * 1e-12 + static_cast<double>(d.dir->wire_bytes(1 << 20)) * 8.0 / bps;
    if (f.gpu) bind_pair(f.gpu->dma, d.dir->in);
    else if (f.cxl) bind_pair(f.cxl->dma, d.dir->in);
    else if (f.agg) bind_pair(f.agg->dma, d.dir->in);
    else bind_pair(f.fwd->out, d.dir->in);
    if (t.gpu) bind_pair(d.dir->out, t.gpu->mem);
    else if (t.cxl) bind_pair(d.dir->out, t.cxl->mem);
    else if (t.agg) bind_pair(d.dir->out, t.agg->mem);
    else bind_pair(d.dir->out, t.fwd->in);
    // Between a link and a forwarder each side offers one chunk at a time, so a held chunk can end
    // its request and leave the socket free for express messages (request exclusion, 15.2.6 e);
    // a GPU's or aggregator's AT initiator would send its next chunk at END_REQ, so its link holds
    // without one (they send no express messages).
    if (f.fwd || f.cxl) d.dir->end_held_requests();  // a CXL port's AT initiator holds (hold_until_response)
    if (t.fwd) t.fwd->end_held_requests(t.in_ports++);
    f.out.push_back(static_cast<int>(dirs_.size()));
    dirs_.push_back(std::move(d));
  }
}

Fabric::Fabric(const Scenario& s, const std::vector<Gpu*>& gpus, const std::vector<CxlDevice*>& cxl, RunContext& ctx,
               const std::vector<Aggregator*>& aggs)
    : s_(s), ctx_(ctx) {
  // A debugging aid, off by default: a checker costs a hash lookup per hop (docs/fabric.md).
  if (const char* v = std::getenv("TRAINVP_CHECK_TLM"); v && *v && std::string(v) != "0") check_tlm_ = true;
  const ClusterConfig& c = s.cluster;
  const FabricConfig& f = c.fabric;
  const int G = c.gpus_per_node, N = c.nodes, nics = c.nics_per_node;
  const double pcie_bw = c.pcie.bandwidth_bps();
  gpu_device_.resize(gpus.size());
  nic_of_gpu_.resize(gpus.size());
  std::vector<int> nic_devices;  // in node-major order
  for (int n = 0; n < N; ++n) {
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
      psw.push_back(
          add_device(node + ".pcie" + std::to_string(k), DeviceKind::PcieSwitch, n, c.pcie.switch_latency_ps));
      connect(psw.back(), root, LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu, c.pcie.framing,
              f.switch_buffer);
    }
    for (int g = 0; g < G; ++g)
      connect(gdev[g], psw[static_cast<std::size_t>(g / per)], LinkKind::Pcie, pcie_bw, c.pcie.latency_ps, c.pcie.mtu,
              c.pcie.framing, f.switch_buffer);
    // NIC i serves the contiguous group of GPUs g with g x nics / G == i, and sits on the PCIe
    // switch of the first of them.
    for (int i = 0; i < nics; ++i) {
      int first_gpu = (i * G + nics - 1) / nics;
      int nic = add_device(node + ".nic" + std::to_string(i), DeviceKind::Nic, n, f.nic_latency_ps);
      connect(nic, psw[static_cast<std::size_t>(first_gpu / per)], LinkKind::Pcie, pcie_bw, c.pcie.latency_ps,
              c.pcie.mtu, c.pcie.framing, f.switch_buffer);
      nic_devices.push_back(nic);
    }
    for (int g = 0; g < G; ++g)
      nic_of_gpu_[static_cast<std::size_t>(n * G + g)] = nic_devices[static_cast<std::size_t>(n * nics + g * nics / G)];
    // The CXL device's ports, each on a PCIe switch (round-robin), with flit-framed links.
    device_map_.ports_of_node.emplace_back();
    CxlDevice* dev = n < static_cast<int>(cxl.size()) ? cxl[static_cast<std::size_t>(n)] : nullptr;
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
  const std::size_t gpu_nics = nic_devices.size();
  for (std::size_t a = 0; a < aggs.size(); ++a) {
    const std::string host = "agg" + std::to_string(a);
    const int node = N + static_cast<int>(a);
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
  const double agg_bw = c.aggregators.nic_bw > 0 ? c.aggregators.nic_bw : f.link_bw;
  // The network.
  auto eth = [&](int a, int b, double bw) {
    connect(a, b, LinkKind::Ethernet, bw, f.link_latency_ps, f.mtu, f.framing, f.switch_buffer);
  };
  if (f.topology == Topology::Switch) {
    int sw = add_device("switch", DeviceKind::Switch, -1, f.switch_latency_ps);
    for (std::size_t k = 0; k < nic_devices.size(); ++k) eth(nic_devices[k], sw, k < gpu_nics ? f.link_bw : agg_bw);
  } else {
    const int leaves = c.leaves, spines = c.spines;
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
  route_host_paths();
  attach_congestion_control();
  if (f.fidelity == FabricFidelity::Flow) {
    std::vector<LinkDir*> dirs;
    dirs.reserve(dirs_.size());
    for (FabricDir& d : dirs_) dirs.push_back(d.dir.get());
    flow_ = std::make_unique<FlowNetwork>("flow_network", std::move(dirs), ctx_.calendar());
  }
}

// Modules go in the reverse of their creation: SystemC's port and export registries find the
// one leaving by a linear search from their end, so first-to-last (std::vector's order) was
// quadratic in the links (a sixth of an 8,192-GPU run's CPU time).
Fabric::~Fabric() {
  while (!checkers_.empty()) checkers_.pop_back();
  flow_ports_.clear();
  flow_.reset();
  while (!dirs_.empty()) dirs_.pop_back();
  while (!devices_.empty()) devices_.pop_back();
}

std::vector<ChunkEndpoint*> Fabric::endpoints(const std::vector<Gpu*>& gpus) {
  if (!flow_) return {gpus.begin(), gpus.end()};
  std::vector<ChunkEndpoint*> out;
  for (Gpu* g : gpus) {
    flow_ports_.push_back(std::make_unique<FlowEndpoint>(*flow_, g->endpoint_name()));
    out.push_back(flow_ports_.back().get());
  }
  return out;
}

LinkDirTotals Fabric::dir_totals(std::size_t d, std::int64_t now_ps) const {
  return flow_ ? flow_->totals(static_cast<int>(d), now_ps) : dirs_[d].dir->totals(now_ps);
}

void Fabric::add_dir_repeats(std::size_t d, const LinkDirTotals& from, const LinkDirTotals& to, int times,
                             std::int64_t skip_from_ps, std::int64_t skip_to_ps) {
  if (flow_) flow_->add_repeats(static_cast<int>(d), from, to, times, skip_from_ps, skip_to_ps);
  else dirs_[d].dir->add_repeats(from, to, times, skip_from_ps, skip_to_ps);
}

void Fabric::set_owners(std::vector<int> owner_of_rank, std::size_t owners) {
  owner_of_rank_ = std::move(owner_of_rank);
  single_path_.clear();  // routes made before carry no owner: made afresh (the same paths)
  routes_.clear();
  for (FabricDir& d : dirs_) d.dir->set_owners(owners);
}

void Fabric::links_changed(const std::vector<int>& dirs) {
  if (flow_)
    for (int d : dirs) flow_->link_changed(d);
}

// The driver's TLPs enter the root complex from its socket (route entry 0) and take the shortest
// path to port 0; the device's come back the same way and leave the root complex to the driver.
void Fabric::route_host_paths() {
  for (const HostPath& h : host_paths_) {
    auto to = std::make_unique<Route>(), back = std::make_unique<Route>();
    to->ports.push_back(0);
    append_path(*to, h.root, h.port0, 0);
    append_path(*back, h.port0, h.root, 0);
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
      append_path(*mto, h.root, port, 0);
      append_path(*mback, port, h.root, 0);
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

bool Fabric::transit(int d) const {
  DeviceKind k = devices_[static_cast<std::size_t>(d)].kind;
  return k != DeviceKind::Gpu && k != DeviceKind::Nic && k != DeviceKind::CxlPort && k != DeviceKind::AggregatorPort;
}

// A down network direction costs this much more than its time: more than any path of the fabric
// takes, so a path avoids it whenever it can, and small enough that the ECMP tie test (relative
// 1e-12) still tells the up paths apart.
constexpr double kDownPenalty_s = 1.0;

double Fabric::cost(const FabricDir& d) const {
  const bool avoid = d.dir->down() && links_[static_cast<std::size_t>(d.link)].kind == LinkKind::Ethernet;
  return d.cost + (avoid ? kDownPenalty_s : 0.0);
}

void Fabric::down_changed() {
  dist_.clear();
  single_path_.clear();
  routes_.clear();
}

// Shortest time from every device to `target`, moving only through transit devices.
const Fabric::Dist& Fabric::dist_to(int target) {
  auto it = dist_.find(target);
  if (it != dist_.end()) return it->second;
  if (in_dirs_.empty()) {
    in_dirs_.resize(devices_.size());
    for (std::size_t i = 0; i < dirs_.size(); ++i)
      in_dirs_[static_cast<std::size_t>(dirs_[i].to)].push_back(static_cast<int>(i));
    transit_out_.resize(devices_.size());
    out_port_.assign(dirs_.size(), -1);
    for (std::size_t d = 0; d < devices_.size(); ++d) {
      const std::vector<int>& out = devices_[d].out;
      for (std::size_t k = 0; k < out.size(); ++k) {
        out_port_[static_cast<std::size_t>(out[k])] = static_cast<int>(k);
        if (transit(dirs_[static_cast<std::size_t>(out[k])].to)) transit_out_[d].push_back(static_cast<int>(k));
      }
    }
  }
  // An endpoint entered only from transit devices (a NIC from its leaf and its PCIe switch, a GPU
  // from its NVSwitch and PCIe switch): every path to it ends with one of those directions, so its
  // distance from a device is the least over them of that direction's cost plus the distance to its
  // source. Sharing the sources' searches keeps routing O(switches) searches rather than one search
  // of the whole fabric per endpoint (O(ranks^2) on a large cluster).
  const std::vector<int>& in = in_dirs_[static_cast<std::size_t>(target)];  // the searches below leave it
  const auto from_transit = [&](int e) { return transit(dirs_[static_cast<std::size_t>(e)].from); };
  if (!transit(target) && !in.empty() && std::all_of(in.begin(), in.end(), from_transit)) {
    std::vector<std::pair<int, double>> merged{{target, 0.0}};
    for (int e : in) {
      const FabricDir& last = dirs_[static_cast<std::size_t>(e)];
      const double c = cost(last);
      for (const auto& [device, d] : dist_to(last.from)) merged.emplace_back(device, d + c);
    }
    std::sort(merged.begin(), merged.end());  // by device, then its shortest first
    Dist derived;
    derived.reserve(merged.size());
    for (const auto& e : merged)
      if (derived.empty() || derived.back().first != e.first) derived.push_back(e);
    return dist_.emplace(target, std::move(derived)).first->second;
  }
  std::vector<double>& dist = scratch_;
  dist.assign(devices_.size(), std::numeric_limits<double>::infinity());
  std::vector<int> reached;
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
  dist[static_cast<std::size_t>(target)] = 0;
  reached.push_back(target);
  pq.push({0, target});
  while (!pq.empty()) {
    auto [dv, v] = pq.top();
    pq.pop();
    if (dv > dist[static_cast<std::size_t>(v)]) continue;
    if (v != target && !transit(v)) continue;  // may end a path, never continue one
    for (int e : in_dirs_[static_cast<std::size_t>(v)]) {
      int u = dirs_[static_cast<std::size_t>(e)].from;
      double nd = dv + cost(dirs_[static_cast<std::size_t>(e)]);
      if (nd < dist[static_cast<std::size_t>(u)]) {
        // Only devices a path may continue through are kept: an endpoint's (a NIC's, a GPU's)
        // distance is the minimum over its out-links, which append_path takes there. A NIC
        // target on a leaf-spine reaches every NIC: keeping them was O(NICs^2) memory.
        if (std::isinf(dist[static_cast<std::size_t>(u)]) && transit(u)) reached.push_back(u);
        dist[static_cast<std::size_t>(u)] = nd, pq.push({nd, u});
      }
    }
  }
  std::sort(reached.begin(), reached.end());
  Dist sparse;
  sparse.reserve(reached.size());
  for (int d : reached) sparse.emplace_back(d, dist[static_cast<std::size_t>(d)]);
  return dist_.emplace(target, std::move(sparse)).first->second;
}

double Fabric::dist_at(const Dist& d, int device) {
  auto it =
      std::lower_bound(d.begin(), d.end(), device, [](const std::pair<int, double>& e, int v) { return e.first < v; });
  return it != d.end() && it->first == device ? it->second : std::numeric_limits<double>::infinity();
}

void Fabric::next_hops(int cur, int from, int to, const Dist& dist, std::vector<std::pair<int, double>>& via,
                       std::vector<int>& best) const {
  const FabricDevice& d = devices_[static_cast<std::size_t>(cur)];
  // A device's distance is the shortest over its out-links (as Dijkstra computed it: the same
  // sums, so the same ties), found here rather than stored for every endpoint.
  // Eligible out-ports, ascending (the ECMP hash picks among them by position): those towards
  // transit devices, and those straight into `to` (found among its few entering directions).
  via.clear();
  double here = std::numeric_limits<double>::infinity();
  const std::vector<int>& transit_ports = transit_out_[static_cast<std::size_t>(cur)];
  std::vector<int> direct_ports;  // ports straight into an endpoint `to` (parallel links: several)
  if (!transit(to))
    for (int e : in_dirs_[static_cast<std::size_t>(to)])
      if (dirs_[static_cast<std::size_t>(e)].from == cur)
        direct_ports.push_back(out_port_[static_cast<std::size_t>(e)]);
  std::sort(direct_ports.begin(), direct_ports.end());
  const std::size_t direct = direct_ports.size();
  std::size_t t = 0, j = 0;
  while (t < transit_ports.size() || j < direct) {
    const bool take_direct = j < direct && (t == transit_ports.size() || direct_ports[j] < transit_ports[t]);
    const int k = take_direct ? direct_ports[j++] : transit_ports[t++];
    const FabricDir& e = dirs_[static_cast<std::size_t>(d.out[static_cast<std::size_t>(k)])];
    const double v = dist_at(dist, e.to) + cost(e);
    if (std::isinf(v)) continue;
    via.emplace_back(k, v);
    here = std::min(here, v);
  }
  if (std::isinf(here)) {
    if (cur == from)
      throw RunError("no path from " + devices_[static_cast<std::size_t>(from)].name + " to " +
                     devices_[static_cast<std::size_t>(to)].name);
    throw RunError("routing: no next hop at " + d.name + " towards " + devices_[static_cast<std::size_t>(to)].name);
  }
  best.clear();
  for (auto [k, v] : via)
    if (std::fabs(v - here) <= 1e-12 * std::max(1.0, here)) best.push_back(k);
}

bool Fabric::append_path(Route& r, int from, int to, std::uint32_t flow) {
  const Dist& dist = dist_to(to);
  int cur = from;
  std::uint32_t h = flow;
  bool choice = false;
  std::vector<std::pair<int, double>> via;  // eligible out-ports and their distance to `to`
  std::vector<int> best;                    // out-port indices on a shortest path
  while (cur != to) {
    next_hops(cur, from, to, dist, via, best);
    choice |= best.size() > 1;
    h = fmix32(h + kGoldenGamma32);  // a fresh hash per hop, deterministic per flow
    const int k = best[h % best.size()];
    const int dir = devices_[static_cast<std::size_t>(cur)].out[static_cast<std::size_t>(k)];
    r.ports.push_back(k);
    r.links.push_back(dir);
    cur = dirs_[static_cast<std::size_t>(dir)].to;
  }
  return choice;
}

const Route& Fabric::route(int src_rank, int dst_rank, std::uint32_t flow) {
  std::uint32_t bucket = flow % kEcmpBuckets;
  std::uint64_t key =
      (static_cast<std::uint64_t>(src_rank) << 40) | (static_cast<std::uint64_t>(dst_rank) << 8) | bucket;
  // A pair with one shortest path (no ECMP choice on the way) has the same route in every bucket
  // (routes_ holds it under the bucket that computed it, if any: the same route).
  const std::uint64_t pair = key & ~static_cast<std::uint64_t>(0xff);
  if (const Route* const* single = single_path_.find(pair)) return **single;
  if (const Route* const* it = routes_.find(key)) return **it;
  auto r = std::make_unique<Route>();
  const auto s = static_cast<std::size_t>(src_rank), d = static_cast<std::size_t>(dst_rank);
  const bool choice = build_route(*r, gpu_device_[s], nic_of_gpu_[s], gpu_device_[d], nic_of_gpu_[d], bucket);
  if (s < owner_of_rank_.size()) r->owner = owner_of_rank_[s];
  const Route& out = *r;
  owned_routes_.push_back(std::move(r));
  routes_[key] = &out;
  if (!choice) single_path_[pair] = &out;
  return out;
}

bool Fabric::build_route(Route& r, int src, int snic, int dst, int dnic, std::uint32_t bucket) {
  if (devices_[static_cast<std::size_t>(src)].node == devices_[static_cast<std::size_t>(dst)].node)
    return append_path(r, src, dst, bucket);
  bool choice = append_path(r, src, snic, bucket);
  choice |= append_path(r, snic, dnic, bucket);
  choice |= append_path(r, dnic, dst, bucket);
  return choice;
}

void Fabric::attach_source(int nic_device, tlm::tlm_initiator_socket<>& source) {
  bind_pair(source, devices_[static_cast<std::size_t>(nic_device)].fwd->in);
  ++devices_[static_cast<std::size_t>(nic_device)].in_ports;
}

int Fabric::attach_sink(int nic_device, tlm::tlm_target_socket<>& sink) {
  Forwarder& f = *devices_[static_cast<std::size_t>(nic_device)].fwd;
  const int port = static_cast<int>(f.out.size());
  bind_pair(f.out, sink);
  return port;
}

const Route& Fabric::nic_route(int src_nic, int dst_nic, int sink_port, std::uint32_t flow) {
  const std::uint32_t bucket = flow % kEcmpBuckets;
  // Bit 63 keeps these apart from the ranks' routes (ranks and devices are below 2^20).
  const std::uint64_t key = (1ull << 63) | (static_cast<std::uint64_t>(src_nic) << 42) |
                            (static_cast<std::uint64_t>(dst_nic) << 22) | (static_cast<std::uint64_t>(sink_port) << 6) |
                            bucket;
  if (const Route* const* it = routes_.find(key)) return **it;
  auto r = std::make_unique<Route>();
  r->ports.push_back(0);
  append_path(*r, src_nic, dst_nic, bucket);
  r->ports.push_back(sink_port);
  const Route& out = *r;
  owned_routes_.push_back(std::move(r));
  routes_[key] = &out;
  return out;
}

void Fabric::trace_nics() {
  if (!ctx_.trace.enabled()) return;
  for (auto& d : dirs_) {
    const FabricDevice& from = devices_[static_cast<std::size_t>(d.from)];
    if (from.kind != DeviceKind::Nic || links_[static_cast<std::size_t>(d.link)].kind != LinkKind::Ethernet) continue;
    const std::size_t dot = from.name.find('.');  // nodeN.nicI, aggA.nicI
    d.dir->trace_on(ctx_.trace.track(from.name.substr(0, dot), from.name.substr(dot + 1)));
  }
}

void Fabric::flush_trace() {
  if (flow_) flow_->settle();
  for (auto& d : dirs_) d.dir->flush_trace();
}

nlohmann::ordered_json Fabric::describe() const {
  using oj = nlohmann::ordered_json;
  oj devs = oj::array(), links = oj::array();
  for (auto& d : devices_) {
    oj e = {{"name", d.name}, {"kind", device_kind_name(d.kind)}};
    if (d.node >= 0) e["node"] = d.node;
    devs.push_back(e);
  }
  for (auto& l : links_)
    links.push_back({{"name", l.name},
                     {"kind", link_kind_name(l.kind)},
                     {"a", devices_[static_cast<std::size_t>(l.a)].name},
                     {"b", devices_[static_cast<std::size_t>(l.b)].name},
                     {"bandwidth_bps", l.bandwidth_bps},
                     {"latency_s", static_cast<double>(l.latency_ps) * 1e-12}});
  oj gpus = oj::array();
  for (std::size_t r = 0; r < gpu_device_.size(); ++r) {
    if (devices_[static_cast<std::size_t>(gpu_device_[r])].kind != DeviceKind::Gpu) continue;
    gpus.push_back({{"rank", r},
                    {"name", devices_[static_cast<std::size_t>(gpu_device_[r])].name},
                    {"nic", devices_[static_cast<std::size_t>(nic_of_gpu_[r])].name}});
  }
  return {{"devices", devs}, {"links", links}, {"gpus", gpus}};
}

nlohmann::ordered_json Fabric::report_links(std::int64_t end_ps) const {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const FabricDir& d : dirs_) {
    if (d.dir->stats().chunks == 0) continue;
    nlohmann::ordered_json o = {{"name", d.dir->label()}, {"link", links_[static_cast<std::size_t>(d.link)].name}};
    d.dir->report(o, end_ps);
    links.push_back(o);
  }
  return links;
}

std::string Fabric::tier_of(const FabricDir& d) const {
  const FabricLink& l = links_[static_cast<std::size_t>(d.link)];
  const bool spine = devices_[static_cast<std::size_t>(l.a)].kind == DeviceKind::Spine ||
                     devices_[static_cast<std::size_t>(l.b)].kind == DeviceKind::Spine;
  return l.kind == LinkKind::Ethernet ? (spine ? "spine" : "nic") : link_kind_name(l.kind);
}

nlohmann::ordered_json Fabric::report_tiers() const {
  nlohmann::ordered_json t = {{"nvlink_bytes", 0}, {"pcie_bytes", 0}, {"nic_bytes", 0}, {"spine_bytes", 0}};
  for (const FabricDir& d : dirs_) {
    const std::string key = tier_of(d) + "_bytes";
    t[key] = t.value(key, std::uint64_t{0}) + d.dir->stats().payload_bytes;
  }
  return t;
}

// Written link by link into one string: a JSON tree of every link's intervals would take tens of
// bytes per number (hundreds of MB at thousands of GPUs) where the text takes a few.
std::string Fabric::report_series(std::int64_t end_ps, const std::vector<std::string>& owners) const {
  std::int64_t widest = 0, last = end_ps;
  for (const FabricDir& d : dirs_) {
    const BusySeries& b = d.dir->busy_series();
    if (!b.empty()) widest = std::max(widest, b.width_ps()), last = std::max(last, b.last_end_ps());
  }
  const std::int64_t width = BusySeries::common_width(last, widest);
  const auto n = static_cast<std::size_t>((last + width - 1) / width);
  nlohmann::ordered_json head = {{"simulated_s", sec(end_ps)}, {"interval_s", sec(width)}, {"intervals", n}};
  if (!owners.empty()) head["jobs"] = owners;
  std::string out = head.dump();
  out.pop_back();  // its closing brace: the links follow
  out += ",\"links\":[";
  bool first = true;
  for (const FabricDir& d : dirs_) {
    if (d.dir->stats().chunks == 0) continue;  // as report_links
    nlohmann::ordered_json l = {{"name", d.dir->label()},
                                {"tier", tier_of(d)},
                                {"bytes", d.dir->stats().payload_bytes},
                                {"busy_s", sec(d.dir->stats().busy_ps)}};
    nlohmann::ordered_json busy = nlohmann::ordered_json::array();
    for (double ps : d.dir->busy_series().at_width(width, n)) busy.push_back(ps * 1e-12);
    l["busy"] = std::move(busy);
    if (!owners.empty()) l["job_bytes"] = d.dir->owner_bytes();
    out += (first ? "" : ",") + l.dump();
    first = false;
  }
  return out + "]}";
}

}  // namespace trainvp
