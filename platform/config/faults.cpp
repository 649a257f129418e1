#include "platform/config/faults.hpp"

#include "platform/config/fault_generator.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

const NameTable<FaultKind>& fault_kind_names() {
  static const NameTable<FaultKind> t = {
      {"link_degrade", FaultKind::LinkDegrade},     {"gpu_slowdown", FaultKind::GpuSlowdown},
      {"cpu_contention", FaultKind::CpuContention}, {"link_down", FaultKind::LinkDown},
      {"packet_loss", FaultKind::PacketLoss},       {"congestion", FaultKind::Congestion}};
  return t;
}

const char* fault_kind_name(FaultKind k) { return name_in(fault_kind_names(), k); }

namespace {

// ---- one schema per kind; the common keys are declared in each ----

std::vector<std::pair<std::string, std::string>> severity_choices() {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < kSeverities; ++i) out.push_back({severity_name(i), severity_name(i)});
  return out;
}

// `target_key`: what the kind calls its target (congestion: "source").
ParamSet<FaultConfig> fault_common(const char* name, const char* where, const char* help, const char* target_help,
                                   const char* target_key = "target") {
  ParamSet<FaultConfig> p(name, where, help);
  p.choice("kind", &FaultConfig::kind, nullptr, fault_kind_names(), "Fault kind (docs/faults.md)")
      .text(target_key, &FaultConfig::target, nullptr, target_help)
      .time("start", &FaultConfig::start_ps, "0s", "When the fault begins (simulated time)")
      .time("duration", &FaultConfig::duration_ps, nullptr, "How long it lasts; omitted: to the end of the run",
            Range::positive())
      .choice("origin", &FaultConfig::generated, nullptr, {{"scenario", false}, {"generator", true}},
              "Where the event comes from; \"generator\" marks events drawn by `fault_generator` (DIR/faults.json "
              "keeps it, so a replay reports them alike); omitted: \"scenario\"")
      .choice("severity", &FaultConfig::severity, nullptr, severity_choices(),
              "The generator's severity class of the event (informational)")
      .required("kind")
      .required(target_key);
  return p;
}
constexpr const char* kLinkTarget =
    "Link name or glob (`trainvp describe topology`): \"link:node0.nic3-switch\", \"link:node0.*\"; a device name "
    "or glob selects every link of the matched devices";
constexpr const char* kGpuTarget = "GPU name or glob: \"node1.gpu3\", \"node3.*\"";

}  // namespace

