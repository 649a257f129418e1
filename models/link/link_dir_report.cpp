// What a link direction reports in results.json, and its sockets and statistics for `trainvp describe`.
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
      "links",
      {{"in", "target, TLM-2.0 AT", "the sending device: a GPU's or CXL port's dma, a switch's out"},
       {"out", "initiator, TLM-2.0 AT", "the receiving device: a GPU's or CXL port's mem, a switch's in"}},
      {{"bytes", "bytes", "payload bytes carried"},
       {"wire_bytes", "bytes", "bytes on the wire, framing and retransmissions included"},
       {"chunks", "count", "chunks carried"},
       {"busy_s", "s", "time transmitting"},
       {"utilization", "fraction", "busy_s over the simulated time"},
       {"peak_queue_bytes", "bytes", "largest output queue"},
       {"mean_queue_bytes", "bytes", "time-averaged output queue"},
       {"paused_s", "s", "time stopped by back-pressure from the far end"},
       {"lost_packets", "count", "packets lost (packet-loss faults)"},
       {"retransmitted_bytes", "bytes", "bytes sent again after losses (go-back-N)"},
       {"background_bytes", "bytes", "bytes of background traffic (congestion faults)"}}};
  // Reported only when the scenario names fabric.congestion_control (so not declared above, where
  // every entry must have them): pauses (times back-pressure stopped it with work queued); with
  // dcqcn, ecn_marked_packets (switch egress), cnps_sent (into a NIC) and dcqcn (NIC egress: qps,
  // cnps_received, rate_cuts, min_rate_bps, mean_rate_bps). docs/fabric.md#ecn-and-dcqcn.
  return i;
}

void LinkDir::report(nlohmann::ordered_json& out, std::int64_t end_ps) const {
  const double simulated = sec(end_ps);
  out["bytes"] = stats_.payload_bytes;
  out["wire_bytes"] = stats_.wire_bytes;
  out["chunks"] = stats_.chunks;
  out["busy_s"] = sec(stats_.busy_ps);
  out["utilization"] = simulated > 0 ? sec(stats_.busy_ps) / simulated : 0.0;
  if (flow_stats_) {  // flow fidelity has no queues or packets (docs/fabric.md#flow-fidelity)
    out["background_bytes"] = stats_.background_bytes;
    return;
  }
  out["peak_queue_bytes"] = stats_.peak_queue_bytes;
  out["mean_queue_bytes"] = mean_queue_bytes(end_ps);
  out["paused_s"] = sec(stats_.paused_ps);
  out["lost_packets"] = stats_.lost_packets;
  out["retransmitted_bytes"] = stats_.retransmitted_bytes;
  out["background_bytes"] = stats_.background_bytes;
  if (cc_ || report_pauses_) out["pauses"] = stats_.pauses;
  if (cc_) cc_->report(out, end_ps);
}

}  // namespace trainvp
