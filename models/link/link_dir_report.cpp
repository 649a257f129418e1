// What a link direction reports in results.json (a LinkState in flow fidelity, a LinkDir in packet
// fidelity), and its sockets and statistics for `trainvp describe`.
#include "models/link/link_dir.hpp"

#include "models/link/congestion.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

const ModelInfo& LinkDir::info() {
  static const ModelInfo i{
      "link_dir",
      "One direction of a full-duplex link (NVLink, PCIe, Ethernet/InfiniBand, CXL) with the output queue of the "
      "device it leaves: fair per-flow queues, serialization, propagation, PFC-like back-pressure, packet loss, "
      "ECN marking and DCQCN pacing (fabric.congestion_control; then also pauses, ecn_marked_packets, cnps_sent, dcqcn).",
      {"fabric", "nvlink", "pcie"},
      "links[*]",
      {{"in", "target, TLM-2.0 AT", "the sending device: a GPU's or CXL port's dma, a switch's out"},
       {"out", "initiator, TLM-2.0 AT", "the receiving device: a GPU's or CXL port's mem, a switch's in"}},
      {{"bytes", "bytes", "payload bytes carried"},
       {"wire_bytes", "bytes", "bytes on the wire, framing and retransmissions included"},
       {"chunks", "count", "chunks carried"},
       {"busy_s", "s", "time transmitting"},
       {"utilization", "fraction", "busy_s over the simulated time"},
       {"peak_queue_bytes", "bytes", "largest output queue", "fabric.fidelity packet"},
       {"mean_queue_bytes", "bytes", "time-averaged output queue", "fabric.fidelity packet"},
       {"paused_s", "s", "time stopped by back-pressure from the far end", "fabric.fidelity packet"},
       {"lost_packets", "count", "packets lost (packet-loss faults)", "fabric.fidelity packet"},
       {"retransmitted_bytes", "bytes", "bytes sent again after losses (go-back-N)", "fabric.fidelity packet"},
       {"background_bytes", "bytes", "bytes of background traffic (congestion faults)"},
       {"pfc_pause_frames", "count", "PFC PAUSE (XOFF) frames the far end sent back", "pfc.mode ingress"},
       {"pfc_resume_frames", "count", "PFC RESUME (XON) frames the far end sent back", "pfc.mode ingress"},
       {"pfc_paused_s", "s", "time the transmitter was held by PAUSE frames, work queued or not", "pfc.mode ingress"},
       {"pfc_peak_ingress_bytes", "bytes", "largest count of bytes held at the far end that came in by this link",
        "pfc.mode ingress or off"},
       {"pfc_headroom_overflow_bytes", "bytes",
        "bytes that arrived beyond XOFF + headroom: a real switch would drop them; kept here", "pfc.mode ingress"},
       {"pauses", "count", "times back-pressure stopped it with work queued", "fabric.congestion_control given"},
       {"ecn_marked_packets", "count", "packets ECN-marked at this switch egress queue", "congestion_control dcqcn"},
       {"cnps_sent", "count", "CNPs the receiving NIC sent for chunks that came in by this link",
        "congestion_control dcqcn"}}};
  // With dcqcn a NIC's network egress also reports a `dcqcn` object (qps, cnps_received,
  // rate_cuts, min_rate_bps, mean_rate_bps): docs/fabric.md#ecn-and-dcqcn.
  return i;
}

void LinkState::report_carried(nlohmann::ordered_json& out, std::int64_t end_ps) const {
  const double simulated = sec(end_ps);
  out["bytes"] = stats_.payload_bytes;
  out["wire_bytes"] = stats_.wire_bytes;
  out["chunks"] = stats_.chunks;
  out["busy_s"] = sec(stats_.busy_ps);
  out["utilization"] = simulated > 0 ? sec(stats_.busy_ps) / simulated : 0.0;
}

// Flow fidelity has no queues or packets (docs/fabric.md#flow-fidelity).
void LinkState::report(nlohmann::ordered_json& out, std::int64_t end_ps) const {
  report_carried(out, end_ps);
  out["background_bytes"] = stats_.background_bytes;
}

void LinkDir::report(nlohmann::ordered_json& out, std::int64_t end_ps) const {
  if (flow_stats_) return LinkState::report(out, end_ps);
  report_carried(out, end_ps);
  out["peak_queue_bytes"] = stats_.peak_queue_bytes;
  out["mean_queue_bytes"] = mean_queue_bytes(end_ps);
  out["paused_s"] = sec(stats_.paused_ps);
  out["lost_packets"] = stats_.lost_packets;
  out["retransmitted_bytes"] = stats_.retransmitted_bytes;
  out["background_bytes"] = stats_.background_bytes;
  if (cc_ || report_pauses_) out["pauses"] = stats_.pauses;
  if (cc_) cc_->report(out, end_ps);
  if (!pfc_) return;  // egress mode (the default): results keep their shape
  const PfcStats& f = stats_.pfc;
  if (pfc_->params().pause) {
    out["pfc_pause_frames"] = f.pause_frames;
    out["pfc_resume_frames"] = f.resume_frames;
    out["pfc_paused_s"] = sec(pfc_->paused_ps(end_ps));
  }
  out["pfc_peak_ingress_bytes"] = f.peak_ingress_bytes;
  if (pfc_->params().pause) out["pfc_headroom_overflow_bytes"] = f.headroom_overflow_bytes;
}

}  // namespace trainvp
