#include "models/link/link_dir.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/link/chunk.hpp"
#include "models/link/congestion.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/vector_fifo.hpp"

namespace trainvp {

using sc_core::SC_PS;
using sc_core::sc_time;

LinkDir::LinkDir(sc_core::sc_module_name name, std::string label, const LinkDirParams& p, std::uint32_t chunk,
                 RunContext& ctx)
    : sc_module(name), LinkState(std::move(label), p), in("in"), out("out"), ctx_(ctx) {
  in.register_nb_transport_fw(this, &LinkDir::fw);
  in.register_b_transport(this, &LinkDir::b_transport);
  out.register_nb_transport_bw(this, &LinkDir::bw);
  // Enough chunks in flight to keep the link busy across its latency, plus slack.
  double chunk_s = static_cast<double>(wire_bytes(chunk)) * 8.0 / p_.bandwidth_bps;
  // Capped: on a link so fast that a chunk takes (nearly) no time, the quotient would overflow.
  const double across = std::min(std::ceil(static_cast<double>(p_.latency_ps) * 1e-12 / chunk_s), 1e6);
  headroom_ = p_.headroom > 0 ? p_.headroom : static_cast<int>(across) + 2;
  // Counted in bytes, as a receiver's buffer counts them: `headroom` full chunks' worth, so that
  // short chunks (a transfer's last, a small message's segments) pipeline as full ones do instead
  // of each holding a whole chunk's place (#45: 4 channels of a 4 KiB all-gather waited a
  // latency for one another).
  headroom_bytes_ = static_cast<std::uint64_t>(headroom_) * chunk;
  ctx_.calendar();  // made now, during elaboration
  SC_HAS_PROCESS(LinkDir);
  SC_METHOD(on_resume);
  sensitive << resume_ev_;
  dont_initialize();
}

void LinkDir::set_down(bool down) {
  if (down == down_) return;
  LinkState::set_down(down);
  if (!down_) resume_ev_.notify(sc_core::SC_ZERO_TIME);
}

void LinkDir::on_resume() {
  if (pfc_) pfc_->apply_due(now_ps());
  try_transmit();
}

void LinkDir::set_loss(double rate, std::int64_t timeout_ps) {
  const bool changed = rate != loss_rate_;
  LinkState::set_loss(rate, timeout_ps);
  if (!changed) return;
  loss_gap_ = -1;  // redrawn at the new rate (the gap is memoryless, so this is exact)
  if (rate > 0 && !loss_rng_) loss_rng_ = std::make_unique<std::mt19937_64>(ctx_.rng_for("loss:" + label_));
}

// Packets that get through before the next loss: geometric with parameter rate, by inversion,
// so a 1 GiB transfer costs a few draws rather than one per packet.
std::int64_t LinkDir::next_gap() {
  const double u = (static_cast<double>((*loss_rng_)() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double g = std::floor(std::log(u) / std::log1p(-loss_rate_));
  return g >= 9e18 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(g);
}

// Go-back-N within one chunk. Packets 0..n-1 are sent in order; when packet k is lost, the
// receiver sees the gap when packet k+1 arrives and NACKs; the NACK is back one latency later. By
// then the sender has been sending k+1, k+2, ... for nothing: the link time from the start of k to
// the NACK's return, W = 2 x (packet time + latency), is lost, and sending restarts at k. Every
// loss therefore adds W however far into the chunk it falls (the packets from k on are all sent
// again after it). A lost last packet with nothing of its flow behind it (the end of a transfer,
// nothing else of the flow queued) has no successor to reveal the gap: the sender resends it when
// its retransmission timer, started when the packet has gone out, expires. Losses among the packets sent in vain during
// W are not drawn: they are resent anyway (a loss of k+1 would delay the NACK by a packet time; neglected).
LinkDir::LossCost LinkDir::draw_losses(std::uint32_t size, bool follows) {
  LossCost c;
  if (loss_rate_ <= 0) return c;
  const std::int64_t n = size == 0 ? 1 : (static_cast<std::int64_t>(size) + p_.mtu - 1) / p_.mtu;
  const std::uint32_t last = size == 0 ? 0 : (size - 1) % p_.mtu + 1;
  auto ser = [this](double bytes) { return round_ps(bytes * 8.0 / p_.bandwidth_bps * 1e12); };
  const std::int64_t packet = ser(p_.mtu + p_.overhead), last_packet = ser(packet_wire(last));
  const std::int64_t window = 2 * (packet + p_.latency_ps + extra_latency_ps_);
  std::int64_t pos = 0;  // next packet in sequence
  for (;;) {
    if (loss_gap_ < 0) loss_gap_ = next_gap();
    if (loss_gap_ >= n - pos) {
      loss_gap_ -= n - pos;
      return c;
    }
    const std::int64_t k = pos + loss_gap_;
    loss_gap_ = -1;
    ++stats_.lost_packets;
    const bool timer = k == n - 1 && !follows;
    const std::int64_t cost = timer ? last_packet + loss_timeout_ps_ : window;
    // Resent: the packets from k that had gone out before the restart.
    const std::int64_t resent = timer ? 1 : std::min<std::int64_t>(n - k, (window + packet - 1) / packet);
    const std::uint64_t bytes = static_cast<std::uint64_t>(resent - 1) * p_.mtu + (k + resent == n ? last : p_.mtu);
    stats_.retransmitted_bytes += bytes;
    stats_.wire_bytes += p_.whole_packets ? static_cast<std::uint64_t>(resent) * packet_wire(p_.mtu)
                                          : bytes + static_cast<std::uint64_t>(resent) * p_.overhead;
    c.total_ps += cost;
    if (k == 0) c.head_ps += cost;
    if (k == n - 1) c.tail_ps += cost;
    pos = k;
  }
}

void LinkDir::set_queued(std::uint64_t bytes) {
  const std::int64_t now = now_ps();
  queue_byte_ps_ += static_cast<double>(queued_bytes_) * static_cast<double>(now - queue_since_);
  queue_since_ = now;
  queued_bytes_ = bytes;
}

double LinkDir::mean_queue_bytes(std::int64_t end_ps) const {
  if (end_ps <= 0) return 0;
  const double area = queue_byte_ps_ + static_cast<double>(queued_bytes_) * static_cast<double>(end_ps - queue_since_);
  return area / static_cast<double>(end_ps);
}

tlm::tlm_sync_enum LinkDir::fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time&) {
  // Each hop is a transaction of its own (IEEE 1666-2011 14.17): it completes with a status when
  // the chunk is queued here, and the next one begins, its status reset, when it leaves the far end.
  if (ph == tlm::BEGIN_REQ && chunk_of(p)->express) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    accept_express(&p);
    return tlm::TLM_COMPLETED;
  }
  if (ph == tlm::BEGIN_REQ) {
    std::uint32_t size = p.get_data_length();
    if (!pending_in_ && (queued_bytes_ == 0 || queued_bytes_ + size <= p_.buffer)) {
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      enqueue(&p);
      return tlm::TLM_COMPLETED;
    }
    if (pending_in_) throw RunError(label_ + ": a second chunk offered while one is held");
    p.acquire();  // held until it fits; BEGIN_RESP then tells the sender
    pending_in_ = &p;
    if (!end_held_) return tlm::TLM_ACCEPTED;
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  throw RunError(label_ + ": unexpected phase on the forward path");
}

void LinkDir::b_transport(tlm::tlm_generic_payload&, sc_time&) {
  throw RunError(label_ + ": links take chunks with nb_transport only");
}

void LinkDir::enqueue(tlm::tlm_generic_payload* p) {
  p->acquire();
  ChunkExt* c = chunk_of(*p);
  if (cc_) cc_->on_enqueue(*c, queued_bytes_, std::max<std::uint32_t>(1, (p->get_data_length() + p_.mtu - 1) / p_.mtu));
  if (flows_.empty() && express_.empty() && !busy_ && !down_ && !window_full() && !pfc_paused() &&
      (!cc_ || cc_->eligible_ps(*c, now_ps()) <= now_ps())) {
    // An idle link with nothing queued sends it at once: what queueing it and serving the queue
    // would do (same statistics, round-robin position 0), without touching the flow FIFOs.
    set_queued(p->get_data_length());
    if (queued_bytes_ > stats_.peak_queue_bytes) stats_.peak_queue_bytes = queued_bytes_;
    set_queued(0);
    rr_next_ = 0;
    if (paused_since_ >= 0) stats_.paused_ps += now_ps() - paused_since_, paused_since_ = -1;
    transmit(p, c->more);
    return;
  }
  std::uint32_t flow = c->flow;
  auto it = std::find_if(flows_.begin(), flows_.end(), [flow](const FlowQueue& f) { return f.flow == flow; });
  if (it == flows_.end()) {
    // A newly active flow joins at the end of the current round: just before the flow served
    // next, so every flow already waiting is served once before it (not ahead of them).
    if (rr_next_ >= flows_.size()) rr_next_ = 0;
    FlowQueue fq{flow, {}};
    if (!spare_queues_.empty()) fq.q = std::move(spare_queues_.back()), spare_queues_.pop_back();
    it = flows_.insert(flows_.begin() + static_cast<std::ptrdiff_t>(rr_next_), std::move(fq));
    ++rr_next_;
  }
  it->q.push_back(p);
  set_queued(queued_bytes_ + p->get_data_length());
  if (queued_bytes_ > stats_.peak_queue_bytes) stats_.peak_queue_bytes = queued_bytes_;
  try_transmit();
}

// An express message on a link busy with a chunk goes out at the chunk's next packet boundary
// (after its first packet, so arrivals keep their order) and stretches the chunk's time on the
// wire by its own; the chunk's tail is not moved (less than a packet time for a few CXL.io TLPs;
// a CXL.mem read-back's many requests can stretch it further, so the far end may be done with the
// chunk before it has left here: transmit keeps a reference). Otherwise it waits for the link,
// ahead of the queued chunks.
void LinkDir::accept_express(tlm::tlm_generic_payload* p) {
  p->acquire();
  const std::int64_t now = now_ps();
  auto ser = [this](double bytes) { return round_ps(bytes * 8.0 / p_.bandwidth_bps * 1e12); };
  if (busy_ && !down_ && !chunk_of(*on_wire_)->express) {
    const std::int64_t packet = ser(packet_wire(p_.mtu)),
                       own = ser(static_cast<double>(wire_bytes(p->get_data_length())));
    std::int64_t start = std::max({now, express_end_, wire_start_ + packet});
    start = wire_start_ + (start - wire_start_ + packet - 1) / packet * packet;
    if (start < wire_end_) {
      express_end_ = start + own;
      wire_end_ += own;
      ctx_.calendar().at(wire_end_, this, kSerialized, ++serialized_tag_);  // the earlier entry is dropped
      if (track_ >= 0) busy_to_ = wire_end_;
      ++stats_.chunks;
      stats_.payload_bytes += p->get_data_length();
      stats_.wire_bytes += wire_bytes(p->get_data_length());
      if (!owner_bytes_.empty()) count_owner(*p, *chunk_of(*p));
      // Its time on the wire is counted once, in the chunk's: wire_end_ now includes it.
      propagate(p, express_end_ + p_.latency_ps + extra_latency_ps_);
      return;
    }
  }
  express_.push_back(p);
  try_transmit();
}

void LinkDir::on_due(std::uint32_t kind, std::uint32_t tag) {
  if (kind == kArrival) return on_arrival();
  if (tag == serialized_tag_) on_serialized();
}

void LinkDir::arrival_at(std::int64_t head_ps) { ctx_.calendar().at(head_ps, this, kArrival); }

void LinkDir::propagate(tlm::tlm_generic_payload* p, std::int64_t head_ps) {
  if (propagating_.empty()) arrival_at(head_ps);
  propagating_.push_back({head_ps, p});
  ++unaccepted_, unaccepted_bytes_ += p->get_data_length();
}

void LinkDir::try_transmit() {
  if (busy_ || down_ || (flows_.empty() && express_.empty())) return;
  // The far end is not taking chunks: stop, as PFC pauses a sender (express messages still go).
  const bool paused = window_full() || pfc_paused();
  if (paused && express_.empty()) {
    if (paused_since_ < 0) paused_since_ = now_ps(), ++stats_.pauses;
    return;
  }
  if (!paused && paused_since_ >= 0) stats_.paused_ps += now_ps() - paused_since_, paused_since_ = -1;
  tlm::tlm_generic_payload* p;
  bool follows = false;
  if (!express_.empty()) {
    p = express_.front();
    express_.pop_front();
  } else {
    if (rr_next_ >= flows_.size()) rr_next_ = 0;
    if (cc_ && !pick_paced()) return;
    FlowQueue& fq = flows_[rr_next_];
    p = pop_front(fq.q, fq.head);
    // More of its flow queued here, or still to come from its transfer: a lost last packet is NACKed.
    follows = !fq.empty() || chunk_of(*p)->more;
    if (fq.empty()) {  // next flow slides in
      fq.q.clear();
      spare_queues_.push_back(std::move(fq.q));
      flows_.erase(flows_.begin() + static_cast<std::ptrdiff_t>(rr_next_));
    } else {
      ++rr_next_;
    }
    set_queued(queued_bytes_ - p->get_data_length());
  }
  transmit(p, follows);
}

void LinkDir::transmit(tlm::tlm_generic_payload* p, bool follows) {
  const std::uint32_t size = p->get_data_length();
  busy_ = true;
  // Held until its serialization ends (on_serialized reads it): the far end may take the chunk,
  // and its sender release it for reuse, before then, as express messages slipped into its packets
  // stretch its time on the wire past its tail (a CXL.mem read-back's requests do).
  p->acquire();
  on_wire_ = p;
  const std::int64_t now = now_ps();
  pfc_leave(*chunk_of(*p), size, now);  // it leaves the ingress count of the device sending it
  wire_start_ = now;
  // The link is occupied for the chunk's wire time. Cut-through: the chunk's last packet cannot
  // leave before the tail has arrived here, so on a link faster than its input the chunk's
  // packets are spread out, and other flows' packets fill the gaps (the link is free again after
  // the wire time, not after the tail).
  const double bps = p_.bandwidth_bps;
  const std::uint32_t last = size == 0 ? 0 : (size - 1) % p_.mtu + 1;
  auto ser = [bps](double bytes) { return round_ps(bytes * 8.0 / bps * 1e12); };
  // Packet loss stretches the chunk's time on the wire by its recoveries; a recovery of the first
  // (last) packet also delays the head (tail).
  const LossCost loss = draw_losses(size, follows);
  wire_end_ = now + ser(static_cast<double>(wire_bytes(size))) + loss.total_ps;
  const std::int64_t tail_out =
      std::max(wire_end_, chunk_of(*p)->tail_ps + ser(static_cast<double>(packet_wire(last))) + loss.tail_ps);
  ctx_.calendar().at(wire_end_, this, kSerialized, ++serialized_tag_);
  if (track_ >= 0) {
    if (now > busy_to_) flush_trace(), busy_from_ = now;
    busy_to_ = wire_end_;
  }
  // Its tail reaches the far end one latency after it has left here.
  chunk_of(*p)->tail_ps = tail_out + p_.latency_ps + extra_latency_ps_;
  // The first packet reaches the far end a packet time plus the latency after it starts.
  const std::int64_t latency = p_.latency_ps + extra_latency_ps_;
  const std::uint32_t first = std::min<std::uint32_t>(size, p_.mtu);
  const std::int64_t head = ser(packet_wire(first)) + latency + loss.head_ps;
  if (cc_) cc_->on_transmit(*chunk_of(*p), wire_bytes(size), now, now + head);
  if (propagating_.empty()) arrival_at(now + head);
  propagating_.push_back({now + head, p});
  ++unaccepted_, unaccepted_bytes_ += p->get_data_length();
  // Space freed: a chunk that did not fit may now enter.
  if (pending_in_) {
    std::uint32_t want = pending_in_->get_data_length();
    if (queued_bytes_ == 0 || queued_bytes_ + want <= p_.buffer) {
      tlm::tlm_generic_payload* q = pending_in_;
      pending_in_ = nullptr;
      q->set_response_status(tlm::TLM_OK_RESPONSE);
      enqueue(q);
      q->release();
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_time t = sc_core::SC_ZERO_TIME;
      in->nb_transport_bw(*q, ph, t);  // COMPLETED, or ACCEPTED with END_RESP to follow
    }
  }
}

// Round-robin among the flows whose queue pair's rate lets it start now (DCQCN pacing); when none
// may, the link sleeps until the earliest may. Linear in the flows queued here, as enqueue is.
bool LinkDir::pick_paced() {
  const std::int64_t now = now_ps();
  const std::size_t n = flows_.size();
  std::int64_t wake = std::numeric_limits<std::int64_t>::max();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (rr_next_ + k) % n;
    const FlowQueue& f = flows_[i];
    const std::int64_t t = cc_->eligible_ps(*chunk_of(*f.q[f.head]), now);
    if (t <= now) {
      rr_next_ = i;
      return true;
    }
    wake = std::min(wake, t);
  }
  resume_ev_.notify(ps_time(wake - now));
  return false;
}

void LinkDir::flush_trace() {
  if (track_ >= 0 && busy_from_ >= 0 && busy_to_ > busy_from_)
    ctx_.trace.slice(track_, trace_name_, "network", busy_from_, busy_to_, -1);
  busy_from_ = -1;
}

void LinkDir::on_serialized() {
  tlm::tlm_generic_payload* p = on_wire_;
  on_wire_ = nullptr;
  busy_ = false;
  std::uint32_t size = p->get_data_length();
  ++stats_.chunks;
  stats_.payload_bytes += size;
  if (chunk_of(*p)->background) stats_.background_bytes += size;
  stats_.wire_bytes += wire_bytes(size);
  stats_.busy_ps += wire_end_ - wire_start_;
  series_.add(wire_start_, wire_end_);
  if (!owner_bytes_.empty()) count_owner(*p, *chunk_of(*p));
  p->release();  // transmit's reference
  ++ctx_.events;
  try_transmit();
}

void LinkDir::count_owner(const tlm::tlm_generic_payload& p, const ChunkExt& c) {
  const int owner = c.route ? c.route->owner : -1;
  if (owner >= 0 && static_cast<std::size_t>(owner) < owner_bytes_.size())
    owner_bytes_[static_cast<std::size_t>(owner)] += p.get_data_length();
}

void LinkDir::on_arrival() {
  const std::int64_t now = now_ps();
  if (!delivering_ && arrived_.empty() && propagating_.size() == 1 && propagating_.front().head_ps <= now &&
      !chunk_of(*propagating_.front().p)->express) {
    // One chunk due and nothing before it: handed on without the arrived_ queue.
    tlm::tlm_generic_payload* p = propagating_.front().p;
    propagating_.pop_front();
    pfc_arrived(p);
    offer_downstream(p);
    return;
  }
  while (!propagating_.empty() && propagating_.front().head_ps <= now) {
    tlm::tlm_generic_payload* p = propagating_.front().p;
    propagating_.pop_front();
    if (!chunk_of(*p)->express) {
      pfc_arrived(p);
      arrived_.push_back(p);
      continue;
    }
    // Express: handed on at once, past chunks the far end has not taken yet (its own channel).
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_time t = sc_core::SC_ZERO_TIME;
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (out_fw_->nb_transport_fw(*p, ph, t) != tlm::TLM_COMPLETED)
      throw RunError(label_ + ": the far end did not take an express message");
    accepted_downstream(p);
  }
  if (!propagating_.empty()) arrival_at(propagating_.front().head_ps);
  try_deliver();
}

// Offers a chunk to the far end: taken at once, or held there (delivering_) until its BEGIN_RESP.
void LinkDir::offer_downstream(tlm::tlm_generic_payload* p) {
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time t = sc_core::SC_ZERO_TIME;
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  switch (out_fw_->nb_transport_fw(*p, ph, t)) {
    case tlm::TLM_COMPLETED: accepted_downstream(p); break;
    case tlm::TLM_ACCEPTED: delivering_ = p; break;
    default:  // held with END_REQ (Forwarder::end_held_requests): its BEGIN_RESP follows
      if (ph != tlm::END_REQ) throw RunError(label_ + ": the far end answered BEGIN_REQ with TLM_UPDATED");
      delivering_ = p;
  }
}

void LinkDir::try_deliver() {
  while (!delivering_ && !arrived_.empty()) {
    tlm::tlm_generic_payload* p = arrived_.front();
    arrived_.pop_front();
    offer_downstream(p);
  }
}

tlm::tlm_sync_enum LinkDir::bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph != tlm::BEGIN_RESP || &p != delivering_) throw RunError(label_ + ": unexpected phase on the backward path");
  delivering_ = nullptr;
  accepted_downstream(&p);
  try_deliver();
  return tlm::TLM_COMPLETED;
}

void LinkDir::accepted_downstream(tlm::tlm_generic_payload* p) {
  --unaccepted_, unaccepted_bytes_ -= p->get_data_length();
  p->release();
  try_transmit();
}

}  // namespace trainvp
