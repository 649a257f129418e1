#pragma once
// Elaborates the fabric of a scenario: per node an NVSwitch (when the GPUs have NVLink), PCIe
// switches and a root complex, NICs; between nodes one switch or a leaf-spine. Every device and
// link has a stable name (node3.gpu2, node3.nic2, leaf1, link:node3.nic2-leaf1). Routes come from
// FabricRouter (fabric_routing.hpp: shortest paths by time, ECMP by flow hash, down network links
// avoided); traffic between nodes leaves through the source GPU's NIC and enters through the
// destination GPU's NIC. Routes already handed out keep their path.
//
// The files: fabric_topology.cpp builds it, fabric_routing.cpp routes, fabric_placement.cpp moves
// ranks between nodes (S3), fabric_pfc.cpp and fabric_congestion.cpp its flow control, and
// fabric.cpp the rest (endpoints, jobs, traces, reports).
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/engine.hpp"
#include "models/link/congestion.hpp"
#include "models/link/flow_network.hpp"
#include "platform/config/scenario.hpp"
#include "platform/core/flat_map.hpp"
#include "platform/core/tlm/protocol_checker.hpp"
#include "platform/system/fabric/fabric_routing.hpp"
#include "platform/system/fabric/fabric_topology.hpp"

namespace trainvp {

class Fabric : public RouteProvider {
 public:
  // Throws ScenarioError (path under /cluster) for a fabric that cannot be built.
  // cxl[n]: node n's CXL device, or null. Its ports become endpoints numbered after the GPUs'
  // ranks, in node order (the collective engine registers them in the same order).
  // aggs: the CPU aggregator nodes (aggA, "node" N + A); each NIC i is a host aggA.nicI on the
  // network, joined to the aggregator's port aggA.pI by a PCIe link. Their ports are endpoints
  // numbered after the CXL ports. nvls[n]: node n's NVLink SHARP unit, or null; each becomes an
  // endpoint on its node's NVSwitch, numbered after the aggregators' ports.
  Fabric(const Scenario& s, const std::vector<Gpu*>& gpus, const std::vector<CxlDevice*>& cxl, RunContext& ctx,
         const std::vector<Aggregator*>& aggs = {}, const std::vector<NvlsUnit*>& nvls = {});
  ~Fabric() override;

  const Route& route(int src_rank, int dst_rank, std::uint32_t flow) override;
  std::uint64_t routes_version() const override { return routes_version_; }
  // A link direction went down or came up (faults): routes handed out from now on are computed
  // afresh. Those handed out before stay valid (in-flight chunks point at them) and keep their path.
  void down_changed();
  // Faults changed these link directions' parameters; the flow network (flow fidelity) re-reads them.
  void links_changed(const std::vector<int>& dirs);
  // Flow fidelity (fabric.fidelity "flow"): the network the collectives' transfers go through as
  // flows, null in packet fidelity. The links' names, routes, faults and statistics are the same in
  // both fidelities; in flow fidelity they are LinkStates, without a LinkDir module or forwarders.
  FlowNetwork* flow() { return flow_.get(); }
  // Steady-state fast-forward: link direction d's counters up to now_ps, and `times` x their
  // growth from `from` to `to` added for skipped iterations; the flow network's in flow fidelity.
  LinkDirTotals dir_totals(std::size_t d, std::int64_t now_ps) const;
  // The skipped iterations' busy time is spread over [skip_from_ps, skip_to_ps) in the busy series.
  void add_dir_repeats(std::size_t d, const LinkDirTotals& from, const LinkDirTotals& to, int times,
                       std::int64_t skip_from_ps, std::int64_t skip_to_ps);
  // Jobs (elaboration, before traffic): owner_of_rank[r] is the index of the job rank r sends for
  // (-1: none) among `owners`; every link direction then counts its payload bytes per job.
  void set_owners(std::vector<int> owner_of_rank, std::size_t owners);
  // The endpoints the collective engine sends through: the GPUs, or their flow-fidelity stand-ins.
  std::vector<ChunkEndpoint*> endpoints(const std::vector<Gpu*>& gpus);