const ParamSet<FaultConfig>& fault_kind_schema(FaultKind k) {
  static const ParamSet<FaultConfig> degrade = [] {
    auto p = fault_common("fault_link_degrade", "/faults/* (kind link_degrade)",
                          "Lower bandwidth and/or added latency on links, both directions.", kLinkTarget);
    p.number("bandwidth_factor", &FaultConfig::bandwidth_factor, 1.0, "Link rate multiplied by this factor",
             Range::unit_open_closed())
        .time("added_latency", &FaultConfig::added_latency_ps, "0s", "Latency added to every chunk on the link");
    return p;
  }();
  static const ParamSet<FaultConfig> slow = [] {
    auto p = fault_common("fault_gpu_slowdown", "/faults/* (kind gpu_slowdown)",
                          "Compute fail-slow (thermal throttling): phase times divided by `factor`.", kGpuTarget);
    p.number("factor", &FaultConfig::factor, nullptr, "Compute rate factor (0.8 = 20% slower)",
             Range::unit_open_closed())
        .time("ramp", &FaultConfig::ramp_ps, "0s",
              "Time over which the rate goes linearly from 1 to `factor`, in 10 equal steps; 0: at once")
        .required("factor");
    return p;
  }();
  static const ParamSet<FaultConfig> cpu = [] {
    auto p = fault_common("fault_cpu_contention", "/faults/* (kind cpu_contention)",
                          "CPU contention on the GPUs' host: kernel-launch overhead multiplied.", kGpuTarget);
    p.number("launch_factor", &FaultConfig::launch_factor, nullptr, "Kernel-launch overhead multiplied by this",
             Range::at_least(1))
        .required("launch_factor");
    return p;
  }();
  static const ParamSet<FaultConfig> down = fault_common(
      "fault_link_down", "/faults/* (kind link_down)",
      "Links carry nothing for the duration (no new transmissions; chunks on the wire finish); new routes avoid "
      "down network links where the fabric has an alternative.",
      kLinkTarget);
  static const ParamSet<FaultConfig> loss = [] {
    auto p = fault_common("fault_packet_loss", "/faults/* (kind packet_loss)",
                          "Random packet loss on links, recovered by go-back-N (costs time, never data).", kLinkTarget);
    p.number("rate", &FaultConfig::loss_rate, nullptr, "Probability that a transmitted packet is lost",
             Range{0, 1, true, true})
        .time("timeout", &FaultConfig::loss_timeout_ps, "131.072us",
              "Retransmission timeout, paid when the lost packet has nothing of its flow behind it to reveal the gap "
              "(default 4.096us x 2^5, the shortest RDMA local-ACK timeout)",
              Range::positive())
        .required("rate");
    return p;
  }();
  static const ParamSet<FaultConfig> congestion = [] {
    auto p = fault_common("fault_congestion", "/faults/* (kind congestion)",
                          "Background cross-traffic from `source` NICs to `destination` NICs, paced at `rate`, "
                          "competing in the link queues with the training traffic.",
                          "Source NIC name or glob: \"node0.nic0\", \"node[0-1].nic*\"", "source");
    p.text("destination", &FaultConfig::destination, nullptr,
           "Destination NIC name or glob; every source sends to every other matched NIC")
        .bandwidth("rate", &FaultConfig::congestion_bps, nullptr,
                   "Payload rate of each source-destination pair while on")
        .integer("flows", &FaultConfig::flows, 1, "Parallel flows per pair (each rate / flows, its own ECMP path)",
                 {1, 64})
        .time("on", &FaultConfig::on_ps, nullptr, "On time of the on/off pattern (required with `off`)",
              Range::positive())
        .time("off", &FaultConfig::off_ps, "0s", "Off time of the on/off pattern; 0: always on")
        .size("chunk", &FaultConfig::congestion_chunk, nullptr, "Message (chunk) size; default: /cluster/fabric/chunk",
              Range::at_least(64))
        .required("destination")
        .required("rate");
    return p;
  }();
  switch (k) {
    case FaultKind::Congestion: return congestion;
    case FaultKind::LinkDegrade: return degrade;
    case FaultKind::GpuSlowdown: return slow;
    case FaultKind::CpuContention: return cpu;
    case FaultKind::PacketLoss: return loss;
    case FaultKind::LinkDown: break;
  }
  return down;
}

std::vector<FaultConfig> load_fault_list(const json& faults, json& resolved) {
  std::vector<FaultConfig> out;
  resolved = json::array();
  if (faults.is_null()) return out;
  if (!faults.is_array()) fail_expected("/faults", "an array of fault objects", faults);
  for (std::size_t i = 0; i < faults.size(); ++i) {
    std::string p = ptr_join("/faults", i);
    const json& f = faults[i];
    if (!f.is_object()) fail_expected(p, "a fault object {kind, target, ...}", f);
    const json& kind = member(f, "kind");
    if (kind.is_null()) throw ScenarioError(ptr_join(p, "kind"), "missing required key \"kind\" (the fault kind)");
    auto k = kind.is_string() ? value_in(fault_kind_names(), kind.get<std::string>()) : std::nullopt;
    if (!k) fail_expected(ptr_join(p, "kind"), "a fault kind: one of " + quoted_names(fault_kind_names()), kind);
    FaultConfig c;
    c.index = static_cast<int>(i);
    c.kind = *k;
    json r = fault_kind_schema(c.kind).load(c, f, p);
    if (c.kind == FaultKind::LinkDegrade && !f.contains("bandwidth_factor") && !f.contains("added_latency"))
      throw ScenarioError(p, "a link_degrade fault needs `bandwidth_factor` and/or `added_latency`");
    if (c.kind == FaultKind::GpuSlowdown && c.duration_ps > 0 && c.ramp_ps > c.duration_ps)
      fail_expected(ptr_join(p, "ramp"), "a ramp no longer than the duration", f["ramp"]);
    if (c.kind == FaultKind::Congestion && c.off_ps > 0 && !f.contains("on"))
      throw ScenarioError(ptr_join(p, "on"), "missing key \"on\": an `off` time needs the on time of the pattern");
    c.params = r;
    out.push_back(c);
    resolved.push_back(r);
  }
  return out;
}

}  // namespace trainvp
