#pragma once
// What an elaborated fabric is made of: devices (endpoints, NICs, switches, each with its
// forwarder in packet fidelity), link directions (each a LinkState, a LinkDir module in packet
// fidelity, with its routing cost) and full-duplex links. Fabric builds them (fabric_topology.cpp)
// and FabricRouter routes over them (fabric_routing.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/aggregator/aggregator.hpp"
#include "models/cxl/cxl_device.hpp"
#include "models/gpu/gpu.hpp"
#include "models/link/forwarder.hpp"
#include "models/link/link_dir.hpp"
#include "models/nvswitch/nvls_unit.hpp"

namespace trainvp {

enum class DeviceKind {
  Gpu,
  Nic,
  Switch,
  Leaf,
  Spine,
  Core,
  NvSwitch,
  PcieSwitch,
  RootComplex,
  CxlPort,
  AggregatorPort,
  NvlsUnit
};
const char* device_kind_name(DeviceKind k);

// What a link is: the network's Ethernet (RoCE) or InfiniBand, NVLink to the NVSwitch, PCIe inside
// a node, CXL to a device. Routing, PFC, congestion and the tiers of link_tiers test it.
enum class LinkKind { Ethernet, Nvlink, Pcie, Cxl };
const char* link_kind_name(LinkKind k);  // "ethernet", "nvlink", "pcie", "cxl": results and describe

struct FabricDevice {
  std::string name;
  DeviceKind kind;
  int node = -1;       // -1 for network switches
  Gpu* gpu = nullptr;  // endpoints
  CxlPort* cxl = nullptr;
  AggregatorPort* agg = nullptr;
  NvlsUnit* nvls = nullptr;
  std::unique_ptr<Forwarder> fwd;  // everything else, in packet fidelity (flow fidelity forwards no chunks)
  std::vector<int> out;            // directions leaving this device, by out-port index
  int in_ports = 0;                // bound into fwd->in so far (in-ports number in bind order)
  int sinks = 0;                   // traffic sinks attached (Fabric::attach_sink), out-ports after `out`
  std::int64_t egress_latency_ps = 0;
};

struct FabricDir {
  int from = 0, to = 0;
  int link = 0;                        // index of the full-duplex link
  LinkKind kind = LinkKind::Ethernet;  // its link's, kept here for the routing cost of every edge
  std::unique_ptr<LinkState> dir;      // its parameters, state and statistics, in either fidelity
  LinkDir* packet = nullptr;           // dir as the module that carries chunks; null in flow fidelity
  double cost = 0;                     // routing metric, seconds
};

struct FabricLink {
  std::string name;  // link:a-b
  LinkKind kind = LinkKind::Ethernet;
  int a = 0, b = 0;  // devices
  double bandwidth_bps = 0;
  std::int64_t latency_ps = 0;
};

}  // namespace trainvp
