#include "models/collectives/program.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <set>
#include <stdexcept>

#include "models/collectives/double_tree.hpp"
#include "models/collectives/ring_channels.hpp"

namespace trainvp {

const NameTable<CollectiveOp>& collective_op_names() {
  static const NameTable<CollectiveOp> t = {
      {"all_reduce", CollectiveOp::AllReduce}, {"reduce_scatter", CollectiveOp::ReduceScatter},
      {"all_gather", CollectiveOp::AllGather}, {"broadcast", CollectiveOp::Broadcast},
      {"sendrecv", CollectiveOp::SendRecv},    {"all_to_all", CollectiveOp::AllToAll},
      {"reduce", CollectiveOp::Reduce},        {"gather", CollectiveOp::Gather},
      {"scatter", CollectiveOp::Scatter}};
  return t;
}

const NameTable<CollectiveAlgo>& collective_algo_names() {
  static const NameTable<CollectiveAlgo> t = {{"ring", CollectiveAlgo::Ring},
                                              {"tree", CollectiveAlgo::Tree},
                                              {"hierarchical", CollectiveAlgo::Hierarchical},
                                              {"cxl_allreduce", CollectiveAlgo::CxlAllReduce},
                                              {"cxl_hierarchical", CollectiveAlgo::CxlHierarchical},
                                              {"ps", CollectiveAlgo::Ps},
                                              {"nvls", CollectiveAlgo::Nvls}};
  return t;
}

const char* op_name(CollectiveOp op) { return name_in(collective_op_names(), op); }
const char* algo_name(CollectiveAlgo a) { return name_in(collective_algo_names(), a); }

std::uint64_t nvls_chunk_bytes(std::uint64_t bytes, int gpus) {
  const std::uint64_t ops = kNvlsChannels * static_cast<std::uint64_t>(std::max(1, gpus));  // channels x heads
  std::uint64_t chunk = 131072;
  if (bytes < 64 * ops * chunk) chunk = 65536;
  if (bytes < 8 * ops * chunk) chunk = 32768;
  if (bytes < 2 * ops * chunk) chunk = 16384;
  return chunk;
}

double busbw_factor(CollectiveOp op, int p) {
  switch (op) {
    case CollectiveOp::AllReduce: return 2.0 * (p - 1) / p;
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllGather:
    case CollectiveOp::AllToAll:
    case CollectiveOp::Gather:
    case CollectiveOp::Scatter: return static_cast<double>(p - 1) / p;
    default: return 1.0;
  }
}

namespace {

using Deps = std::vector<std::vector<int>>;  // per communicator position

std::uint64_t part(std::uint64_t n, int parts, int k) {
  return n / static_cast<std::uint64_t>(parts) +
         (static_cast<std::uint64_t>(k) < n % static_cast<std::uint64_t>(parts) ? 1 : 0);
}

int add(Program& pr, int src, int dst, std::uint64_t bytes, std::vector<int> deps) {
  Transfer t;
  t.src = src, t.dst = dst, t.bytes = bytes, t.deps = std::move(deps);
  pr.transfers.push_back(std::move(t));
  return static_cast<int>(pr.transfers.size() - 1);
}

// A step-synchronous ring of `steps` steps over `group` (global ranks): at step t, position i
// sends segment seg(t, i) to position i+1, after what it received at step t-1 (or, at step 0,
// after `entry[i]` and the receiver's `entry[i+1]`). Returns, per position, what it last received.
template <class SegmentOf>
Deps ring(Program& pr, const std::vector<int>& group, int steps, std::uint64_t n, const Deps& entry, SegmentOf seg) {
  const int p = static_cast<int>(group.size());
  Deps exit = entry;
  if (p < 2 || steps < 1) return exit;
  std::vector<int> prev(static_cast<std::size_t>(p), -1), cur(static_cast<std::size_t>(p));
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < p; ++i) {
      int to = (i + 1) % p;
      // Built by construction, not assignment: GCC 12 warns (-Wnonnull) on assigning an empty range.
      std::vector<int> deps = t == 0 ? entry[static_cast<std::size_t>(i)]
                                     : std::vector<int>(1, prev[static_cast<std::size_t>((i + p - 1) % p)]);
      if (t == 0)
        deps.insert(deps.end(), entry[static_cast<std::size_t>(to)].begin(), entry[static_cast<std::size_t>(to)].end());
      cur[static_cast<std::size_t>(i)] =
          add(pr, group[static_cast<std::size_t>(i)], group[static_cast<std::size_t>(to)], part(n, p, seg(t, i)),
              std::move(deps));
    }
    prev = cur;
  }
  for (int i = 0; i < p; ++i) exit[static_cast<std::size_t>(i)] = {prev[static_cast<std::size_t>((i + p - 1) % p)]};
  return exit;
}

