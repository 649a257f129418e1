// The fabric once built (fabric.hpp): its endpoints, jobs and link changes, traces, and what it
// reports (describe, results.json's links and tiers, link_series.json). Building it is in
// fabric_topology.cpp, routing in fabric_routing.cpp.
#include "platform/system/fabric/fabric.hpp"

#include <algorithm>

#include "platform/core/sim_time.hpp"

namespace trainvp {

// Modules go in the reverse of their creation: SystemC's port and export registries find the
// one leaving by a linear search from their end, so first-to-last (std::vector's order) was
// quadratic in the links (a sixth of an 8,192-GPU run's CPU time).
Fabric::~Fabric() {
  while (!checkers_.empty()) checkers_.pop_back();
  flow_ports_.clear();
  flow_.reset();
  while (!dirs_.empty()) dirs_.pop_back();
  while (!devices_.empty()) devices_.pop_back();
}

std::vector<ChunkEndpoint*> Fabric::endpoints(const std::vector<Gpu*>& gpus) {
  if (!flow_) return {gpus.begin(), gpus.end()};
  std::vector<ChunkEndpoint*> out;
  for (Gpu* g : gpus) {
    flow_ports_.push_back(std::make_unique<FlowEndpoint>(*flow_, g->endpoint_name()));
    out.push_back(flow_ports_.back().get());
  }
  return out;
}

LinkDirTotals Fabric::dir_totals(std::size_t d, std::int64_t now_ps) const {
  return flow_ ? flow_->totals(static_cast<int>(d), now_ps) : dirs_[d].packet->totals(now_ps);
}

void Fabric::add_dir_repeats(std::size_t d, const LinkDirTotals& from, const LinkDirTotals& to, int times,
                             std::int64_t skip_from_ps, std::int64_t skip_to_ps) {
  if (flow_) flow_->add_repeats(static_cast<int>(d), from, to, times, skip_from_ps, skip_to_ps);
  else dirs_[d].packet->add_repeats(from, to, times, skip_from_ps, skip_to_ps);
}

void Fabric::set_owners(std::vector<int> owner_of_rank, std::size_t owners) {
  owner_of_rank_ = std::move(owner_of_rank);
  single_path_.clear();           // routes made before carry no owner: made afresh (the same paths)
  if (flow_) flow_->cut_ahead();  // a ring running ahead goes on by the new routes from its next step
  routes_.clear();
  ++routes_version_;
  for (FabricDir& d : dirs_) d.dir->set_owners(owners);
}

void Fabric::links_changed(const std::vector<int>& dirs) {
  if (flow_)
    for (int d : dirs) flow_->link_changed(d);
}

void Fabric::attach_source(int nic_device, tlm::tlm_initiator_socket<>& source) {
  bind_pair(source, devices_[static_cast<std::size_t>(nic_device)].fwd->in);
  ++devices_[static_cast<std::size_t>(nic_device)].in_ports;
}

int Fabric::attach_sink(int nic_device, tlm::tlm_target_socket<>* sink) {
  FabricDevice& d = devices_[static_cast<std::size_t>(nic_device)];
  const int port = static_cast<int>(d.out.size()) + d.sinks++;  // the forwarder's out-ports: links, then sinks
  if (d.fwd) bind_pair(d.fwd->out, *sink);
  return port;
}

void Fabric::trace_nics() {
  if (!ctx_.trace.enabled()) return;
  for (auto& d : dirs_) {
    const FabricDevice& from = devices_[static_cast<std::size_t>(d.from)];
    if (from.kind != DeviceKind::Nic || d.kind != LinkKind::Ethernet) continue;
    const std::size_t dot = from.name.find('.');  // nodeN.nicI, aggA.nicI
    // Flow fidelity records no transmissions, but the trace lists the NICs' tracks alike.
    const int track = ctx_.trace.track(from.name.substr(0, dot), from.name.substr(dot + 1));
    if (d.packet) d.packet->trace_on(track);
  }
}

void Fabric::flush_trace() {
  if (flow_) flow_->settle();
  for (auto& d : dirs_)
    if (d.packet) d.packet->flush_trace();
}

nlohmann::ordered_json Fabric::describe() const {
  using oj = nlohmann::ordered_json;
  oj devs = oj::array(), links = oj::array();
  for (auto& d : devices_) {
    oj e = {{"name", d.name}, {"kind", device_kind_name(d.kind)}};
    if (d.node >= 0) e["node"] = d.node;
    devs.push_back(e);
  }
  for (auto& l : links_)
    links.push_back({{"name", l.name},
                     {"kind", link_kind_name(l.kind)},
                     {"a", devices_[static_cast<std::size_t>(l.a)].name},
                     {"b", devices_[static_cast<std::size_t>(l.b)].name},
                     {"bandwidth_bps", l.bandwidth_bps},
                     {"latency_s", static_cast<double>(l.latency_ps) * 1e-12}});
  oj gpus = oj::array();
  for (std::size_t r = 0; r < gpu_device_.size(); ++r) {
    if (devices_[static_cast<std::size_t>(gpu_device_[r])].kind != DeviceKind::Gpu) continue;
    gpus.push_back({{"rank", r},
                    {"name", devices_[static_cast<std::size_t>(gpu_device_[r])].name},
                    {"nic", devices_[static_cast<std::size_t>(nic_of_gpu_[r])].name}});
  }
  return {{"devices", devs}, {"links", links}, {"gpus", gpus}};
}

nlohmann::ordered_json Fabric::report_links(std::int64_t end_ps) const {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const FabricDir& d : dirs_) {
    if (d.dir->stats().chunks == 0) continue;
    nlohmann::ordered_json o = {{"name", d.dir->label()}, {"link", links_[static_cast<std::size_t>(d.link)].name}};
    d.dir->report(o, end_ps);
    links.push_back(o);
  }
  return links;
}

