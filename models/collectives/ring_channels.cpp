#include "models/collectives/ring_channels.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace trainvp {

namespace {

// The communicator's positions per node, nodes in the order the communicator first names them.
std::vector<std::vector<int>> positions_by_node(const std::vector<int>& comm, const std::vector<int>& nodes_of) {
  std::map<int, std::size_t> index;
  std::vector<std::vector<int>> out;
  for (std::size_t j = 0; j < comm.size(); ++j) {
    const int node = nodes_of.at(static_cast<std::size_t>(comm[j]));
    auto it = index.emplace(node, out.size()).first;
    if (it->second == out.size()) out.emplace_back();
    out[it->second].push_back(static_cast<int>(j));
  }
  return out;
}

// One node's stretch of a ring: enter at the first of its ranks on rail `in`, leave from one on
// rail `out` (a second one when the rails are equal), the others in between in communicator order.
// A rail the node has no rank on (or too few) falls back to its first and last ranks.
std::vector<int> node_stretch(const std::vector<int>& local, const std::vector<int>& rail_of, int in, int out) {
  auto find = [&](int rail, int skip) {
    for (int j : local)
      if (rail_of[static_cast<std::size_t>(j)] == rail && j != skip) return j;
    return -1;
  };
  int entry = find(in, -1);
  if (entry < 0) entry = local.front();
  int exit = find(out, entry);
  if (exit < 0) exit = local.back() != entry ? local.back() : -1;
  std::vector<int> s = {entry};
  for (int j : local)
    if (j != entry && j != exit) s.push_back(j);
  if (exit >= 0) s.push_back(exit);
  return s;
}

}  // namespace

int ring_channels(const RingLayout& layout, const std::vector<int>& comm, const std::vector<int>& nodes_of) {
  if (layout.channels > 0) return layout.channels;
  if (layout.order == RingOrder::Rank) return 1;
  const auto nodes = positions_by_node(comm, nodes_of);
  if (nodes.size() < 2 || layout.nic_of.empty()) return 1;
  std::set<int> nics;
  for (int j : nodes.front())
    nics.insert(layout.nic_of.at(static_cast<std::size_t>(comm[static_cast<std::size_t>(j)])));
  return static_cast<int>(nics.size());
}

std::vector<std::vector<int>> topology_rings(const std::vector<int>& comm, const std::vector<int>& nodes_of,
                                             const std::vector<int>& nic_of, int channels) {
  const auto nodes = positions_by_node(comm, nodes_of);
  const int K = static_cast<int>(nodes.size());
  std::vector<int> rail_of(comm.size());
  std::set<int> rail_set;
  for (std::size_t j = 0; j < comm.size(); ++j) {
    rail_of[j] = nic_of.at(static_cast<std::size_t>(comm[j]));
    rail_set.insert(rail_of[j]);
  }
  const std::vector<int> rails(rail_set.begin(), rail_set.end());
  const int R = static_cast<int>(rails.size());
  std::vector<std::vector<int>> rings(static_cast<std::size_t>(channels));
  for (int c = 0; c < channels; ++c) {
    const int idx = c % R, r = rails[static_cast<std::size_t>(idx)];
    // Entry and exit rail per node: one rail when the channel's NIC serves two of the node's ranks
    // (or the node has one rank), else alternating with the partner rail.
    std::vector<int> in(static_cast<std::size_t>(K), r), out(static_cast<std::size_t>(K), r);
    const auto& first = nodes.front();
    const auto on_rail =
        std::count_if(first.begin(), first.end(), [&](int j) { return rail_of[static_cast<std::size_t>(j)] == r; });
    if (K > 1 && on_rail < 2 && first.size() > 1 && R > 1) {
      const int partner = rails[static_cast<std::size_t>((idx ^ 1) < R ? idx ^ 1 : idx - 1)];
      for (int k = 0; k < K; ++k) in[k] = k % 2 ? partner : r, out[k] = k % 2 ? r : partner;
      if (K % 2 && R > 2) {  // the last hop of an odd ring: node K-2 leaves and node K-1 enters on a third rail
        int third = r;
        for (int s = 1; third == r || third == partner; ++s) third = rails[static_cast<std::size_t>((idx + s) % R)];
        out[K - 2] = in[K - 1] = third;
        out[K - 1] = r;
      }  // two rails and an odd ring: the wrap-around hop crosses rails
    }
    auto& ring = rings[static_cast<std::size_t>(c)];
    for (int k = 0; k < K; ++k) {
      const auto s = node_stretch(nodes[static_cast<std::size_t>(k)], rail_of, in[k], out[k]);
      ring.insert(ring.end(), s.begin(), s.end());
    }
  }
  return rings;
}

}  // namespace trainvp