int mod(int a, int p) { return ((a % p) + p) % p; }

Deps ring_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, const Deps& entry) {
  const int p = static_cast<int>(g.size());
  // Reduce-scatter: step t sends segment i - t; all-gather: step p-1+s sends segment i + 1 - s.
  return ring(pr, g, 2 * (p - 1), n, entry,
              [p](int t, int i) { return t < p - 1 ? mod(i - t, p) : mod(i + 1 - (t - (p - 1)), p); });
}

Deps ring_reduce_scatter(Program& pr, const std::vector<int>& g, std::uint64_t n, const Deps& entry) {
  const int p = static_cast<int>(g.size());
  return ring(pr, g, p - 1, n, entry, [p](int t, int i) { return mod(i - t, p); });
}

Deps ring_all_gather(Program& pr, const std::vector<int>& g, std::uint64_t n, const Deps& entry) {
  const int p = static_cast<int>(g.size());
  return ring(pr, g, p - 1, n, entry, [p](int t, int i) { return mod(i - t, p); });
}

// The double binary tree, pipelined chunk by chunk. Every connection (a tree edge, one direction)
// holds at most `window` chunks, as NCCL's receive buffer of NCCL_STEPS slots does: chunk k may be
// sent once the receiver has started passing chunk k - window on. Without the window every leaf
// would post its whole half at once, ahead of everything else its GPU and NIC send.
void tree_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk, int window) {
  const int p = static_cast<int>(g.size());
  if (p < 2) return;
  const BinaryTree bt = binary_tree(p);
  const std::vector<int>&parent = bt.parent, &c0 = bt.child0, &c1 = bt.child1;
  // Children before parents (post-order by depth); the broadcast walks it backwards.
  std::vector<int> order(static_cast<std::size_t>(p)), depth(static_cast<std::size_t>(p), 0);
  for (int v = 0; v < p; ++v) {
    order[static_cast<std::size_t>(v)] = v;
    for (int u = v; parent[static_cast<std::size_t>(u)] >= 0; u = parent[static_cast<std::size_t>(u)])
      ++depth[static_cast<std::size_t>(v)];
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)] ||
           (depth[static_cast<std::size_t>(a)] == depth[static_cast<std::size_t>(b)] && a < b);
  });
  for (int tree = 0; tree < 2; ++tree) {
    const std::uint64_t half = part(n, 2, tree);
    auto pos = [&](int v) { return tree == 0 ? v : second_tree_position(p, v); };
    // Per chunk: up[v], v's send to its parent; down[v], its parent's send to v.
    std::vector<std::vector<int>> up, down;
    for (std::uint64_t off = 0; off < half; off += chunk) {
      const std::uint64_t b = std::min(chunk, half - off);
      const std::size_t k = up.size();
      up.emplace_back(static_cast<std::size_t>(p), -1), down.emplace_back(static_cast<std::size_t>(p), -1);
      std::vector<int>&u = up.back(), &d = down.back();
      const bool credit = k >= static_cast<std::size_t>(window);
      const std::vector<int>* freed_up = credit ? &up[k - static_cast<std::size_t>(window)] : nullptr;
      const std::vector<int>* freed_down = credit ? &down[k - static_cast<std::size_t>(window)] : nullptr;
      // What frees v's receive slot of chunk k - window: v starts passing that chunk on once it
      // holds what the onward send needs (up: every child's part; down: its parent's copy).
      auto passed_on_up = [&](int v, std::vector<int>& deps) {
        if (!freed_up) return;
        for (int c : {c0[static_cast<std::size_t>(v)], c1[static_cast<std::size_t>(v)]})
          if (c >= 0) deps.push_back((*freed_up)[static_cast<std::size_t>(c)]);
      };
      auto passed_on_down = [&](int v, std::vector<int>& deps) {
        if (freed_down) deps.push_back((*freed_down)[static_cast<std::size_t>(v)]);
      };
      // Reduce towards the root.
      for (int v : order) {
        const int to = parent[static_cast<std::size_t>(v)];
        if (to < 0) continue;
        std::vector<int> deps;
        for (int c : {c0[static_cast<std::size_t>(v)], c1[static_cast<std::size_t>(v)]})
          if (c >= 0) deps.push_back(u[static_cast<std::size_t>(c)]);
        passed_on_up(to, deps);
        u[static_cast<std::size_t>(v)] =
            add(pr, g[static_cast<std::size_t>(pos(v))], g[static_cast<std::size_t>(pos(to))], b, deps);
      }
      // Broadcast from the root, parents before children.
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const int v = *it;
        for (int c : {c0[static_cast<std::size_t>(v)], c1[static_cast<std::size_t>(v)]}) {
          if (c < 0) continue;
          std::vector<int> deps;
          if (parent[static_cast<std::size_t>(v)] < 0) {
            for (int cc : {c0[static_cast<std::size_t>(v)], c1[static_cast<std::size_t>(v)]})
              if (cc >= 0) deps.push_back(u[static_cast<std::size_t>(cc)]);
          } else {
            deps.push_back(d[static_cast<std::size_t>(v)]);
          }
          passed_on_down(c, deps);
          d[static_cast<std::size_t>(c)] =
              add(pr, g[static_cast<std::size_t>(pos(v))], g[static_cast<std::size_t>(pos(c))], b, deps);
        }
      }
    }
  }
}

