#pragma once
// What one direction of a full-duplex link is, apart from how chunks cross it: its parameters, the
// state faults change (bandwidth, extra latency, down, loss rate), its statistics, busy series and
// bytes per owner. Flow fidelity needs only this (FlowNetwork reads and fills it), so the fabric
// builds plain LinkStates there; packet fidelity builds LinkDirs (link_dir.hpp), the SystemC
// modules that queue, serialize and propagate chunks, which are LinkStates too. A cluster of
// 16,384 GPUs has about 200,000 link directions: as modules, with their sockets, process, event
// and names, they were most of its elaboration (docs/performance.md).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/link/busy_series.hpp"
#include "models/link/pfc.hpp"

namespace trainvp {

struct LinkDirParams {
  double bandwidth_bps = 0;
  std::int64_t latency_ps = 0;     // propagation + the sending device's forwarding latency
  std::uint32_t mtu = 4096;        // payload bytes per packet
  std::uint32_t overhead = 82;     // framing bytes per packet
  bool whole_packets = false;      // fixed-size packets (CXL flits): a partial one is padded to mtu
  std::uint64_t buffer = 1 << 20;  // output queue capacity, bytes of payload
  int headroom = 0;                // 0: derived from the bandwidth-delay product
};

// Wire bytes of a chunk of `payload` bytes: payload + packets x overhead, or packets x (mtu +
// overhead) with whole packets; an empty chunk is one packet. The one framing rule of the packet
// and the flow fidelity.
inline std::uint64_t framed_bytes(std::uint64_t payload, std::uint32_t mtu, std::uint32_t overhead,
                                  bool whole_packets) {
  const std::uint64_t packets = payload == 0 ? 1 : (payload + mtu - 1) / mtu;
  return whole_packets ? packets * (mtu + overhead) : payload + packets * overhead;
}

struct LinkDirStats {
  std::uint64_t chunks = 0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t wire_bytes = 0;
  std::int64_t busy_ps = 0;
  std::uint64_t peak_queue_bytes = 0;
  std::int64_t paused_ps = 0;             // time stopped by back-pressure with work queued
  std::uint64_t lost_packets = 0;         // packets lost (packet_loss fault), each recovered by go-back-N
  std::uint64_t retransmitted_bytes = 0;  // payload bytes sent again by go-back-N
  std::uint64_t background_bytes = 0;     // payload bytes of congestion cross-traffic (in payload_bytes too)
  std::uint64_t pauses = 0;               // times back-pressure stopped it with work queued
  PfcStats pfc;                           // PFC at the far end's ingress port (set_pfc)
};

// What a direction has counted up to a time: its statistics and the time integral of its queue.
struct LinkDirTotals {
  LinkDirStats stats;
  double queue_byte_ps = 0;
};

class LinkState {
 public:
  LinkState(std::string label, const LinkDirParams& p) : label_(std::move(label)), p_(p) {}
  virtual ~LinkState() = default;
  LinkState(const LinkState&) = delete;
  LinkState& operator=(const LinkState&) = delete;

  const std::string& label() const { return label_; }
  const LinkDirParams& params() const { return p_; }
  const LinkDirStats& stats() const { return stats_; }
  // Wire bytes of a chunk of `payload` bytes on this link (framed_bytes).
  std::uint64_t wire_bytes(std::uint32_t payload) const {
    return framed_bytes(payload, p_.mtu, p_.overhead, p_.whole_packets);
  }
  // Wire bytes of one packet carrying `payload` (<= mtu) bytes.
  std::uint32_t packet_wire(std::uint32_t payload) const { return (p_.whole_packets ? p_.mtu : payload) + p_.overhead; }
  // Bandwidth and latency can change during a run (faults).
  void set_bandwidth(double bps) { p_.bandwidth_bps = bps; }
  void set_extra_latency(std::int64_t ps) { extra_latency_ps_ = ps; }
  std::int64_t extra_latency_ps() const { return extra_latency_ps_; }
  // A link that is down starts no new transmission (LinkDir: the chunks on the wire and
  // propagating finish; bringing it up resumes transmission).
  virtual void set_down(bool down) { down_ = down; }
  bool down() const { return down_; }
  // Packet loss: each packet is lost with probability `rate` (0: none), recovered by go-back-N, or
  // after `timeout_ps` when nothing of its flow follows (LinkDir::set_loss).
  virtual void set_loss(double rate, std::int64_t timeout_ps) { loss_rate_ = rate, loss_timeout_ps_ = timeout_ps; }
  double loss_rate() const { return loss_rate_; }
  // Flow fidelity (FlowNetwork): the statistics are the flow model's, and the queue figures it
  // cannot give (queue depth, pauses, individual losses) are left out of report().
  void set_flow_stats(const LinkDirStats& s) { stats_ = s, flow_stats_ = true; }
  // Busy time over the run (link_series.json): a LinkDir's transmissions in packet fidelity, the
  // flow network's integration of its load in flow fidelity (which adds to it).
  const BusySeries& busy_series() const { return series_; }
  BusySeries& busy_series() { return series_; }
  // Payload bytes by owner (a job: Route::owner) once set_owners(n) has made room for n; nothing
  // counted before, nor for chunks of no owner (background traffic).
  void set_owners(std::size_t n) { owner_bytes_.assign(n, 0); }
  const std::vector<std::uint64_t>& owner_bytes() const { return owner_bytes_; }
  std::vector<std::uint64_t>& owner_bytes() { return owner_bytes_; }
  // results.json `links` entry's statistics over a run that ended at `end_ps` (link_dir_report.cpp).
  virtual void report(nlohmann::ordered_json& out, std::int64_t end_ps) const;

 protected:
  // The figures both fidelities report, first in every entry: bytes, wire bytes, chunks, busy time
  // and utilization.
  void report_carried(nlohmann::ordered_json& out, std::int64_t end_ps) const;

  std::string label_;
  LinkDirParams p_;
  std::int64_t extra_latency_ps_ = 0;
  bool down_ = false;
  double loss_rate_ = 0;
  std::int64_t loss_timeout_ps_ = 0;
  LinkDirStats stats_;
  BusySeries series_;
  std::vector<std::uint64_t> owner_bytes_;
  bool flow_stats_ = false;
};

}  // namespace trainvp
