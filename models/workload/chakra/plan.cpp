#include "models/workload/chakra/plan.hpp"

#include <cstdint>
#include <tuple>
#include <unordered_map>

namespace trainvp::chakra {

bool supported_node(int type) {
  switch (type) {
    case kInvalidNode:
    case kMetadataNode:
    case kMemLoadNode:
    case kMemStoreNode:
    case kCompNode:
    case kSendNode:
    case kRecvNode:
    case kCollNode: return true;
    default: return false;
  }
}

bool supported_collective(int t) { return t != kReduceScatterBlock && t >= kAllReduce && t <= kBarrier; }

namespace {

struct Group {
  std::vector<int> members;
  std::unordered_map<int, int> pos;  // global rank -> position
  std::vector<std::size_t> next;     // per position: collectives issued so far
  std::vector<int> uses;             // index into Plan::collectives, in issue order
};

std::string at(int rank, const Node& n) { return "rank " + std::to_string(rank) + " " + describe(n); }

std::string group_text(const std::string& g) { return g.empty() ? "every rank" : "process group \"" + g + "\""; }

}  // namespace

Plan plan_run(const std::vector<const Trace*>& traces, const Groups& groups) {
  const int p = static_cast<int>(traces.size());
  Plan plan;
  plan.use_of.resize(traces.size());
  std::map<std::string, Group> live;
  auto group_of = [&](const std::string& name, int rank, const Node& n) -> Group& {
    auto it = live.find(name);
    if (it != live.end()) return it->second;
    Group g;
    if (name.empty()) {
      for (int r = 0; r < p; ++r) g.members.push_back(r);
    } else {
      auto def = groups.find(name);
      if (def == groups.end())
        throw PlanError(at(rank, n) + " names process group \"" + name +
                        "\", which /workload/chakra/comm_groups does not define");
      g.members = def->second;
    }
    for (int i = 0; i < static_cast<int>(g.members.size()); ++i)
      g.pos.emplace(g.members[static_cast<std::size_t>(i)], i);
    g.next.assign(g.members.size(), 0);
    return live.emplace(name, std::move(g)).first->second;
  };
  using Key = std::tuple<int, int, std::int64_t>;                        // src, dst, tag
  std::map<Key, std::vector<std::pair<int, std::size_t>>> sends, recvs;  // (rank, node) in order
  for (int r = 0; r < p; ++r) {
    const Trace& t = *traces[static_cast<std::size_t>(r)];
    std::vector<int>& use = plan.use_of[static_cast<std::size_t>(r)];
    use.assign(t.nodes.size(), -1);
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      const Node& n = t.nodes[i];
      if (!supported_node(n.type))
        throw PlanError(at(r, n) + " is a " + node_type_name(n.type) +
                        ", which trainvp does not run (it runs compute, memory, send, receive and collective nodes)");
      if (n.type == kSendNode || n.type == kRecvNode) {
        const bool send = n.type == kSendNode;
        const std::int64_t peer = send ? n.comm_dst : n.comm_src, self = send ? n.comm_src : n.comm_dst;
        if (self >= 0 && self != r)
          throw PlanError(at(r, n) + ": a " + std::string(send ? "send's comm_src" : "receive's comm_dst") + " is " +
                          std::to_string(self) + ", not its own rank");
        if (peer < 0 || peer >= p || peer == r)
          throw PlanError(at(r, n) + ": " + std::string(send ? "comm_dst" : "comm_src") + " " +
                          (peer < 0 ? std::string("is missing") : "is " + std::to_string(peer)) +
                          " (it must name another rank of the " + std::to_string(p) + ")");
        const int peer_rank = static_cast<int>(peer);
        const Key key = send ? Key{r, peer_rank, n.comm_tag} : Key{peer_rank, r, n.comm_tag};
        (send ? sends : recvs)[key].push_back({r, i});
        continue;
      }
      if (n.type != kCollNode) continue;
      if (n.comm_type < 0) throw PlanError(at(r, n) + " is a collective without a comm_type attribute");
      if (!supported_collective(n.comm_type))
        throw PlanError(at(r, n) + " is a " + comm_type_name(n.comm_type) +
                        ", which trainvp does not run (it runs every collective type but REDUCE_SCATTER_BLOCK)");
      Group& g = group_of(n.pg_name, r, n);
      auto pos = g.pos.find(r);
      if (pos == g.pos.end())
        throw PlanError(at(r, n) + " issues a collective on " + group_text(n.pg_name) + ", which rank " +
                        std::to_string(r) + " is not a member of");
      // Rooted collectives: the root sends (broadcast, scatter: comm_src) or receives (reduce,
      // gather: comm_dst); without the attribute, the group's first member.
      int root = -1;
      const bool sends = n.comm_type == kBroadcast || n.comm_type == kScatter;
      if (sends || n.comm_type == kReduce || n.comm_type == kGather) {
        const std::int64_t given = sends ? n.comm_src : n.comm_dst;
        root = given >= 0 ? static_cast<int>(given) : g.members.front();
        if (!g.pos.count(root))
          throw PlanError(at(r, n) + ": the " + comm_type_name(n.comm_type) + "'s root (" +
                          (sends ? "comm_src " : "comm_dst ") + std::to_string(root) + ") is not in " +
                          group_text(n.pg_name));
      }
      // A barrier is what frameworks make of it over NCCL: an all-reduce of one 4-byte element.
      const std::uint64_t bytes = n.comm_type == kBarrier ? 4 : n.comm_size;
      const std::size_t k = g.next[static_cast<std::size_t>(pos->second)]++;
      if (k == g.uses.size()) {
        CollectiveUse c;
        c.comm_type = n.comm_type, c.bytes = bytes, c.group = n.pg_name, c.ranks = g.members, c.root = root;
        c.node_of.assign(g.members.size(), SIZE_MAX);
        g.uses.push_back(static_cast<int>(plan.collectives.size()));
        plan.collectives.push_back(std::move(c));
      }
      const int u = g.uses[k];
      CollectiveUse& c = plan.collectives[static_cast<std::size_t>(u)];
      if (c.comm_type != n.comm_type || c.bytes != bytes || c.root != root) {
        std::size_t j = 0;  // a member that issued it before (its creator at least)
        while (c.node_of[j] == SIZE_MAX) ++j;
        const int other = c.ranks[j];
        const Node& o =
            traces[static_cast<std::size_t>(other)]->nodes[c.node_of[static_cast<std::size_t>(g.pos.at(other))]];
        throw PlanError(at(r, n) + ": collective #" + std::to_string(k) + " on " + group_text(n.pg_name) + " is " +
                        comm_type_name(n.comm_type) + " of " + std::to_string(bytes) + " B, but rank " +
                        std::to_string(other) + " " + describe(o) + " is " + comm_type_name(c.comm_type) + " of " +
                        std::to_string(c.bytes) + " B" + (c.root != root ? " (or another root)" : ""));
      }
      c.node_of[static_cast<std::size_t>(pos->second)] = i;
      use[i] = u;
    }
  }
  for (const auto& [name, g] : live)
    for (std::size_t k = 0; k < g.uses.size(); ++k) {
      const CollectiveUse& c = plan.collectives[static_cast<std::size_t>(g.uses[k])];
      for (std::size_t j = 0; j < c.node_of.size(); ++j) {
        if (c.node_of[j] != SIZE_MAX) continue;
        std::size_t have = 0;
        while (c.node_of[have] == SIZE_MAX) ++have;
        const int r = c.ranks[have];
        throw PlanError(at(r, traces[static_cast<std::size_t>(r)]->nodes[c.node_of[have]]) + " is collective #" +
                        std::to_string(k) + " on " + group_text(name) + ", which rank " + std::to_string(c.ranks[j]) +
                        " never issues (it would wait forever)");
      }
    }
  auto unmatched = [&](const std::pair<int, std::size_t>& rn, bool send) {
    const Node& n = traces[static_cast<std::size_t>(rn.first)]->nodes[rn.second];
    throw PlanError(
        at(rn.first, n) + ": a " +
        (send ? "send to rank " + std::to_string(n.comm_dst) : "receive from rank " + std::to_string(n.comm_src)) +
        " (tag " + std::to_string(n.comm_tag) + ") that no " + (send ? "receive" : "send") + " matches");
  };
  for (const auto& [key, list] : sends) {
    auto rv = recvs.find(key);
    const std::size_t matched = rv == recvs.end() ? 0 : rv->second.size();
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (k >= matched) unmatched(list[k], true);
      const auto& [src, si] = list[k];
      const auto& [dst, ri] = rv->second[k];
      const Node& s = traces[static_cast<std::size_t>(src)]->nodes[si];
      const Node& d = traces[static_cast<std::size_t>(dst)]->nodes[ri];
      if (s.comm_size != d.comm_size)
        throw PlanError(at(dst, d) + " receives " + std::to_string(d.comm_size) + " B, but the matching " + at(src, s) +
                        " sends " + std::to_string(s.comm_size) + " B");
      const int u = static_cast<int>(plan.p2p.size());
      plan.p2p.push_back({src, dst, s.comm_size, std::get<2>(key), si, ri});
      plan.use_of[static_cast<std::size_t>(src)][si] = u;
      plan.use_of[static_cast<std::size_t>(dst)][ri] = u;
    }
    if (matched > list.size()) unmatched(rv->second[list.size()], false);
  }
  for (const auto& [key, list] : recvs)
    if (!sends.count(key)) unmatched(list.front(), false);
  return plan;
}

}  // namespace trainvp::chakra