void pipeline_broadcast(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk, int root_pos) {
  const int p = static_cast<int>(g.size());
  for (std::uint64_t off = 0; off < n; off += chunk) {
    std::uint64_t b = std::min(chunk, n - off);
    int prev = -1;
    for (int h = 0; h + 1 < p; ++h) {
      int from = (root_pos + h) % p, to = (root_pos + h + 1) % p;
      prev = add(pr, g[from], g[to], b, prev < 0 ? std::vector<int>{} : std::vector<int>{prev});
    }
  }
}

// NCCL's ring reduce: the chain root+1 -> root+2 -> ... -> root, each rank adding its data to
// what it forwards, pipelined chunk by chunk as the broadcast is (its mirror image).
void pipeline_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk, int root_pos) {
  const int p = static_cast<int>(g.size());
  for (std::uint64_t off = 0; off < n; off += chunk) {
    std::uint64_t b = std::min(chunk, n - off);
    int prev = -1;
    for (int h = 0; h + 1 < p; ++h) {
      int from = (root_pos + 1 + h) % p, to = (root_pos + 2 + h) % p;
      prev = add(pr, g[from], g[to], b, prev < 0 ? std::vector<int>{} : std::vector<int>{prev});
    }
  }
}

void hierarchical_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n,
                             const std::vector<int>& nodes_of) {
  // Node-local groups in communicator order; every node must hold the same number of ranks.
  std::map<int, std::vector<int>> local;
  std::vector<int> node_order;
  for (int r : g) {
    int node = nodes_of.at(static_cast<std::size_t>(r));
    if (!local.count(node)) node_order.push_back(node);
    local[node].push_back(r);
  }
  const std::size_t L = local[node_order[0]].size();
  for (auto& [node, ranks] : local)
    if (ranks.size() != L)
      throw std::invalid_argument("hierarchical needs the same number of ranks on every node (node " +
                                  std::to_string(node) + " has " + std::to_string(ranks.size()) + ", expected " +
                                  std::to_string(L) + ")");
  const int N = static_cast<int>(node_order.size());
  // Reduce-scatter and all-gather in every node, an all-reduce on every rail: reserved at once, as
  // 512 GPUs' buckets are millions of transfers and growing the vector moved them all (5% of a run).
  const std::size_t nodes = static_cast<std::size_t>(N);
  pr.transfers.reserve(pr.transfers.size() + 2 * nodes * L * (L - 1) + 2 * L * nodes * (nodes - 1));
  // Entry and exit dependencies per global rank.
  std::map<int, std::vector<int>> after;
  // 1. reduce-scatter inside each node: local position j ends with segment j of n.
  for (int node : node_order) {
    auto& grp = local[node];
    Deps out = ring_reduce_scatter(pr, grp, n, Deps(grp.size()));
    for (std::size_t j = 0; j < L; ++j) after[grp[j]] = out[j];
  }
  // 2. all-reduce of segment j among the j-th ranks of every node (a rail).
  const int Li = static_cast<int>(L);
  for (int j = 0; j < Li; ++j) {
    std::vector<int> rail;
    Deps entry;
    // After the local reduce-scatter, position j holds segment (j + 1) mod L of the ring.
    for (int node : node_order)
      rail.push_back(local[node][static_cast<std::size_t>(j)]), entry.push_back(after[rail.back()]);
    Deps out = ring_all_reduce(pr, rail, part(n, Li, (j + 1) % Li), entry);
    for (int k = 0; k < N; ++k) after[rail[static_cast<std::size_t>(k)]] = out[static_cast<std::size_t>(k)];
  }
  // 3. all-gather inside each node.
  for (int node : node_order) {
    auto& grp = local[node];
    Deps entry;
    for (int r : grp) entry.push_back(after[r]);
    ring_all_gather(pr, grp, n, entry);
  }
}

