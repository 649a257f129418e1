#pragma once
// Writes Chakra traces for tests with the schema's generated classes, as Chakra's own tools do:
// a GlobalMetadata, then each Node, every message preceded by its varint length.
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/util/delimited_message_util.h>

#include "models/workload/chakra/et_def.pb.h"

namespace trainvp::chakra_writer {

namespace pb = trainvp::chakra_pb;

inline pb::Node node(std::uint64_t id, const std::string& name, pb::NodeType type,
                     std::vector<std::uint64_t> deps = {}) {
  pb::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  for (std::uint64_t d : deps) n.add_data_deps(d);
  auto* cpu = n.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_bool_val(false);
  return n;
}

inline pb::AttributeProto* attr(pb::Node& n, const std::string& name) {
  auto* a = n.add_attr();
  a->set_name(name);
  return a;
}

// A GPU kernel of a recorded duration.
inline pb::Node comp(std::uint64_t id, const std::string& name, std::uint64_t micros,
                     std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, name, pb::COMP_NODE, std::move(deps));
  n.set_duration_micros(micros);
  return n;
}

// A collective as Chakra's generators write it: comm_type and comm_size as int64.
inline pb::Node coll(std::uint64_t id, const std::string& name, pb::CollectiveCommType type, std::int64_t bytes,
                     std::vector<std::uint64_t> deps = {}, const std::string& pg = "") {
  pb::Node n = node(id, name, pb::COMM_COLL_NODE, std::move(deps));
  attr(n, "comm_type")->set_int64_val(type);
  attr(n, "comm_size")->set_int64_val(bytes);
  if (!pg.empty()) attr(n, "pg_name")->set_string_val(pg);
  return n;
}

// Sends and receives as Chakra's feeder reads them: comm_src, comm_dst and comm_tag as int32.
inline pb::Node p2p(std::uint64_t id, const std::string& name, bool send, int src, int dst, std::int64_t bytes, int tag,
                    std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, name, send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, std::move(deps));
  attr(n, "comm_src")->set_int32_val(src);
  attr(n, "comm_dst")->set_int32_val(dst);
  attr(n, "comm_size")->set_int64_val(bytes);
  attr(n, "comm_tag")->set_int32_val(tag);
  return n;
}

inline void write(const std::string& path, const std::vector<pb::Node>& nodes, const std::string& version = "0.0.4") {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  pb::GlobalMetadata meta;
  meta.set_version(version);
  bool ok = google::protobuf::util::SerializeDelimitedToOstream(meta, &out);
  for (const pb::Node& n : nodes) ok = ok && google::protobuf::util::SerializeDelimitedToOstream(n, &out);
  if (!ok || !out) throw std::runtime_error("cannot write " + path);
}

}  // namespace trainvp::chakra_writer