  // Background traffic (congestion faults) in packet fidelity: binds a source's socket into a
  // NIC's forwarder, or the NIC's forwarder to a sink (returning the sink's out-port index there).
  // Elaboration only, after the fabric is built (routing ignores these ports). In flow fidelity
  // there are no forwarders: attach_sink takes no sink and numbers its out-port alike.
  void attach_source(int nic_device, tlm::tlm_initiator_socket<>& source);
  int attach_sink(int nic_device, tlm::tlm_target_socket<>* sink);
  // The route of background traffic entering at `src_nic` and leaving to out-port `sink_port` of
  // `dst_nic`: ports[0] is unused (the source has one socket), then the hops as for any transfer.
  const Route& nic_route(int src_nic, int dst_nic, int sink_port, std::uint32_t flow);
  // S3's role swap (flow fidelity only: in packet fidelity a GPU's chunks leave by its own bound
  // port): the ranks elaborated on node s run from now on on node at[s]'s GPUs, NICs and CXL
  // ports, in local order; routes handed out from now on follow them, those in flight keep their
  // path. Throws RunError in packet fidelity, std::invalid_argument for a non-permutation.
  void place_nodes(const std::vector<int>& at);
  // Per node slot, the node it sits on (identity until place_nodes).
  std::vector<int> node_placement() const;
  // The link directions from endpoint `src` to `dst` as elaborated (before any place_nodes),
  // for ECMP bucket `flow`: the physical path a rank placed there would take.
  std::vector<int> elaborated_path(int src, int dst, std::uint32_t flow);
  // The path rank src's transfers to rank dst took at time at_ps, for ECMP bucket `flow` (the
  // placement then in effect; a diagnosis names ranks where they were when it was made).
  std::vector<int> path_at(int src_rank, int dst_rank, std::int64_t at_ps, std::uint32_t flow);
  // Every equal-cost path at once, hop by hop: per hop, the directions some ECMP bucket takes
  // there (one where routing has no choice). From rank to rank where they are now, or from
  // endpoint to endpoint as elaborated.
  using Layers = FabricRouter::Layers;
  Layers route_layers(int src_rank, int dst_rank);
  Layers elaborated_layers(int src, int dst);
  // Every equal-cost path from rank to rank where they were at at_ps (place_nodes may have moved them since).
  Layers layers_at(int src_rank, int dst_rank, std::int64_t at_ps);
  const std::vector<FabricDevice>& devices() const { return devices_; }
  const std::vector<FabricDir>& dirs() const { return dirs_; }
  const std::vector<FabricLink>& links() const { return links_; }
  int device_of_rank(int rank) const { return gpu_device_[static_cast<std::size_t>(rank)]; }
  // The node rank's GPU was elaborated on (its node slot), whatever place_nodes did since.
  int elaborated_node(int rank) const { return devices_[static_cast<std::size_t>(elaborated_at(rank).first)].node; }
  const DeviceMap& device_map() const { return device_map_; }
  int nic_of_rank(int rank) const { return nic_of_gpu_[static_cast<std::size_t>(rank)]; }
  nlohmann::ordered_json describe() const;
  // results.json `links`: every link direction that carried traffic, over a run that ended at `end_ps`.
  nlohmann::ordered_json report_links(std::int64_t end_ps) const;
  // results.json `link_tiers`: payload bytes by tier, both directions of every link together:
  // nvlink, pcie (GPUs and NICs to their PCIe switch, switches to the root complex), nic (NIC to
  // its switch or leaf), spine (leaf to spine), and cxl when the nodes have CXL devices.
  nlohmann::ordered_json report_tiers() const;
  // link_series.json (docs/outputs.md#link_seriesjson): every link direction of report_links with
  // its tier and its busy time in each interval of the run, at one width for all; with jobs, the
  // payload bytes of each (`owners`: their names, as set_owners numbered them).
  std::string report_series(std::int64_t end_ps, const std::vector<std::string>& owners) const;
  // The key of link_tiers that counts direction d's bytes: nvlink, pcie, cxl, nic, spine (leaf to
  // spine) or core (spine to core, three-tier only).
  std::string tier_of(const FabricDir& d) const;
  // results.json `pfc` (fabric_pfc.cpp): PFC totals over every Ethernet port; null in egress mode.
  nlohmann::ordered_json report_pfc(std::int64_t end_ps) const;
  // Trace tracks for the NICs' network ports; flush at the end of the run.
  void trace_nics();
  // ECN and DCQCN (fabric.congestion_control "dcqcn"), null otherwise.
  const CongestionControl* congestion() const { return cc_.get(); }
  void flush_trace();
  // With TRAINVP_CHECK_TLM set (non-empty, not "0"), every socket pair the fabric binds goes
  // through one of these, so a whole run is checked against the TLM-2.0 base protocol; empty otherwise.
  const std::vector<std::unique_ptr<ProtocolChecker>>& protocol_checkers() const { return checkers_; }