// One GPU's write of segment [off, off + b) into its node's device, or its read of the result:
// the HDM decoder splits the segment over the device's ports in address stripes, so there is one
// transfer per port that holds some of it. Appends the transfers to `out`.
void hdm_transfers(Program& pr, int gpu, const std::vector<int>& ports, std::uint64_t granule, std::uint64_t off,
                   std::uint64_t b, bool write, int slot, const std::vector<int>& deps, std::vector<int>& out) {
  const int ways = static_cast<int>(ports.size());
  for (int k = 0; k < ways; ++k) {
    const std::uint64_t bytes = hdm_bytes(off, b, granule, ways, k);
    if (bytes == 0) continue;
    const int port = ports[static_cast<std::size_t>(k)];
    const int x = write ? add(pr, gpu, port, bytes, deps) : add(pr, port, gpu, bytes, deps);
    DataRange& d = pr.transfers[static_cast<std::size_t>(x)].data;
    d.offset = off, d.span = b, d.stripe = ways > 1 ? granule : 0, d.ways = ways, d.way = k;
    (write ? d.dst_slot : d.src_slot) = slot;
    out.push_back(x);
  }
}

// A reduction on device endpoint `port` of [off, off + bytes) from window slots `slots` into kSlotAcc.
int add_reduce(Program& pr, int port, std::uint64_t off, std::uint64_t bytes, std::vector<int> deps,
               std::vector<int> slots) {
  const int x = add(pr, port, port, bytes, std::move(deps));
  Transfer& t = pr.transfers[static_cast<std::size_t>(x)];
  t.reduce_contributors = static_cast<int>(slots.size());
  t.data.offset = off, t.data.span = bytes;
  t.reduce_slots = std::move(slots);
  return x;
}

std::vector<int> contributor_slots(std::size_t n) {
  std::vector<int> s(n);
  for (std::size_t c = 0; c < n; ++c) s[c] = static_cast<int>(c);
  return s;
}

// All-reduce through the nodes' CXL devices: every GPU writes each segment (a chunk) into its
// node's device (its stripes to the ports the HDM decoder maps them to) as contribution c (its
// position), the device reduces it once all the node's contributions are in, and every GPU reads
// the result back (again from every port). Inside one node only.
void cxl_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk,
                    const std::vector<int>& nodes_of, const DeviceMap& dev) {
  std::map<int, std::vector<int>> local;
  for (int r : g) local[nodes_of.at(static_cast<std::size_t>(r))].push_back(r);
  if (local.size() != 1)
    throw std::invalid_argument("cxl_allreduce reduces inside one node; this communicator spans " +
                                std::to_string(local.size()) + " nodes");
  const int node = local.begin()->first;
  const std::vector<int>& ports = node < static_cast<int>(dev.ports_of_node.size())
                                      ? dev.ports_of_node[static_cast<std::size_t>(node)]
                                      : std::vector<int>{};
  if (ports.empty())
    throw std::invalid_argument("node " + std::to_string(node) + " has no CXL device (cluster.node.cxl)");
  for (int port : ports) pr.ranks.push_back(port);
  std::size_t s = 0;
  for (std::uint64_t off = 0; off < n; off += chunk, ++s) {
    const std::uint64_t b = std::min(chunk, n - off);
    std::vector<int> in, out;
    for (std::size_t c = 0; c < g.size(); ++c)
      hdm_transfers(pr, g[c], ports, dev.interleave, off, b, true, static_cast<int>(c), {}, in);
    const int red = add_reduce(pr, ports[s % ports.size()], off, b, in, contributor_slots(g.size()));
    for (int r : g) hdm_transfers(pr, r, ports, dev.interleave, off, b, false, kSlotAcc, {red}, out);
  }
}