std::string Fabric::tier_of(const FabricDir& d) const {
  const FabricLink& l = links_[static_cast<std::size_t>(d.link)];
  if (devices_[static_cast<std::size_t>(l.a)].kind == DeviceKind::Core ||
      devices_[static_cast<std::size_t>(l.b)].kind == DeviceKind::Core)
    return "core";
  const bool spine = devices_[static_cast<std::size_t>(l.a)].kind == DeviceKind::Spine ||
                     devices_[static_cast<std::size_t>(l.b)].kind == DeviceKind::Spine;
  return l.kind == LinkKind::Ethernet ? (spine ? "spine" : "nic") : link_kind_name(l.kind);
}

nlohmann::ordered_json Fabric::report_tiers() const {
  nlohmann::ordered_json t = {{"nvlink_bytes", 0}, {"pcie_bytes", 0}, {"nic_bytes", 0}, {"spine_bytes", 0}};
  for (const FabricDir& d : dirs_) {
    const std::string key = tier_of(d) + "_bytes";
    t[key] = t.value(key, std::uint64_t{0}) + d.dir->stats().payload_bytes;
  }
  return t;
}

// Written link by link into one string: a JSON tree of every link's intervals would take tens of
// bytes per number (hundreds of MB at thousands of GPUs) where the text takes a few.
std::string Fabric::report_series(std::int64_t end_ps, const std::vector<std::string>& owners) const {
  std::int64_t widest = 0, last = end_ps;
  for (const FabricDir& d : dirs_) {
    const BusySeries& b = d.dir->busy_series();
    if (!b.empty()) widest = std::max(widest, b.width_ps()), last = std::max(last, b.last_end_ps());
  }
  const std::int64_t width = BusySeries::common_width(last, widest);
  const auto n = static_cast<std::size_t>((last + width - 1) / width);
  nlohmann::ordered_json head = {{"simulated_s", sec(end_ps)}, {"interval_s", sec(width)}, {"intervals", n}};
  if (!owners.empty()) head["jobs"] = owners;
  std::string out = head.dump();
  out.pop_back();  // its closing brace: the links follow
  out += ",\"links\":[";
  bool first = true;
  for (const FabricDir& d : dirs_) {
    if (d.dir->stats().chunks == 0) continue;  // as report_links
    nlohmann::ordered_json l = {{"name", d.dir->label()},
                                {"tier", tier_of(d)},
                                {"bytes", d.dir->stats().payload_bytes},
                                {"busy_s", sec(d.dir->stats().busy_ps)}};
    nlohmann::ordered_json busy = nlohmann::ordered_json::array();
    for (double ps : d.dir->busy_series().at_width(width, n)) busy.push_back(ps * 1e-12);
    l["busy"] = std::move(busy);
    if (!owners.empty()) l["job_bytes"] = d.dir->owner_bytes();
    out += (first ? "" : ",") + l.dump();
    first = false;
  }
  return out + "]}";
}

}  // namespace trainvp
