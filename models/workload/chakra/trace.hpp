#pragma once
// Chakra execution traces (MLCommons; ASTRA-sim's input) read into plain structs, so that nothing
// above this folder sees protobuf. A trace is one rank's DAG of operations; docs/workloads.md
// #chakra-execution-traces lists the node types and attributes trainvp reads.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainvp::chakra {

// Chakra's NodeType and CollectiveCommType values (et_def.proto).
enum NodeType : int {
  kInvalidNode = 0,
  kMetadataNode = 1,
  kMemLoadNode = 2,
  kMemStoreNode = 3,
  kCompNode = 4,
  kSendNode = 5,
  kRecvNode = 6,
  kCollNode = 7,
};
enum CommType : int {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};
// Their names as the schema spells them ("COMP_NODE", "ALL_REDUCE"), or "type N" when unknown.
std::string node_type_name(int type);
std::string comm_type_name(int type);

struct Node {
  std::uint64_t id = 0;
  std::string name;
  int type = kInvalidNode;
  std::vector<std::uint64_t> deps;  // data dependencies, then control ones not already listed
  std::uint64_t duration_us = 0;    // duration_micros: a measured time, 0 when absent
  // Attributes (absent: the defaults; -1 marks "not given" where 0 is a value).
  bool is_cpu_op = false;         // ASTRA-sim's default too: a node runs on the GPU unless marked
  std::uint64_t num_ops = 0;      // FLOPs, for the roofline when no duration is recorded
  std::uint64_t tensor_size = 0;  // bytes read and written (compute), or moved (memory nodes)
  int comm_type = -1;
  std::uint64_t comm_size = 0;
  std::int64_t comm_src = -1, comm_dst = -1;
  std::int64_t comm_tag = 0;
  std::string pg_name;  // the process group (communicator); empty: every rank
};

struct Trace {
  std::string version;      // GlobalMetadata.version
  std::vector<Node> nodes;  // in file order
};

// "node 7 (fwd.h0)": how messages name a node.
std::string describe(const Node& n);

// A trace that cannot be read or is not a DAG. what() names the file and, where it applies, the node.
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads a trace file: checks that ids are unique, that every dependency names a node of the trace
// and that there is no cycle.
Trace read_trace(const std::string& path);
// The same checks on a trace built in memory (`where` prefixes messages).
void check_dag(const Trace& t, const std::string& where);

}  // namespace trainvp::chakra