// NVLink SHARP all-reduce inside one node (NCCL's NVLS algorithm, docs/fabric.md#nvlink-sharp-nvls).
// The buffer is split over NCCL's 16 NVLS channels, and each channel moves its part step by step,
// a step being one chunk (nvls_chunk_bytes) per head (per GPU): every GPU sends the step's bytes
// to the NVSwitch's unit (the switch reading each head's chunk from every GPU for
// multimem.ld_reduce), which sums them once all have arrived; head k gets its chunk's sum back,
// stores it with one multicast write (multimem.st), and the unit copies it to every GPU. Each
// GPU's NVLink carries (1 + 1/p) of the buffer each way, where a ring carries 2(p - 1)/p. A
// channel is a flow of its own on every link (`stream`), and a GPU sends a channel's next step
// once the last has arrived, so a store never waits behind the rest of the buffer.
void nvls_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, const std::vector<int>& nodes_of,
                     const DeviceMap& dev) {
  std::map<int, int> local;
  for (int r : g) ++local[nodes_of.at(static_cast<std::size_t>(r))];
  if (local.size() != 1)
    throw std::invalid_argument("nvls reduces in one node's NVSwitch; this communicator spans " +
                                std::to_string(local.size()) + " nodes");
  const int node = local.begin()->first;
  const int unit =
      node < static_cast<int>(dev.nvls_of_node.size()) ? dev.nvls_of_node[static_cast<std::size_t>(node)] : -1;
  if (unit < 0)
    throw std::invalid_argument("node " + std::to_string(node) +
                                " has no NVLink SHARP: its GPUs must be Hopper-class (FP8) on an NVSwitch");
  pr.ranks.push_back(unit);
  const int p = static_cast<int>(g.size());
  const std::uint64_t step = nvls_chunk_bytes(n, p) * static_cast<std::uint64_t>(p);
  const std::vector<int> slots = contributor_slots(g.size());
  for (int ch = 0; ch < kNvlsChannels; ++ch) {
    const auto [base, part_bytes] = element_part(n, kNvlsChannels, ch);
    std::vector<int> last_push(g.size(), -1);
    for (std::uint64_t off = 0; off < part_bytes; off += step) {
      const std::uint64_t b = std::min(step, part_bytes - off);
      auto on_stream = [&pr, ch](int x) {
        pr.transfers[static_cast<std::size_t>(x)].stream = ch;
        return x;
      };
      std::vector<int> in;
      for (int c = 0; c < p; ++c) {
        int& last = last_push[static_cast<std::size_t>(c)];
        in.push_back(last = on_stream(add(pr, g[static_cast<std::size_t>(c)], unit, b,
                                          last >= 0 ? std::vector<int>{last} : std::vector<int>{})));
      }
      const int red = add_reduce(pr, unit, base + off, b, in, slots);
      std::vector<int> stores;
      for (int k = 0; k < p; ++k) {
        const std::uint64_t slice = element_part(b, p, k).second;
        const int sum = on_stream(add(pr, unit, g[static_cast<std::size_t>(k)], slice, {red}));
        stores.push_back(on_stream(add(pr, g[static_cast<std::size_t>(k)], unit, slice, {sum})));
      }
      for (int c = 0; c < p; ++c) on_stream(add(pr, unit, g[static_cast<std::size_t>(c)], b, stores));
    }
  }
}

