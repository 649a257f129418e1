#pragma once
// Background traffic endpoints (congestion faults, docs/faults.md#congestion). A TrafficSource is
// one paced flow: it sends chunks into a NIC's forwarder through an AT initiator socket, at most
// one chunk per `interval` and only after the previous chunk was accepted, so back-pressure slows
// it and it never catches up with a burst. A TrafficSink is bound to a NIC's forwarder as an extra
// out-port and takes the chunks that end there, counting them when their tail has arrived.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "models/link/chunk.hpp"
#include "platform/core/tlm/at_initiator.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

// When a source may send: from start_ps to end_ps (-1: no end), on for on_ps then off for off_ps
// (off_ps 0: always on), the pattern starting with "on" at start_ps.
struct TrafficPattern {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = -1;
  std::int64_t on_ps = 0;
  std::int64_t off_ps = 0;
  // The first time >= t at which sending is allowed, or -1 when never again.
  std::int64_t next_on(std::int64_t t) const;
  // For a time t at which sending is allowed: the first time > t at which it stops, -1 when never.
  std::int64_t next_off(std::int64_t t) const;
};

class TrafficSource : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TrafficSource> out;
  // The route for the next chunk (the fabric's, so that new chunks follow route changes).
  using RouteFn = std::function<const Route*()>;

  TrafficSource(sc_core::sc_module_name name, TrafficPattern pattern, std::int64_t interval_ps, std::uint32_t chunk,
                std::uint32_t flow, std::uint64_t tag, RouteFn route);
  std::uint64_t sent_bytes() const { return sent_bytes_; }
  std::uint64_t sent_chunks() const { return sent_chunks_; }

 private:
  void tick();
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return initiator_.nb_transport_bw(0, p, ph, t);
  }

  TrafficPattern pattern_;
  std::int64_t interval_ps_;
  std::uint32_t chunk_, flow_;
  std::uint64_t tag_;
  RouteFn route_;
  PayloadPool pool_;
  AtInitiator initiator_;
  sc_core::sc_event wake_;
  bool waiting_accept_ = false;
  std::int64_t next_ps_ = 0;  // earliest time of the next chunk (pacing)
  std::uint64_t sent_bytes_ = 0, sent_chunks_ = 0;
};

class TrafficSink : public sc_core::sc_module, public ChunkSink {
 public:
  tlm_utils::simple_target_socket<TrafficSink> in;

  explicit TrafficSink(sc_core::sc_module_name name);
  // Payload bytes delivered (tail arrived), by the chunks' tag.
  std::uint64_t delivered_bytes(std::uint64_t tag) const { return tag < delivered_.size() ? delivered_[tag] : 0; }
  void chunk_delivered(tlm::tlm_generic_payload& p) override;

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void on_tail();
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> tails_;
  std::vector<std::uint64_t> delivered_;
};

}  // namespace trainvp
