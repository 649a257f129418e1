#include "models/link/traffic.hpp"

#include <algorithm>

#include "models/link/pfc.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

using sc_core::SC_PS;
using sc_core::sc_time;

static sc_time ps(std::int64_t v) { return ps_time(v); }

std::int64_t TrafficPattern::next_on(std::int64_t t) const {
  t = std::max(t, start_ps);
  if (end_ps >= 0 && t >= end_ps) return -1;
  if (off_ps <= 0) return t;
  const std::int64_t period = on_ps + off_ps, in = (t - start_ps) % period;
  if (in < on_ps) return t;
  const std::int64_t next = t + (period - in);
  return end_ps >= 0 && next >= end_ps ? -1 : next;
}

std::int64_t TrafficPattern::next_off(std::int64_t t) const {
  std::int64_t off = end_ps;
  if (off_ps > 0) {
    const std::int64_t period = on_ps + off_ps, in = (t - start_ps) % period;
    const std::int64_t end_of_on = t + (on_ps - in);
    off = off < 0 ? end_of_on : std::min(off, end_of_on);
  }
  return off;
}

TrafficSource::TrafficSource(sc_core::sc_module_name name, TrafficPattern pattern, std::int64_t interval_ps,
                             std::uint32_t chunk, std::uint32_t flow, std::uint64_t tag, RouteFn route)
    : sc_module(name),
      out("out"),
      pattern_(pattern),
      interval_ps_(interval_ps),
      chunk_(chunk),
      flow_(flow),
      tag_(tag),
      route_(std::move(route)),
      initiator_("at", pool_, [this](int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time& t) {
        return out->nb_transport_fw(p, ph, t);
      }) {
  out.register_nb_transport_bw(this, &TrafficSource::bw);
  SC_HAS_PROCESS(TrafficSource);
  SC_METHOD(tick);  // runs once at time 0, then on wake_
  sensitive << wake_;
}

// Sends when the pattern is on, the pacing interval has passed and the previous chunk was
// accepted; otherwise sleeps until the earliest of those. No process stays pending once the
// pattern is over, so a window that ends lets the run end as usual.
void TrafficSource::tick() {
  if (waiting_accept_) return;
  const std::int64_t now = now_ps();
  const std::int64_t at = pattern_.next_on(std::max(now, next_ps_));
  if (at < 0) return;
  if (at > now) {
    wake_.notify(ps(at - now));
    return;
  }
  tlm::tlm_generic_payload* p = pool_.acquire();  // this reference goes to the sink, which releases it
  ChunkExt* e = chunk_of(*p);
  if (!e) {
    e = new ChunkExt;
    p->set_extension(e);
  }
  e->route = route_();
  e->hop = 0;
  e->pfc = nullptr;  // pooled: counted at no port yet
  e->flow = flow_;
  e->payload_bytes = chunk_;
  e->more = true;  // an open-ended stream: a lost last packet is always followed
  e->background = true;
  e->tag = tag_;
  e->tail_ps = now;
  e->sink = nullptr;
  p->set_command(tlm::TLM_WRITE_COMMAND);
  p->set_address(0);
  p->set_data_length(chunk_);
  p->set_streaming_width(chunk_);
  waiting_accept_ = true;
  next_ps_ = now + interval_ps_;
  sent_bytes_ += chunk_;
  ++sent_chunks_;
  initiator_.send(0, p, [this](tlm::tlm_generic_payload&) {
    waiting_accept_ = false;
    wake_.notify(ps(std::max<std::int64_t>(0, next_ps_ - now_ps())));
  });
}

TrafficSink::TrafficSink(sc_core::sc_module_name name) : sc_module(name), in("in"), tails_("tails") {
  in.register_nb_transport_fw(this, &TrafficSink::fw);
  SC_HAS_PROCESS(TrafficSink);
  SC_METHOD(on_tail);
  sensitive << tails_.get_event();
  dont_initialize();
}

// A NIC's host memory takes background chunks at once, as GPU memory takes collective chunks.
tlm::tlm_sync_enum TrafficSink::fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (ph != tlm::BEGIN_REQ || !chunk_of(p)) throw RunError(std::string(name()) + ": unexpected request");
  pfc_leave(*chunk_of(p), p.get_data_length(), now_ps());  // it leaves the NIC here, not by a link
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  chunk_delivered(p);
  return tlm::TLM_COMPLETED;
}

void TrafficSink::chunk_delivered(tlm::tlm_generic_payload& p) {
  tails_.notify(p, ps(std::max<std::int64_t>(0, chunk_of(p)->tail_ps - now_ps())));
}

void TrafficSink::on_tail() {
  while (tlm::tlm_generic_payload* p = tails_.get_next_transaction()) {
    const std::uint64_t tag = chunk_of(*p)->tag;
    if (tag >= delivered_.size()) delivered_.resize(tag + 1, 0);
    delivered_[tag] += p->get_data_length();
    p->release();  // the source's reference
  }
}

}  // namespace trainvp
