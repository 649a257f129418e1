#pragma once
// How the ranks' Chakra traces meet: which nodes of which ranks make up one collective, and which
// send meets which receive. Matching is by position in each trace (the k-th collective a rank
// issues on a process group meets the k-th of every other member; the k-th send from a to b with
// tag t meets b's k-th receive from a with t), as NCCL requires a communicator's members to issue
// collectives in the same order. Matching by trace position rather than by the order nodes happen
// to become ready keeps it static: every mismatch is found before the run, naming the node.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/workload/chakra/trace.hpp"

namespace trainvp::chakra {

struct CollectiveUse {
  int comm_type = kAllReduce;
  std::uint64_t bytes = 0;           // comm_size: the buffer as nccl-tests counts it (a barrier: 4)
  std::string group;                 // the process group; "" for every rank
  std::vector<int> ranks;            // its members, in the group's order (ring order)
  int root = -1;                     // rooted types: the global rank sending or receiving, else -1
  std::vector<std::size_t> node_of;  // per member position: the node's index in that rank's trace
};

struct PointToPoint {
  int src = 0, dst = 0;
  std::uint64_t bytes = 0;
  std::int64_t tag = 0;
  std::size_t send_node = 0, recv_node = 0;  // indices in src's and dst's traces
};

struct Plan {
  std::vector<CollectiveUse> collectives;
  std::vector<PointToPoint> p2p;
  // Per rank and node: the index into `collectives` (COMM_COLL_NODE) or `p2p` (send and receive
  // nodes), -1 for other nodes.
  std::vector<std::vector<int>> use_of;
};

// A trace set that cannot run: what() names the rank and the node.
struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Process groups by name (ASTRA-sim's communicator-group file: {"1": [0, 1, 2, 3], ...}).
using Groups = std::map<std::string, std::vector<int>>;

// The node types and collectives trainvp runs (docs/workloads.md#chakra-execution-traces).
bool supported_node(int type);
bool supported_collective(int comm_type);

// `traces[r]` is rank r's trace (the same object may serve several ranks).
Plan plan_run(const std::vector<const Trace*>& traces, const Groups& groups);

}  // namespace trainvp::chakra
