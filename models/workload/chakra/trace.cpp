#include "models/workload/chakra/trace.hpp"

#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include "models/workload/chakra/et_def.pb.h"

namespace trainvp::chakra {

namespace pb = trainvp::chakra_pb;  // the generated messages

std::string node_type_name(int type) {
  static const char* const names[] = {"INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",  "MEM_STORE_NODE",
                                      "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
                                      "STORAGE_NODE", "BATCH_NODE",     "CHECKPOINT_NODE"};
  if (type >= 0 && type < static_cast<int>(std::size(names))) return names[type];
  return "type " + std::to_string(type);
}

std::string comm_type_name(int type) {
  static const char* const names[] = {
      "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
      "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};
  if (type >= 0 && type < static_cast<int>(std::size(names))) return names[type];
  return "type " + std::to_string(type);
}

std::string describe(const Node& n) {
  return "node " + std::to_string(n.id) + (n.name.empty() ? "" : " (" + n.name + ")");
}

namespace {

// Producers differ in which integer variant they write (Chakra's generators use int64, its
// feeder reads comm_src as int32): any integer or bool variant is read.
bool integer(const pb::AttributeProto& a, std::int64_t& out) {
  switch (a.value_case()) {
    case pb::AttributeProto::kInt32Val: out = a.int32_val(); return true;
    case pb::AttributeProto::kInt64Val: out = a.int64_val(); return true;
    case pb::AttributeProto::kUint32Val: out = a.uint32_val(); return true;
    case pb::AttributeProto::kUint64Val: out = static_cast<std::int64_t>(a.uint64_val()); return true;
    case pb::AttributeProto::kSint32Val: out = a.sint32_val(); return true;
    case pb::AttributeProto::kSint64Val: out = a.sint64_val(); return true;
    case pb::AttributeProto::kFixed32Val: out = a.fixed32_val(); return true;
    case pb::AttributeProto::kFixed64Val: out = static_cast<std::int64_t>(a.fixed64_val()); return true;
    case pb::AttributeProto::kSfixed32Val: out = a.sfixed32_val(); return true;
    case pb::AttributeProto::kSfixed64Val: out = a.sfixed64_val(); return true;
    case pb::AttributeProto::kBoolVal: out = a.bool_val() ? 1 : 0; return true;
    default: return false;
  }
}

Node convert(const pb::Node& m, const std::string& where) {
  Node n;
  n.id = m.id();
  n.name = m.name();
  n.type = static_cast<int>(m.type());
  n.duration_us = m.duration_micros();
  std::unordered_set<std::uint64_t> seen;
  for (std::uint64_t d : m.data_deps())
    if (seen.insert(d).second) n.deps.push_back(d);
  for (std::uint64_t d : m.ctrl_deps())
    if (seen.insert(d).second) n.deps.push_back(d);
  for (const pb::AttributeProto& a : m.attr()) {
    const std::string& k = a.name();
    auto need_int = [&](std::int64_t& v) {
      if (!integer(a, v)) throw TraceError(where + ": " + describe(n) + ": attribute " + k + " is not an integer");
    };
    std::int64_t v = 0;
    if (k == "is_cpu_op") need_int(v), n.is_cpu_op = v != 0;
    else if (k == "num_ops") need_int(v), n.num_ops = static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
    else if (k == "tensor_size") need_int(v), n.tensor_size = static_cast<std::uint64_t>(std::max<std::int64_t>(v, 0));
    else if (k == "comm_type") need_int(v), n.comm_type = static_cast<int>(v);
    else if (k == "comm_size") {
      need_int(v);
      if (v < 0) throw TraceError(where + ": " + describe(n) + ": comm_size " + std::to_string(v) + " is negative");
      n.comm_size = static_cast<std::uint64_t>(v);
    } else if (k == "comm_src") need_int(n.comm_src);
    else if (k == "comm_dst") need_int(n.comm_dst);
    else if (k == "comm_tag") need_int(n.comm_tag);
    else if (k == "pg_name") {
      if (a.value_case() == pb::AttributeProto::kStringVal) n.pg_name = a.string_val();
      else if (integer(a, v)) n.pg_name = std::to_string(v);  // a group id written as a number
      else throw TraceError(where + ": " + describe(n) + ": attribute pg_name is neither a string nor an integer");
    }
    // Other attributes (involved_dim, comm_priority, op_schema, ...) do not change what trainvp runs.
  }
  return n;
}

}  // namespace

void check_dag(const Trace& t, const std::string& where) {
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (!index.emplace(t.nodes[i].id, i).second)
      throw TraceError(where + ": node id " + std::to_string(t.nodes[i].id) + " appears twice");
  std::vector<int> left(t.nodes.size(), 0);
  std::vector<std::vector<std::size_t>> children(t.nodes.size());
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    for (std::uint64_t d : t.nodes[i].deps) {
      auto it = index.find(d);
      if (it == index.end())
        throw TraceError(where + ": " + describe(t.nodes[i]) + " depends on node " + std::to_string(d) +
                         ", which the trace does not hold");
      children[it->second].push_back(i);
      ++left[i];
    }
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (left[i] == 0) ready.push_back(i);
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::size_t i = ready.back();
    ready.pop_back();
    ++done;
    for (std::size_t c : children[i])
      if (--left[c] == 0) ready.push_back(c);
  }
  if (done == t.nodes.size()) return;
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (left[i] > 0)
      throw TraceError(where + ": " + describe(t.nodes[i]) + " is on a dependency cycle (or waits for one)");
}

Trace read_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path + ": cannot be opened");
  google::protobuf::io::IstreamInputStream stream(&in);
  Trace t;
  pb::GlobalMetadata meta;
  bool clean_eof = false;
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &stream, &clean_eof))
    throw TraceError(path + (clean_eof ? ": is empty (a Chakra trace starts with its GlobalMetadata)"
                                       : ": is not a Chakra execution trace (its first message does not parse)"));
  t.version = meta.version();
  for (;;) {
    pb::Node m;
    if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(&m, &stream, &clean_eof)) {
      if (clean_eof) break;
      throw TraceError(path + ": message " + std::to_string(t.nodes.size() + 2) +
                       " does not parse as a Chakra node (a truncated or corrupt file)");
    }
    t.nodes.push_back(convert(m, path));
  }
  check_dag(t, path);
  return t;
}

}  // namespace trainvp::chakra
