#pragma once
// One direction of a full-duplex link, together with the output queue of the device it leaves
// from. Chunks wait in per-flow FIFOs served round-robin (fair sharing), are serialized at the
// link rate with per-packet framing, propagate for the link latency (plus the sending device's
// forwarding latency), and are offered to the device at the far end when their first packet
// arrives there (cut-through; see ChunkExt::tail_ps).
//
// Back-pressure, PFC-like: the queue holds at most `buffer` bytes (a chunk is always accepted
// into an empty queue); a chunk that does not fit is accepted later (BEGIN_RESP after TLM_ACCEPTED).
// When the far end does not accept what arrives, at most `headroom` chunks' worth of bytes are in
// flight or waiting there before this direction stops transmitting. Nothing is dropped by congestion.
//
// Packet loss (a fault, set_loss): each transmitted packet is lost with a probability; the NIC
// recovers with go-back-N, so loss costs link time and never data (docs/faults.md#packet-loss).
//
// AT protocol on both sockets: BEGIN_REQ is answered with TLM_COMPLETED when accepted at once,
// else TLM_ACCEPTED and a later BEGIN_RESP; END_RESP closes it.
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <nlohmann/json.hpp>

#include "models/link/link_state.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/small_ring.hpp"

namespace trainvp {

class CcPort;
struct ChunkExt;

class LinkDir : public sc_core::sc_module, public LinkState, private EventCalendar::Client {
 public:
  tlm_utils::simple_target_socket<LinkDir> in;
  tlm_utils::simple_initiator_socket<LinkDir> out;

  LinkDir(sc_core::sc_module_name name, std::string label, const LinkDirParams& p, std::uint32_t chunk,
          RunContext& ctx);

  // Down: the chunk on the wire and those propagating finish; bringing it up resumes transmission
  // (in the next delta cycle). Safe to call between sc_start() calls.
  void set_down(bool down) override;
  // Every packet transmitted from the next chunk on (retransmissions included) is lost with
  // probability `rate`. A loss costs the round trip until the receiver's NACK returns (twice this
  // direction's latency plus two packet times), after which the packets from the lost one on are
  // sent again; a lost packet with nothing of its flow behind it waits for `timeout_ps` instead.
  // Draws come from ctx.rng_for("loss:" + label), so runs are reproducible.
  void set_loss(double rate, std::int64_t timeout_ps) override;
  // PFC (pfc.hpp, link_dir_pfc.cpp): the far end counts what arrives through this direction and
  // pauses its transmitter by the port's thresholds, in place of the `headroom` chunk limit;
  // `unbounded_queue`: the output queue takes every chunk (a switch port under PFC, whose buffer
  // is bounded by its ingress ports' thresholds instead). Elaboration only.
  void set_pfc(const PfcPortParams& p, bool unbounded_queue);
  // A chunk that does not fit is held with END_REQ (TLM_UPDATED) instead of TLM_ACCEPTED, freeing
  // the request channel for express messages. Only for a sender that sends no other chunk before
  // the held one's BEGIN_RESP (a Forwarder); an AT initiator would send its next one at END_REQ.
  void end_held_requests() { end_held_ = true; }
  const PfcPort* pfc() const { return pfc_.get(); }
  std::uint64_t queued_bytes() const { return queued_bytes_; }
  // Time average of queued_bytes() from 0 to `end_ps` (end_ps >= the last change).
  double mean_queue_bytes(std::int64_t end_ps) const;
  // results.json `links` entry's statistics: the queue figures besides LinkState's (link_dir_report.cpp).
  void report(nlohmann::ordered_json& out, std::int64_t end_ps) const override;
  static const ModelInfo& info();
  // Steady-state fast-forward (link_dir_repeat.cpp): nothing queued, on the wire, propagating or
  // waiting at the far end; the totals now; adding `times` x (to - from) for skipped iterations
  // (peaks are kept: a repeated period reaches the same peak).
  bool idle() const;
  LinkDirTotals totals(std::int64_t now_ps) const;
  // The skipped iterations' busy time is spread over [skip_from_ps, skip_to_ps) in the busy series.
  void add_repeats(const LinkDirTotals& from, const LinkDirTotals& to, int times, std::int64_t skip_from_ps,
                   std::int64_t skip_to_ps);
  // Record busy periods (back-to-back transmissions merged) as "tx" slices on a trace track.
  void trace_on(int track) {
    track_ = track;
    trace_name_ = ctx_.trace.name("tx " + label_);  // once, not per busy period
  }
  void flush_trace();
  // ECN marking and DCQCN pacing (models/link/congestion.hpp); null: neither. `pauses` is reported
  // when set, or when report_pauses is on (a scenario that names fabric.congestion_control).
  void set_congestion(CcPort* cc) { cc_ = cc; }
  const CcPort* congestion() const { return cc_; }
  void report_pauses(bool on) { report_pauses_ = on; }