// Hierarchical all-reduce through the nodes' CXL devices: per segment, the GPUs of each node
// write it into their device (striped over its ports), which reduces the node's contributions;
// the devices then all-reduce the segment among themselves in a step-synchronous ring through the
// NICs, from the segment's home port (segment s: port s mod ports). Each reduce-scatter step's
// received part is added to the device's own by its engine as a 2-contributor job (the received
// partial is contributor 0, the device's own contributor 1), so part k is summed in ring order
// from device k. Finally every GPU reads the segment back from its device's ports.
void cxl_hierarchical(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk,
                      const std::vector<int>& nodes_of, const DeviceMap& dev) {
  std::map<int, std::vector<int>> local;
  std::vector<int> order;
  for (int r : g) {
    int node = nodes_of.at(static_cast<std::size_t>(r));
    if (!local.count(node)) order.push_back(node);
    local[node].push_back(r);
  }
  for (int node : order)
    if (node >= static_cast<int>(dev.ports_of_node.size()) || dev.ports_of_node[static_cast<std::size_t>(node)].empty())
      throw std::invalid_argument("node " + std::to_string(node) + " has no CXL device (cluster.node.cxl)");
  const int N = static_cast<int>(order.size());
  auto ports_of = [&](int i) -> const std::vector<int>& {
    return dev.ports_of_node[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  };
  for (int i = 0; i < N; ++i)
    for (int p : ports_of(i)) pr.ranks.push_back(p);
  std::size_t s = 0;
  for (std::uint64_t off = 0; off < n; off += chunk, ++s) {
    const std::uint64_t b = std::min(chunk, n - off);
    std::vector<int> home(static_cast<std::size_t>(N)), local_sum(static_cast<std::size_t>(N));
    for (int i = 0; i < N; ++i) {
      const auto& ports = ports_of(i);
      const auto& ranks = local[order[static_cast<std::size_t>(i)]];
      home[static_cast<std::size_t>(i)] = ports[s % ports.size()];
      std::vector<int> in;
      for (std::size_t c = 0; c < ranks.size(); ++c)
        hdm_transfers(pr, ranks[c], ports, dev.interleave, off, b, true, static_cast<int>(c), {}, in);
      local_sum[static_cast<std::size_t>(i)] =
          add_reduce(pr, home[static_cast<std::size_t>(i)], off, b, in, contributor_slots(ranks.size()));
    }
    // Ring among the devices: reduce-scatter (N-1 steps, each received part reduced on arrival),
    // then all-gather (N-1 steps); `last[i]` is what device i did last.
    std::vector<int> last = local_sum;
    std::vector<std::vector<int>> received(static_cast<std::size_t>(N));
    for (int t = 0; N > 1 && t < 2 * (N - 1); ++t) {
      std::vector<int> next = last;
      for (int i = 0; i < N; ++i) {
        const int to = (i + 1) % N;
        const bool scatter = t < N - 1;
        const auto [po, pb] = element_part(b, N, scatter ? mod(i - t, N) : mod(i + 1 - (t - (N - 1)), N));
        std::vector<int> deps = {last[static_cast<std::size_t>(i)]};
        if (t == 0) deps.push_back(local_sum[static_cast<std::size_t>(to)]);
        const int x = add(pr, home[static_cast<std::size_t>(i)], home[static_cast<std::size_t>(to)], pb, deps);
        DataRange& d = pr.transfers[static_cast<std::size_t>(x)].data;
        d.offset = off + po, d.span = pb, d.src_slot = kSlotAcc, d.dst_slot = scatter ? kSlotRecv : kSlotAcc;
        next[static_cast<std::size_t>(to)] =
            scatter ? add_reduce(pr, home[static_cast<std::size_t>(to)], off + po, pb, {x}, {kSlotRecv, kSlotAcc}) : x;
        received[static_cast<std::size_t>(to)].push_back(next[static_cast<std::size_t>(to)]);
      }
      last = next;
    }
    for (int i = 0; i < N; ++i) {
      std::vector<int> ready = received[static_cast<std::size_t>(i)], out;
      ready.push_back(local_sum[static_cast<std::size_t>(i)]);
      for (int r : local[order[static_cast<std::size_t>(i)]])
        hdm_transfers(pr, r, ports_of(i), dev.interleave, off, b, false, kSlotAcc, ready, out);
    }
  }
}

// Parameter-server all-reduce over K CPU aggregators (BytePS): the buffer is split into K parts,
// part k belongs to aggregator k. Each part goes in chunk-sized segments, round by round (segment
// s of every part, then s + 1): every GPU pushes segment (s, k) to aggregator k (split evenly
// over its m ports, one per NIC), the aggregator sums the p contributions once all are in, and
// sends the sum back to every GPU from the same ports. Each GPU sends and receives n bytes,
// against ring's 2(p-1)/p n. Transfers leave an endpoint in program order, so they are listed
// staggered: in a round GPU c visits the Q = K m ports from port c mod Q on, and port q answers
// the GPUs from q p / Q on, so that at any moment the GPUs are spread over the ports (and the
// ports over the GPUs) instead of all meeting at one (incast).
void ps_all_reduce(Program& pr, const std::vector<int>& g, std::uint64_t n, std::uint64_t chunk, const DeviceMap& dev) {
  const int K = static_cast<int>(dev.ports_of_aggregator.size()), p = static_cast<int>(g.size());
  if (K == 0) throw std::invalid_argument("the ps algorithm needs CPU aggregators (cluster.aggregators.count)");
  const int m = static_cast<int>(dev.ports_of_aggregator[0].size()), Q = K * m;  // every aggregator has m ports
  for (const auto& ports : dev.ports_of_aggregator)
    for (int port : ports) pr.ranks.push_back(port);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> parts;
  std::uint64_t rounds = 0;
  for (int k = 0; k < K; ++k) {
    parts.push_back(element_part(n, K, k));
    rounds = std::max(rounds, (parts.back().second + chunk - 1) / chunk);
  }
  const std::vector<int> slots = contributor_slots(g.size());
  // Port j's piece of segment (s, k): {buffer offset, bytes}.
  auto piece = [&](std::uint64_t s, int k, int j) -> std::pair<std::uint64_t, std::uint64_t> {
    const auto [off, bytes] = parts[static_cast<std::size_t>(k)];
    if (s * chunk >= bytes) return {0, 0};
    const auto [po, pb] = element_part(std::min(chunk, bytes - s * chunk), m, j);
    return {off + s * chunk + po, pb};
  };
  auto port_of = [&](int k, int j) {
    return dev.ports_of_aggregator[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)];
  };
  for (std::uint64_t s = 0; s < rounds; ++s) {
    std::vector<std::vector<int>> in(static_cast<std::size_t>(K));
    for (int t = 0; t < Q; ++t)
      for (int c = 0; c < p; ++c) {
        const int q = (c + t) % Q, k = q / m, j = q % m;
        const auto [off, b] = piece(s, k, j);
        if (b == 0) continue;
        const int x = add(pr, g[static_cast<std::size_t>(c)], port_of(k, j), b, {});
        DataRange& d = pr.transfers[static_cast<std::size_t>(x)].data;
        d.offset = off, d.span = b, d.dst_slot = c;
        in[static_cast<std::size_t>(k)].push_back(x);
      }
    for (int k = 0; k < K; ++k) {
      if (in[static_cast<std::size_t>(k)].empty()) continue;
      const auto [part_off, part_bytes] = parts[static_cast<std::size_t>(k)];
      const int red = add_reduce(pr, port_of(k, 0), part_off + s * chunk, std::min(chunk, part_bytes - s * chunk),
                                 std::move(in[static_cast<std::size_t>(k)]), slots);
      for (int t = 0; t < p; ++t)
        for (int j = 0; j < m; ++j) {
          const int q = k * m + j, c = (q * p / Q + t) % p;
          const auto [po, b] = piece(s, k, j);
          if (b == 0) continue;
          const int x = add(pr, port_of(k, j), g[static_cast<std::size_t>(c)], b, {red});
          DataRange& d = pr.transfers[static_cast<std::size_t>(x)].data;
          d.offset = po, d.span = b, d.src_slot = kSlotAcc;
        }
    }
  }
}

}  // namespace

