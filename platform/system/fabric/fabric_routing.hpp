#pragma once
// Routes over an elaborated fabric: shortest paths by time (each direction's cost: latency + 1 MiB
// at the link rate), with ECMP by flow hash among equal-cost next hops. Paths move only through
// transit devices (switches, NVSwitches, PCIe switches, root complexes); endpoints and NICs only
// start or end one.
//
// Routing around down links: a network (Ethernet) link direction that is down costs a penalty far
// above any path's time, so new routes take an equal or longer alternative where one exists (other
// spines of a leaf-spine) and go through the down link, to wait there, only where none does (a
// NIC's only uplink, the single switch). Down NVLink, PCIe and CXL links are not avoided: a node's
// transport is fixed when the job starts.
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/link/chunk.hpp"  // Route
#include "platform/system/fabric/fabric_topology.hpp"

namespace trainvp {

class FabricRouter {
 public:
  // Reads the fabric's devices and directions as they are when it first routes (after elaboration).
  FabricRouter(const std::vector<FabricDevice>& devices, const std::vector<FabricDir>& dirs)
      : devices_(devices), dirs_(dirs) {}

  static constexpr std::uint32_t kEcmpBuckets = 64;  // paths per (src, dst): ECMP hashes flows into these

  // Appends the hops from device `from` to `to`; returns whether ECMP had a choice on the way.
  bool append_path(Route& r, int from, int to, std::uint32_t flow);
  // The hops from endpoint device src (NIC snic) to dst (NIC dnic); returns whether ECMP chose.
  // Within a node the path goes straight; between nodes through the two NICs.
  bool build_route(Route& r, int src, int snic, int dst, int dnic, std::uint32_t bucket);
  // Every equal-cost path at once, hop by hop: per hop, the directions some ECMP bucket takes.
  using Layers = std::vector<std::vector<int>>;
  Layers build_layers(int src, int snic, int dst, int dnic);
  // A link direction went down or came up: distances are computed afresh.
  void forget_distances() { dist_.clear(); }

 private:
  // Shortest times to a target, only the transit devices that reach it and the target itself
  // (sorted by device): a dense vector per target would hold O(devices) doubles for each of
  // O(ranks) targets, and the endpoints' own entries O(NICs) per NIC target on a leaf-spine.
  // An endpoint entered only from transit devices (a NIC, a GPU) keeps no list of its own: its
  // time from a device is the least over its entering directions of their cost plus the time to
  // their source, read from the sources' lists (a copy per NIC of its leaf's list held every
  // switch of a three-tier Clos once per NIC: 443 MB at 16,384 NICs).
  using Times = std::vector<std::pair<int, double>>;
  struct Dist {
    Times own;        // a transit target's (or an endpoint's entered from an endpoint)
    int target = -1;  // >= 0: an endpoint entered only from transit devices, 0 there, else `via`
    std::vector<std::pair<const Times*, double>> via;  // its entering directions' sources and costs
  };
  const Dist& dist_to(int target);
  static double dist_at(const Dist& d, int device);
  static double times_at(const Times& t, int device);
  double cost(const FabricDir& d) const;
  bool transit(int device) const;
  // The out-ports of `cur` on a shortest path to `to` (`via`: scratch); throws RunError for none.
  void next_hops(int cur, int from, int to, const Dist& dist, std::vector<std::pair<int, double>>& via,
                 std::vector<int>& best) const;
  void append_layers(Layers& out, int from, int to);
  void index_directions();  // in_dirs_, transit_out_ and out_port_, on first use

  const std::vector<FabricDevice>& devices_;
  const std::vector<FabricDir>& dirs_;
  std::unordered_map<int, Dist> dist_;
  std::vector<std::vector<int>> in_dirs_;  // per device, the directions entering it
  // Per device, its out-ports towards transit devices (ascending), and per direction its out-port
  // index. A next hop is one of those or the port straight to the target: a leaf's hundreds of NIC
  // ports are not scanned for every route.
  std::vector<std::vector<int>> transit_out_;
  std::vector<int> out_port_;
  std::vector<double> scratch_;  // dense distances of the target being computed
};

}  // namespace trainvp