 private:
  // from -> to, or from -> checker -> to when checking (protocol_checkers).
  template <class From, class To>
  void bind_pair(From& from, To& to) {
    if (!check_tlm_) {
      from.bind(to);
      return;
    }
    checkers_.push_back(std::make_unique<ProtocolChecker>(("tlm_check" + std::to_string(checkers_.size())).c_str()));
    from.bind(checkers_.back()->in);
    checkers_.back()->out.bind(to);
  }
  // Building (fabric_topology.cpp).
  int add_device(std::string name, DeviceKind kind, int node, std::int64_t egress_latency_ps);
  void connect(int a, int b, LinkKind kind, double bps, std::int64_t latency_ps, int mtu, int framing,
               std::uint64_t buffer, bool whole_packets = false);
  // Node n's devices and links; its NICs are appended to nic_devices. dev: its CXL device, or null.
  void build_node(int n, const std::vector<Gpu*>& gpus, CxlDevice* dev, std::vector<int>& nic_devices);
  void build_aggregators(const std::vector<Aggregator*>& aggs, std::vector<int>& nic_devices);
  void build_nvls_units(const std::vector<NvlsUnit*>& units);
  void build_network(const std::vector<int>& nic_devices, std::size_t gpu_nics);
  void build_three_tier(const std::vector<int>& nic_devices, std::size_t gpu_nics, double agg_bw);
  void route_host_paths();
  void attach_congestion_control();  // fabric_congestion.cpp
  static constexpr std::uint32_t kEcmpBuckets = FabricRouter::kEcmpBuckets;
  int placed_endpoint(int endpoint, std::int64_t at_ps) const;  // its elaborated endpoint at at_ps

  const Scenario& s_;
  RunContext& ctx_;
  std::vector<FabricDevice> devices_;
  std::vector<FabricDir> dirs_;
  std::vector<FabricLink> links_;
  bool check_tlm_ = false;
  std::vector<std::unique_ptr<ProtocolChecker>> checkers_;
  FabricRouter router_{devices_, dirs_};      // after them: it reads them
  std::vector<int> gpu_device_, nic_of_gpu_;  // by endpoint id: GPUs, then device ports
  std::vector<int> elab_device_, elab_nic_;   // the same as elaborated (kept by place_nodes)
  // Endpoint e's device and NIC as elaborated (the current ones until place_nodes).
  std::pair<int, int> elaborated_at(int e) const {
    const auto i = static_cast<std::size_t>(e);
    return elab_device_.empty() ? std::pair{gpu_device_[i], nic_of_gpu_[i]} : std::pair{elab_device_[i], elab_nic_[i]};
  }
  // Each placement (per node slot: its node), from when; none: every slot on its own node.
  std::vector<std::pair<std::int64_t, std::vector<int>>> placements_;
  DeviceMap device_map_;
  std::vector<int> nvswitch_of_node_;  // per node, its NVSwitch device (-1: none)
  // Every route computed, kept for the run (chunks in flight point at routes from before a down
  // change); looked up once per transfer through flat tables (the lookup was a cache miss per
  // transfer through std::unordered_map's nodes on large clusters).
  std::vector<std::unique_ptr<Route>> owned_routes_;
  FlatMap64<const Route*> routes_;       // (src, dst, ECMP bucket) -> route
  std::uint64_t routes_version_ = 0;     // moves with every routes_.clear()
  FlatMap64<const Route*> single_path_;  // (src, dst) with one shortest path -> its route
  std::vector<int> owner_of_rank_;       // set_owners: stamped on each route made from then on
  // A CXL device's host driver on its node's root complex: the driver's socket is the root
  // complex's out-port `rc_port` (not a link: no routes but these use it).
  struct HostPath {
    CxlDevice* dev;
    int root, port0, rc_port;
    std::vector<int> ports;  // every port (CXL.mem reaches them all)
  };
  std::vector<HostPath> host_paths_;
  std::vector<std::unique_ptr<Route>> host_routes_;
  std::unique_ptr<FlowNetwork> flow_;
  std::unique_ptr<CongestionControl> cc_;
  std::vector<std::unique_ptr<FlowEndpoint>> flow_ports_;
};

}  // namespace trainvp
