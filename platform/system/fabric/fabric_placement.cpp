// S3's role swap in the fabric (docs/health.md#s3-topology-adjustment): ranks moved onto other
// nodes' devices, the paths ranks took where they were placed before, and every equal-cost path
// of a pair at once (the mitigation localizes slow links and weighs placements with them).
#include <stdexcept>

#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/system/fabric/fabric.hpp"

namespace trainvp {

void Fabric::place_nodes(const std::vector<int>& at) {
  if (!flow_)
    throw RunError(
        "moving ranks between nodes needs fabric.fidelity \"flow\": in packet fidelity a GPU's chunks leave by its own port");
  const int G = s_.cluster.gpus_per_node, N = s_.cluster.nodes;
  std::vector<bool> seen(static_cast<std::size_t>(N), false);
  if (static_cast<int>(at.size()) != N) throw std::invalid_argument("place_nodes: one node per slot");
  for (int n : at) {
    if (n < 0 || n >= N || seen[static_cast<std::size_t>(n)])
      throw std::invalid_argument("place_nodes: not a permutation of the nodes");
    seen[static_cast<std::size_t>(n)] = true;
  }
  if (elab_device_.empty()) elab_device_ = gpu_device_, elab_nic_ = nic_of_gpu_;
  auto take = [&](std::size_t endpoint, std::size_t from) {
    gpu_device_[endpoint] = elab_device_[from];
    nic_of_gpu_[endpoint] = elab_nic_[from];
  };
  for (int n = 0; n < N; ++n) {
    const int to = at[static_cast<std::size_t>(n)];
    for (int g = 0; g < G; ++g) take(static_cast<std::size_t>(n * G + g), static_cast<std::size_t>(to * G + g));
    const auto& mine = device_map_.ports_of_node[static_cast<std::size_t>(n)];
    const auto& there = device_map_.ports_of_node[static_cast<std::size_t>(to)];
    for (std::size_t k = 0; k < mine.size() && k < there.size(); ++k)
      take(static_cast<std::size_t>(mine[k]), static_cast<std::size_t>(there[k]));
  }
  placements_.emplace_back(now_ps(), at);
  // Both caches are keyed by rank: their routes ran from where the ranks were.
  single_path_.clear();
  if (flow_) flow_->cut_ahead();  // a ring running ahead goes on by the new routes from its next step
  routes_.clear();
  ++routes_version_;
}

std::vector<int> Fabric::node_placement() const {
  if (!placements_.empty()) return placements_.back().second;
  std::vector<int> at(static_cast<std::size_t>(s_.cluster.nodes));
  for (std::size_t n = 0; n < at.size(); ++n) at[n] = static_cast<int>(n);
  return at;
}

int Fabric::placed_endpoint(int endpoint, std::int64_t at_ps) const {
  const int G = s_.cluster.gpus_per_node;
  const std::vector<int>* at = nullptr;
  for (const auto& [from_ps, placement] : placements_)
    if (from_ps <= at_ps) at = &placement;
  if (!at || endpoint >= s_.cluster.nodes * G) return endpoint;  // device ports: as elaborated
  return (*at)[static_cast<std::size_t>(endpoint / G)] * G + endpoint % G;
}

std::vector<int> Fabric::path_at(int src_rank, int dst_rank, std::int64_t at_ps, std::uint32_t flow) {
  return elaborated_path(placed_endpoint(src_rank, at_ps), placed_endpoint(dst_rank, at_ps), flow);
}

std::vector<int> Fabric::elaborated_path(int src, int dst, std::uint32_t flow) {
  const auto [sd, sn] = elaborated_at(src);
  const auto [dd, dn] = elaborated_at(dst);
  Route r;
  router_.build_route(r, sd, sn, dd, dn, flow % kEcmpBuckets);
  return r.links;
}

Fabric::Layers Fabric::route_layers(int src_rank, int dst_rank) {
  const auto s = static_cast<std::size_t>(src_rank), d = static_cast<std::size_t>(dst_rank);
  return router_.build_layers(gpu_device_[s], nic_of_gpu_[s], gpu_device_[d], nic_of_gpu_[d]);
}

Fabric::Layers Fabric::layers_at(int src_rank, int dst_rank, std::int64_t at_ps) {
  return elaborated_layers(placed_endpoint(src_rank, at_ps), placed_endpoint(dst_rank, at_ps));
}

Fabric::Layers Fabric::elaborated_layers(int src, int dst) {
  const auto [sd, sn] = elaborated_at(src);
  const auto [dd, dn] = elaborated_at(dst);
  return router_.build_layers(sd, sn, dd, dn);
}

}  // namespace trainvp