std::uint64_t hdm_bytes(std::uint64_t offset, std::uint64_t bytes, std::uint64_t granule, int ways, int way) {
  if (ways <= 1) return bytes;
  // Bytes of [0, x) in `way`: whole rounds of `ways` stripes, then what the last round reaches.
  const std::uint64_t round = granule * static_cast<std::uint64_t>(ways),
                      first = granule * static_cast<std::uint64_t>(way);
  auto below = [&](std::uint64_t x) {
    const std::uint64_t r = x % round;
    return x / round * granule + (r > first ? std::min(r - first, granule) : 0);
  };
  return below(offset + bytes) - below(offset);
}

std::pair<std::uint64_t, std::uint64_t> element_part(std::uint64_t n, int parts, int k) {
  const std::uint64_t units = n / 4, p = static_cast<std::uint64_t>(parts), kk = static_cast<std::uint64_t>(k);
  const std::uint64_t off = 4 * (kk * (units / p) + std::min(kk, units % p));
  std::uint64_t bytes = 4 * (units / p + (kk < units % p ? 1 : 0));
  if (kk + 1 == p) bytes += n % 4;
  return {off, bytes};
}

RingTransfer ring_transfer(const Program& pr, int x) {
  const RingForm& f = pr.ring;
  const int p = static_cast<int>(pr.ranks.size()), per = f.per_channel(p), c = x / per, y = x % per, t = y / p,
            i = y % p;
  // The segment functions of ring_all_reduce, ring_reduce_scatter and ring_all_gather.
  const int seg = f.op == CollectiveOp::AllReduce && t >= p - 1 ? mod(i + 1 - (t - (p - 1)), p) : mod(i - t, p);
  return {pr.ranks[static_cast<std::size_t>(f.position(c, i))],
          pr.ranks[static_cast<std::size_t>(f.position(c, (i + 1) % p))], part(part(f.bytes, f.channels, c), p, seg),
          t > 0 ? c * per + (t - 1) * p + (i + p - 1) % p : -1};
}

Program explicit_program(const Program& p) {
  if (p.ring.steps <= 0) return p;
  Program e = p;
  e.ring = {};
  const int n = p.ring.channels * p.ring.per_channel(static_cast<int>(p.ranks.size()));
  e.transfers.reserve(static_cast<std::size_t>(n));
  for (int x = 0; x < n; ++x) {
    const RingTransfer r = ring_transfer(p, x);
    Transfer t;
    t.src = r.src, t.dst = r.dst, t.bytes = r.bytes;
    if (r.dep >= 0) t.deps = {r.dep};
    e.transfers.push_back(std::move(t));
  }
  return e;
}

