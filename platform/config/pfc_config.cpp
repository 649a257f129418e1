#include "platform/config/pfc_config.hpp"

#include <algorithm>
#include <cmath>

#include "platform/core/errors.hpp"

namespace trainvp {

const ParamSet<PfcConfig>& pfc_schema() {
  static const ParamSet<PfcConfig> s = [] {
    ParamSet<PfcConfig> p("pfc", "/cluster/fabric/pfc",
                          "How Ethernet links push back (docs/fabric.md#pfc). egress: each link's output queue holds "
                          "fabric.switch_buffer and a sender stops after a few chunks its far end has not taken "
                          "(PFC-like, acting at once); ingress: IEEE 802.1Qbb PFC, each switch or NIC port counts the "
                          "bytes that came in through it and are still held, sends PAUSE above xoff and RESUME at xon, "
                          "each acting one hop later; off: no pause on Ethernet (lossless, switch queues unbounded). "
                          "Packet fidelity only for ingress and off.");
    p.choice("mode", &PfcConfig::mode, "egress",
             {{"egress", PfcMode::Egress}, {"ingress", PfcMode::Ingress}, {"off", PfcMode::Off}},
             "egress: per-link output-queue back-pressure (the model before PFC existed here); ingress: per-port "
             "ingress accounting with XOFF/XON and headroom; off: no pause, switch queues grow without bound")
        .size("xoff", &PfcConfig::xoff, "0B",
              "Ingress bytes held above which a port sends PAUSE (mode ingress); 0: fabric.switch_buffer, a port's "
              "share of the switch buffer. At least fabric.chunk (the count moves in whole chunks)")
        .size("xon", &PfcConfig::xon, "0B",
              "Ingress bytes held at or below which a paused port sends RESUME (mode "
              "ingress); 0: xoff / 2. Below xoff")
        .size("headroom", &PfcConfig::headroom, "0B",
              "Bytes a port absorbs above xoff while its PAUSE takes effect (mode ingress); more is counted as "
              "pfc_headroom_overflow_bytes (a real switch drops it). 0: per port, link rate x (link latency + "
              "sender's forwarding latency + pause delay) + 2 chunks on the wire");
    return p;
  }();
  return s;
}

json load_pfc(PfcConfig& c, const json& value, const std::string& path, std::uint64_t switch_buffer,
              std::uint64_t chunk, bool flow_fidelity) {
  json r = pfc_schema().load(c, value, path);
  if (c.mode != PfcMode::Egress && flow_fidelity)  // flows have no queues to count or pause
    fail_expected(ptr_join(path, "mode"), "\"egress\" with fabric.fidelity \"flow\" (flows have no queues)", r["mode"]);
  if (c.mode != PfcMode::Ingress) {  // the thresholds belong to ingress PFC only
    for (const char* k : {"xoff", "xon", "headroom"})
      if (value.contains(k))
        fail_expected(ptr_join(path, "mode"), std::string("\"ingress\" when pfc.") + k + " is set", r["mode"]);
    r.erase("xoff"), r.erase("xon"), r.erase("headroom");
    return r;
  }
  if (c.xoff == 0) c.xoff = switch_buffer, r["xoff"] = std::to_string(c.xoff) + "B";
  if (c.xoff < chunk)
    fail_expected(ptr_join(path, "xoff"),
                  "at least fabric.chunk (" + std::to_string(chunk) + " bytes): the count moves in whole chunks",
                  value.value("xoff", json(c.xoff)));
  if (c.xon == 0) c.xon = c.xoff / 2, r["xon"] = std::to_string(c.xon) + "B";
  if (c.xon >= c.xoff)
    fail_expected(ptr_join(path, "xon"), "below xoff (" + std::to_string(c.xoff) + " bytes)",
                  value.value("xon", json(c.xon)));
  return r;
}

PfcPortParams pfc_port_params(const PfcConfig& c, double bps, std::int64_t propagation_ps, std::int64_t dir_latency_ps,
                              std::uint64_t chunk_wire_bytes) {
  PfcPortParams p;
  p.pause = c.mode == PfcMode::Ingress;
  p.xoff = c.xoff;
  p.xon = c.xon;
  constexpr double kPauseFrameWire = 64 + 20;  // minimum frame, preamble and inter-frame gap
  p.delay_ps = propagation_ps + std::llround(kPauseFrameWire * 8.0 / bps * 1e12);
  const double round_trip_s = static_cast<double>(dir_latency_ps + p.delay_ps) * 1e-12;
  p.headroom = c.headroom > 0 ? c.headroom
                              : static_cast<std::uint64_t>(std::ceil(bps / 8.0 * round_trip_s)) + 2 * chunk_wire_bytes;
  return p;
}

}  // namespace trainvp