 private:
  void end_of_elaboration() override { out_fw_ = out.operator->(); }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  // Registered only so that the socket spawns no b_transport adapter thread (one coroutine per
  // link direction at start of simulation); chunks always travel AT.
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& t);
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void enqueue(tlm::tlm_generic_payload* p);
  void accept_express(tlm::tlm_generic_payload* p);
  void propagate(tlm::tlm_generic_payload* p, std::int64_t head_ps);
  void try_transmit();
  void transmit(tlm::tlm_generic_payload* p, bool follows);  // puts p on the idle link
  // The end of serialization and the next arrival are entries in the run's calendar, not SystemC
  // events: two fewer woken processes per chunk and hop (platform/core/calendar.hpp).
  enum Due : std::uint32_t { kSerialized, kArrival };
  void on_due(std::uint32_t kind, std::uint32_t tag) override;
  void on_serialized();
  void on_arrival();
  void arrival_at(std::int64_t head_ps);
  void try_deliver();
  void offer_downstream(tlm::tlm_generic_payload* p);
  void accepted_downstream(tlm::tlm_generic_payload* p);
  void on_resume();
  void set_queued(std::uint64_t bytes);  // changes queued_bytes_, integrating it over time
  struct LossCost {
    std::int64_t total_ps = 0;  // added to the chunk's time on the wire
    std::int64_t head_ps = 0;   // of which before its first packet got through
    std::int64_t tail_ps = 0;   // of which after its last packet was first sent
  };
  // Draws the losses of one chunk of `size` bytes; `follows`: more of its flow is queued here or
  // still to come from its transfer.
  LossCost draw_losses(std::uint32_t size, bool follows);
  std::int64_t next_gap();

  RunContext& ctx_;
  sc_core::sc_event resume_ev_;
  std::unique_ptr<std::mt19937_64> loss_rng_;  // created when loss is first set
  std::int64_t loss_gap_ = -1;                 // packets still to get through before the next loss; -1: draw
  // Output queue: a FIFO per flow, flows served round-robin. Few flows share a link at a time,
  // so a short vector searched linearly beats a hash map here.
  // A flow's FIFO is a vector read from `head`: flows go idle after nearly every chunk on most
  // links, and a std::deque allocates its map whenever one is created or moved.
  struct FlowQueue {
    std::uint32_t flow;
    std::vector<tlm::tlm_generic_payload*> q;
    std::size_t head = 0;
    bool empty() const { return head == q.size(); }
  };
  std::vector<FlowQueue> flows_;                                      // active flows in round-robin order
  std::vector<std::vector<tlm::tlm_generic_payload*>> spare_queues_;  // emptied FIFOs, reused (capacity kept)
  std::size_t rr_next_ = 0;
  std::uint64_t queued_bytes_ = 0;
  double queue_byte_ps_ = 0;  // integral of queued_bytes_ over time, up to queue_since_
  std::int64_t queue_since_ = 0;
  std::deque<tlm::tlm_generic_payload*> express_;   // express messages waiting for the link (served first)
  std::int64_t express_end_ = 0;                    // end of the last one slipped into a chunk's packets
  tlm::tlm_generic_payload* pending_in_ = nullptr;  // accepted later, when it fits
  bool end_held_ = false;                           // end_held_requests()
  // Transmission.
  bool busy_ = false;
  tlm::tlm_generic_payload* on_wire_ = nullptr;  // with a reference of ours, until on_serialized
  std::int64_t wire_start_ = 0, wire_end_ = 0;
  std::uint32_t serialized_tag_ = 0;  // of the calendar entry that ends this transmission (an express message moves it)
  // In flight to the far end, in arrival order (arrival times only grow on one link).
  struct InFlight {
    std::int64_t head_ps;
    tlm::tlm_generic_payload* p;
  };
  SmallRing<InFlight, 4> propagating_;  // a few at a time: in the object, not a deque's block
  // Delivery to the far end.
  std::deque<tlm::tlm_generic_payload*> arrived_;
  tlm::tlm_generic_payload* delivering_ = nullptr;  // BEGIN_REQ sent, not yet accepted
  tlm::tlm_fw_transport_if<>* out_fw_ = nullptr;    // the far end: here, not behind the socket's port
  int unaccepted_ = 0;                              // propagating + arrived + delivering
  std::uint64_t unaccepted_bytes_ = 0;              // their payload bytes
  int headroom_;
  std::uint64_t headroom_bytes_;  // headroom_ full chunks: the window unaccepted_bytes_ must stay under
  bool window_full() const { return unaccepted_bytes_ >= headroom_bytes_; }
  std::int64_t paused_since_ = -1;
  std::unique_ptr<PfcPort> pfc_;
  bool pfc_paused() const { return pfc_ && pfc_->paused(); }
  void pfc_arrived(tlm::tlm_generic_payload* p);
  int track_ = -1;
  int trace_name_ = -1;
  std::int64_t busy_from_ = -1, busy_to_ = -1;  // the open busy period, for the trace
  void count_owner(const tlm::tlm_generic_payload& p, const ChunkExt& c);
  CcPort* cc_ = nullptr;
  bool report_pauses_ = false;
  bool pick_paced();  // DCQCN: moves rr_next_ to a flow whose queue pair may send now
};

}  // namespace trainvp
