// S3 for a slow link (GREYHOUND: "swap which parallel dimension crosses a congested link"). The
// suspects are the link directions the incident's slow probe edges take and its healthy ones do
// not; the traffic is what the job sent between its node slots (the engine's pair bytes); the
// planner (models/health/algorithms/swap_plan.hpp) re-places whole slots on the nodes so that the fewest
// bytes take a path through a suspect. The ranks then move at the common boundary
// (Fabric::place_nodes), which needs flow fidelity.
#include <algorithm>
#include <map>
#include <set>

#include "models/health/algorithms/swap_plan.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/system/health/move_step.hpp"

namespace trainvp {

bool MoveStep::swap_roles(MitigationAction& a, std::int64_t incident_ps) {
  MoveRecord& m = a.move.emplace();
  m.kind = MoveRecord::Kind::RoleSwap;
  if (!remap_) {
    a.note = "no role swap: moving ranks between nodes needs fabric.fidelity flow";
    return false;
  }
  const auto* pairs = p_.engine ? p_.engine->pair_bytes() : nullptr;
  const int world = p_.world;
  // Suspects, from the equal-cost paths hop by hop (Fabric::route_layers: per hop, the
  // directions ECMP spreads a pair's flows over). A direction on every path of a healthy edge
  // probed since the incident began is cleared. A slow edge's hops, less the cleared, are its
  // candidate explanations; the suspects are the fewest hops that explain every slow edge
  // (greedy set cover: the hop on the most unexplained edges first, ties the lowest). A node's
  // own links are a hop of one edge each; a switch's uplinks, taken together as ECMP takes them,
  // a hop of every edge through it.
  std::set<int> cleared;
  for (const LinkProbeResult& l : p_.monitor->link_probes()) {
    if (l.slow || l.at_ps < incident_ps) continue;
    for (const std::vector<int>& hop : p_.fabric->route_layers(l.src, l.dst))
      if (hop.size() == 1) cleared.insert(hop[0]);
  }
  std::vector<std::set<std::vector<int>>> unexplained;  // per slow edge: its candidate hops
  for (const Diagnosis& d : p_.monitor->diagnoses())
    if (d.change_ps >= incident_ps && d.cause == FailCause::Communication)
      for (auto [s, t] : d.links) {
        std::set<std::vector<int>> hops;
        for (const std::vector<int>& hop : p_.fabric->route_layers(s, t)) {
          std::vector<int> left;
          for (int dir : hop)
            if (!cleared.count(dir)) left.push_back(dir);
          if (!left.empty()) hops.insert(left);
        }
        if (!hops.empty()) unexplained.push_back(std::move(hops));
      }
  std::set<int> suspect;
  while (!unexplained.empty()) {
    std::map<std::vector<int>, int> edges_through;
    for (const auto& hops : unexplained)
      for (const auto& hop : hops) ++edges_through[hop];
    const std::vector<int> pick =
        std::max_element(edges_through.begin(), edges_through.end(), [](const auto& x, const auto& y) {
          return x.second < y.second;
        })->first;
    suspect.insert(pick.begin(), pick.end());
    unexplained.erase(std::remove_if(unexplained.begin(), unexplained.end(),
                                     [&](const std::set<std::vector<int>>& hops) { return hops.count(pick) > 0; }),
                      unexplained.end());
  }
  if (suspect.empty()) {
    a.note = "no role swap: every link direction of the slow edges also carries a healthy one";
    return false;
  }
  for (int d : suspect) {
    const FabricDir& dir = p_.fabric->dirs()[static_cast<std::size_t>(d)];
    m.suspect_links.push_back(p_.fabric->devices()[static_cast<std::size_t>(dir.from)].name + ">" +
                              p_.fabric->devices()[static_cast<std::size_t>(dir.to)].name);
  }

  // The job's traffic between its slots, and per pair of nodes the share of its flows that take
  // a suspect: from GPU g of one to GPU g of the other (a node moves whole, in local order), a
  // flow spread evenly over each hop's directions misses the suspects with probability
  // prod over hops of (1 - the hop's share of suspects).
  // Only the job's own slots move (all of them without `jobs`), counted 0.. in ascending order,
  // and only the bytes between its own ranks weigh.
  const std::vector<int> slots = job_slots();
  const std::size_t nodes = slots.size();
  std::vector<int> local(slot_of_.size(), -1);  // per rank of the job: its slot's position in `slots`
  for (int r : p_.ranks)
    local[static_cast<std::size_t>(r)] =
        static_cast<int>(std::lower_bound(slots.begin(), slots.end(), slot_of(r)) - slots.begin());
  // Summed as integers: the map's order is not the run's, and the sums must not depend on it.
  std::vector<std::vector<std::uint64_t>> sent(nodes, std::vector<std::uint64_t>(nodes, 0));
  std::uint64_t between = 0;
  if (pairs)
    pairs->for_each([&](std::uint64_t key, std::uint64_t bytes) {
      const int s = static_cast<int>(key >> 32), t = static_cast<int>(key & 0xffffffffu);
      if (s >= world || t >= world) return;  // device ports stay with their node's ranks
      const int lx = local[static_cast<std::size_t>(s)], ly = local[static_cast<std::size_t>(t)];
      if (lx < 0 || ly < 0) return;  // another job's
      const auto x = static_cast<std::size_t>(lx), y = static_cast<std::size_t>(ly);
      if (x != y) sent[x][y] += bytes, between += bytes;
    });
  RoleSwapInput in;
  in.traffic.assign(nodes, std::vector<double>(nodes, 0.0));
  for (std::size_t x = 0; x < nodes; ++x)
    for (std::size_t y = 0; y < nodes; ++y) in.traffic[x][y] = static_cast<double>(sent[x][y]);
  const double inter = static_cast<double>(between);
  if (inter <= 0) {
    a.note = "no role swap: the job sent nothing between nodes";
    return false;
  }
  // The physical nodes the job's slots sit on, counted 0.. as its slots are: the planner moves
  // the job's slots among its own nodes.
  const std::vector<int> placement = p_.fabric->node_placement();
  const int per_node = world / static_cast<int>(placement.size());
  std::vector<int> phys;
  for (int s : slots) phys.push_back(placement[static_cast<std::size_t>(s)]);
  in.crossing.assign(nodes, std::vector<double>(nodes, 0.0));
  for (std::size_t p = 0; p < nodes; ++p)
    for (std::size_t q = 0; q < nodes; ++q) {
      if (p == q) continue;
      double share = 0;
      for (int g = 0; g < per_node; ++g) {
        double miss = 1;
        const int src = phys[p] * per_node + g, dst = phys[q] * per_node + g;
        for (const std::vector<int>& hop : p_.fabric->elaborated_layers(src, dst)) {
          const auto bad = std::count_if(hop.begin(), hop.end(), [&](int d) { return suspect.count(d) > 0; });
          miss *= 1.0 - static_cast<double>(bad) / static_cast<double>(hop.size());
        }
        share += 1.0 - miss;
      }
      in.crossing[p][q] = share / per_node;
    }
  in.at.resize(nodes);
  for (std::size_t i = 0; i < nodes; ++i) in.at[i] = static_cast<int>(i);
  const RoleSwap plan = plan_role_swap(in);
  m.share_before = plan.before / inter, m.share_after = plan.after / inter;
  if (plan.swaps.empty()) {
    a.note = "no role swap moves 1% of the bytes on suspect paths off them";
    return false;
  }
  m.swaps = plan.swaps;
  for (auto& [x, y] : m.swaps) x = slots[static_cast<std::size_t>(x)], y = slots[static_cast<std::size_t>(y)];
  moves_.emplace_back(now_ps(), moved_ranks(m.swaps));
  pending_.insert(pending_.end(), m.swaps.begin(), m.swaps.end());
  return true;
}

}  // namespace trainvp
