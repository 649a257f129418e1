// S3's moves (FaultInjector::swap_nodes): a job re-placed on its nodes is modelled by moving the
// nodes' hardware, with its faults, between the node slots the platform elaborated. Exact for
// what belongs to a node (its GPUs, its host, its devices' links) when the nodes are alike; the
// network core does not move with a job.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

#include "platform/system/faults/faults.hpp"

namespace trainvp {

namespace {

// A device's name within its node ("nic0" of "node3.nic0"); `other` for any device off the node.
std::string local_name(const FabricDevice& d, int node, const char* other) {
  if (d.node != node) return other;
  const auto dot = d.name.find('.');
  return dot == std::string::npos ? d.name : d.name.substr(dot + 1);
}

// One node's link directions by where they run: exactly (a switch by its name), and generically
// (any switch as "~") where that is unique in the node, as a NIC's one uplink is.
struct NodeDirs {
  std::map<std::string, int> exact, generic;
  std::set<std::string> ambiguous;
};

}  // namespace

void FaultInjector::init_moves() {
  if (!host_at_.empty()) return;
  int nodes = 0;
  for (const FabricDevice& d : fabric_.devices()) nodes = std::max(nodes, d.node + 1);
  host_at_.resize(static_cast<std::size_t>(nodes));
  std::iota(host_at_.begin(), host_at_.end(), 0);
  gpu_at_.resize(gpus_.size());
  dir_at_.resize(base_bw_.size());
  moved_gpu_.assign(gpus_.size(), false);
  moved_dir_.assign(base_bw_.size(), false);
}

void FaultInjector::swap_nodes(int a, int b, bool links) {
  init_moves();
  const int nodes = static_cast<int>(host_at_.size());
  if (a < 0 || b < 0 || a >= nodes || b >= nodes) throw std::out_of_range("swap_nodes: no such node");
  if (a == b) return;
  std::swap(host_at_[static_cast<std::size_t>(a)], host_at_[static_cast<std::size_t>(b)]);

  std::vector<std::vector<int>> gpus_of(static_cast<std::size_t>(nodes));
  for (std::size_t g = 0; g < gpus_.size(); ++g)
    gpus_of[static_cast<std::size_t>(node_of_gpu(g))].push_back(static_cast<int>(g));
  const auto& devs = fabric_.devices();
  std::vector<NodeDirs> dirs_of(static_cast<std::size_t>(nodes));
  std::vector<std::string> generic_of(base_bw_.size());
  for (std::size_t d = 0; d < base_bw_.size(); ++d) {
    const FabricDevice& from = devs[static_cast<std::size_t>(fabric_.dirs()[d].from)];
    const FabricDevice& to = devs[static_cast<std::size_t>(fabric_.dirs()[d].to)];
    if (from.node >= 0 && to.node >= 0 && from.node != to.node) continue;  // between nodes: stays
    const int n = from.node >= 0 ? from.node : to.node;
    if (n < 0) continue;  // the network core
    NodeDirs& nd = dirs_of[static_cast<std::size_t>(n)];
    nd.exact[local_name(from, n, from.name.c_str()) + ">" + local_name(to, n, to.name.c_str())] = static_cast<int>(d);
    generic_of[d] = local_name(from, n, "~") + ">" + local_name(to, n, "~");
    if (!nd.generic.emplace(generic_of[d], static_cast<int>(d)).second) nd.ambiguous.insert(generic_of[d]);
  }

  // The maps afresh from the slots' hardware; both slots' GPUs and directions are reset from now on.
  std::iota(gpu_at_.begin(), gpu_at_.end(), 0);
  std::iota(dir_at_.begin(), dir_at_.end(), 0);
  if (!links) dirs_of.assign(dirs_of.size(), NodeDirs{});  // the links stay: the ranks moved onto them
  for (int n : {a, b}) {
    for (int g : gpus_of[static_cast<std::size_t>(n)]) moved_gpu_[static_cast<std::size_t>(g)] = true;
    for (const auto& [key, d] : dirs_of[static_cast<std::size_t>(n)].exact)
      moved_dir_[static_cast<std::size_t>(d)] = true;
  }
  for (int slot = 0; slot < nodes; ++slot) {
    const int hw = host_at_[static_cast<std::size_t>(slot)];
    if (hw == slot) continue;
    const auto& from = gpus_of[static_cast<std::size_t>(hw)];
    const auto& to = gpus_of[static_cast<std::size_t>(slot)];
    for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) gpu_at_[static_cast<std::size_t>(from[i])] = to[i];
    const NodeDirs& there = dirs_of[static_cast<std::size_t>(slot)];
    const NodeDirs& here = dirs_of[static_cast<std::size_t>(hw)];
    for (const auto& [key, d] : here.exact) {
      int target = -1;
      if (auto it = there.exact.find(key); it != there.exact.end()) target = it->second;
      else if (const std::string& gk = generic_of[static_cast<std::size_t>(d)];
               !here.ambiguous.count(gk) && !there.ambiguous.count(gk))
        if (auto jt = there.generic.find(gk); jt != there.generic.end()) target = jt->second;
      if (target >= 0) dir_at_[static_cast<std::size_t>(d)] = target;
    }
  }
  recompute();
}

}  // namespace trainvp