Program build_program(CollectiveOp op, CollectiveAlgo algo, const std::vector<int>& comm, std::uint64_t bytes,
                      std::uint64_t chunk, const std::vector<int>& nodes_of, int root, const DeviceMap* devices,
                      const RingLayout* rings) {
  Program pr;
  pr.ranks = comm;
  pr.gpu_ranks = static_cast<int>(comm.size());
  const int p = static_cast<int>(comm.size());
  const Deps none(static_cast<std::size_t>(p));
  if (chunk == 0) chunk = bytes ? bytes : 1;
  // Flat rings stay implicit (a communicator that repeats a rank is spelled out: positions of
  // one rank would merge).
  const bool flat_ring = (op == CollectiveOp::AllReduce && algo == CollectiveAlgo::Ring) ||
                         op == CollectiveOp::ReduceScatter || op == CollectiveOp::AllGather;
  if (flat_ring && p >= 2 && std::set<int>(comm.begin(), comm.end()).size() == comm.size()) {
    RingForm& f = pr.ring;
    f.op = op, f.steps = op == CollectiveOp::AllReduce ? 2 * (p - 1) : p - 1, f.bytes = bytes;
    if (rings) {
      f.channels = ring_channels(*rings, comm, nodes_of);
      // Transfers are numbered by int (and tagged in 32 bits) across all channels.
      if (static_cast<long long>(f.channels) * f.steps * p > INT_MAX)
        throw std::invalid_argument(std::to_string(f.channels) + " channels of a " + std::to_string(p) +
                                    "-rank ring are more transfers than one collective can number; use fewer channels");
      if (rings->order == RingOrder::Topology) {
        f.order = topology_rings(comm, nodes_of, rings->nic_of, f.channels);
        f.where.assign(f.order.size(), std::vector<int>(static_cast<std::size_t>(p)));
        for (std::size_t c = 0; c < f.order.size(); ++c)
          for (int i = 0; i < p; ++i) f.where[c][static_cast<std::size_t>(f.order[c][static_cast<std::size_t>(i)])] = i;
      }
    }
    return pr;
  }
  switch (op) {
    case CollectiveOp::AllReduce:
      if (algo == CollectiveAlgo::Tree) {
        const std::uint64_t buffer = rings ? rings->buffer : RingLayout{}.buffer;
        tree_all_reduce(pr, comm, bytes, chunk,
                        static_cast<int>(std::clamp<std::uint64_t>(buffer / chunk, 1, INT_MAX)));
      } else if (algo == CollectiveAlgo::Hierarchical) hierarchical_all_reduce(pr, comm, bytes, nodes_of);
      else if (algo == CollectiveAlgo::CxlAllReduce)
        cxl_all_reduce(pr, comm, bytes, chunk, nodes_of, devices ? *devices : DeviceMap{});
      else if (algo == CollectiveAlgo::CxlHierarchical)
        cxl_hierarchical(pr, comm, bytes, chunk, nodes_of, devices ? *devices : DeviceMap{});
      else if (algo == CollectiveAlgo::Ps) ps_all_reduce(pr, comm, bytes, chunk, devices ? *devices : DeviceMap{});
      else if (algo == CollectiveAlgo::Nvls)
        nvls_all_reduce(pr, comm, bytes, nodes_of, devices ? *devices : DeviceMap{});
      else ring_all_reduce(pr, comm, bytes, none);
      break;
    case CollectiveOp::ReduceScatter: ring_reduce_scatter(pr, comm, bytes, none); break;
    case CollectiveOp::AllGather: ring_all_gather(pr, comm, bytes, none); break;
    case CollectiveOp::Broadcast: pipeline_broadcast(pr, comm, bytes, chunk, root); break;
    case CollectiveOp::SendRecv:
      // nccl-tests' sendrecv: every rank sends n bytes to the next and receives from the previous.
      for (int i = 0; p > 1 && i < p; ++i) add(pr, comm[i], comm[(i + 1) % p], bytes, {});
      break;
    case CollectiveOp::AllToAll:
      // nccl-tests' alltoall: each rank's buffer of n bytes is p parts, part j for rank j; all
      // p(p - 1) sends start together (NCCL posts them as one group), so NICs are shared.
      for (int i = 0; i < p; ++i)
        for (int j = 0; j < p; ++j)
          if (i != j) add(pr, comm[i], comm[j], element_part(bytes, p, j).second, {});
      break;
    case CollectiveOp::Reduce: pipeline_reduce(pr, comm, bytes, chunk, root); break;
    // Gather and scatter as NCCL's grouped sends: part j of the root's n bytes from or to rank j, all at once.
    case CollectiveOp::Gather:
      for (int j = 0; j < p; ++j)
        if (j != root) add(pr, comm[j], comm[root], element_part(bytes, p, j).second, {});
      break;
    case CollectiveOp::Scatter:
      for (int j = 0; j < p; ++j)
        if (j != root) add(pr, comm[root], comm[j], element_part(bytes, p, j).second, {});
      break;
  }
  return pr;
}

}  // namespace trainvp
