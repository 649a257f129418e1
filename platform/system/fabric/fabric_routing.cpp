// Routing (fabric_routing.hpp): FabricRouter's shortest paths, next hops and ECMP, and the
// fabric's route caches keyed by rank.
#include "platform/system/fabric/fabric_routing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <set>

#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"
#include "platform/system/fabric/fabric.hpp"

namespace trainvp {

// ECMP hashes with fmix32 (platform/core/hash.hpp): every input bit moves every output bit, or
// flows that differ only in high bits would share a path.

bool FabricRouter::transit(int d) const {
  DeviceKind k = devices_[static_cast<std::size_t>(d)].kind;
  return k != DeviceKind::Gpu && k != DeviceKind::Nic && k != DeviceKind::CxlPort && k != DeviceKind::AggregatorPort &&
         k != DeviceKind::NvlsUnit;
}

// A down network direction costs this much more than its time: more than any path of the fabric
// takes, so a path avoids it whenever it can, and small enough that the ECMP tie test (relative
// 1e-12) still tells the up paths apart.
constexpr double kDownPenalty_s = 1.0;

double FabricRouter::cost(const FabricDir& d) const {
  const bool avoid = d.kind == LinkKind::Ethernet && d.dir->down();
  return d.cost + (avoid ? kDownPenalty_s : 0.0);
}

void FabricRouter::index_directions() {
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

// Shortest time from every device to `target`, moving only through transit devices.
const FabricRouter::Dist& FabricRouter::dist_to(int target) {
  auto it = dist_.find(target);
  if (it != dist_.end()) return it->second;
  if (in_dirs_.empty()) index_directions();
  // An endpoint entered only from transit devices (a NIC from its leaf and its PCIe switch, a GPU
  // from its NVSwitch and PCIe switch): every path to it ends with one of those directions, so its
  // distance from a device is the least over them of that direction's cost plus the distance to its
  // source. Sharing the sources' searches keeps routing O(switches) searches rather than one search
  // of the whole fabric per endpoint (O(ranks^2) on a large cluster).
  const std::vector<int>& in = in_dirs_[static_cast<std::size_t>(target)];  // the searches below leave it
  const auto from_transit = [&](int e) { return transit(dirs_[static_cast<std::size_t>(e)].from); };
  if (!transit(target) && !in.empty() && std::all_of(in.begin(), in.end(), from_transit)) {
    Dist derived;
    derived.target = target;
    for (int e : in) {
      const FabricDir& last = dirs_[static_cast<std::size_t>(e)];
      const double c = cost(last);
      derived.via.emplace_back(&dist_to(last.from).own, c);  // a transit source's: a list of its own
    }
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
      // Only devices a path may continue through are kept, or searched on: an endpoint's (a NIC's,
      // a GPU's) distance is the minimum over its out-links, which append_path takes there. A NIC
      // target on a leaf-spine reaches every NIC: keeping them was O(NICs^2) memory, and queueing
      // them a leaf's every NIC in every search.
      if (!transit(u)) continue;
      double nd = dv + cost(dirs_[static_cast<std::size_t>(e)]);
      if (nd < dist[static_cast<std::size_t>(u)]) {
        if (std::isinf(dist[static_cast<std::size_t>(u)])) reached.push_back(u);
        dist[static_cast<std::size_t>(u)] = nd, pq.push({nd, u});
      }
    }
  }
  std::sort(reached.begin(), reached.end());
  Dist sparse;
  sparse.own.reserve(reached.size());
  for (int d : reached) sparse.own.emplace_back(d, dist[static_cast<std::size_t>(d)]);
  return dist_.emplace(target, std::move(sparse)).first->second;
}

double FabricRouter::times_at(const Times& t, int device) {
  auto it =
      std::lower_bound(t.begin(), t.end(), device, [](const std::pair<int, double>& e, int v) { return e.first < v; });
  return it != t.end() && it->first == device ? it->second : std::numeric_limits<double>::infinity();
}

// The least over the entering directions of the same sums a merged list held (source's time plus
// the direction's cost), so the same ties.
double FabricRouter::dist_at(const Dist& d, int device) {
  if (d.target < 0) return times_at(d.own, device);
  if (device == d.target) return 0.0;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& [times, c] : d.via) best = std::min(best, times_at(*times, device) + c);
  return best;
}

void FabricRouter::next_hops(int cur, int from, int to, const Dist& dist, std::vector<std::pair<int, double>>& via,
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

bool FabricRouter::append_path(Route& r, int from, int to, std::uint32_t flow) {
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

bool FabricRouter::build_route(Route& r, int src, int snic, int dst, int dnic, std::uint32_t bucket) {
  if (devices_[static_cast<std::size_t>(src)].node == devices_[static_cast<std::size_t>(dst)].node)
    return append_path(r, src, dst, bucket);
  bool choice = append_path(r, src, snic, bucket);
  choice |= append_path(r, snic, dnic, bucket);
  choice |= append_path(r, dnic, dst, bucket);
  return choice;
}

void FabricRouter::append_layers(Layers& out, int from, int to) {
  const Dist& dist = dist_to(to);
  std::vector<int> frontier{from};
  std::vector<std::pair<int, double>> via;
  std::vector<int> best;
  // Equal-cost paths may differ in length: one that has arrived waits at `to` for the others.
  while (frontier.size() > 1 || frontier[0] != to) {
    std::set<int> dirs, next;
    for (int cur : frontier) {
      if (cur == to) {
        next.insert(cur);
        continue;
      }
      next_hops(cur, from, to, dist, via, best);
      for (int k : best) {
        const int dir = devices_[static_cast<std::size_t>(cur)].out[static_cast<std::size_t>(k)];
        dirs.insert(dir);
        next.insert(dirs_[static_cast<std::size_t>(dir)].to);
      }
    }
    out.emplace_back(dirs.begin(), dirs.end());
    frontier.assign(next.begin(), next.end());
  }
}

FabricRouter::Layers FabricRouter::build_layers(int src, int snic, int dst, int dnic) {
  Layers out;
  if (devices_[static_cast<std::size_t>(src)].node == devices_[static_cast<std::size_t>(dst)].node) {
    append_layers(out, src, dst);
    return out;
  }
  append_layers(out, src, snic);
  append_layers(out, snic, dnic);
  append_layers(out, dnic, dst);
  return out;
}

// The fabric's routes: computed once per (ranks, ECMP bucket) and kept.

void Fabric::down_changed() {
  router_.forget_distances();
  single_path_.clear();
  if (flow_) flow_->cut_ahead();  // a ring running ahead goes on by the new routes from its next step
  routes_.clear();
  ++routes_version_;
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
  const bool choice = router_.build_route(*r, gpu_device_[s], nic_of_gpu_[s], gpu_device_[d], nic_of_gpu_[d], bucket);
  if (s < owner_of_rank_.size()) r->owner = owner_of_rank_[s];
  const Route& out = *r;
  owned_routes_.push_back(std::move(r));
  routes_[key] = &out;
  if (!choice) single_path_[pair] = &out;
  return out;
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
  router_.append_path(*r, src_nic, dst_nic, bucket);
  r->ports.push_back(sink_port);
  const Route& out = *r;
  owned_routes_.push_back(std::move(r));
  routes_[key] = &out;
  return out;
}

}  // namespace trainvp
