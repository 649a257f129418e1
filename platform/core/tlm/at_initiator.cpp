#include "platform/core/tlm/at_initiator.hpp"

#include "platform/core/errors.hpp"

namespace trainvp {

// "The target completed the transaction early" (TLM_COMPLETED returned on BEGIN_REQ).
DECLARE_EXTENDED_PHASE(internal_completed);

AtInitiator::AtInitiator(const char* name, PayloadPool& pool, Forward forward)
    : pool_(pool), forward_(std::move(forward)), peq_(name, this, &AtInitiator::on_peq) {}

AtInitiator::Port& AtInitiator::port(int index) {
  if (static_cast<std::size_t>(index) >= ports_.size()) ports_.resize(static_cast<std::size_t>(index) + 1);
  return ports_[static_cast<std::size_t>(index)];
}

std::size_t AtInitiator::outstanding() const {
  std::size_t n = in_flight_.size();
  for (auto& p : ports_) n += p.queue.size();
  return n;
}

void AtInitiator::transfer(int index, tlm::tlm_command cmd, std::uint64_t address, std::uint32_t length,
                           unsigned char* data, Done done) {
  port(index).queue.push_back({cmd, address, length, data, std::move(done)});
  try_send(index);
}

void AtInitiator::send(int index, tlm::tlm_generic_payload* prepared, Done done) {
  prepared->acquire();
  Port& pt = port(index);
  if (!pt.in_request && pt.queue.empty()) {  // the usual case: out at once, past the queue
    if (issue(index, prepared, std::move(done))) try_send(index);
    return;
  }
  pt.queue.push_back({tlm::TLM_WRITE_COMMAND, 0, 0, nullptr, std::move(done), prepared});
  try_send(index);
}

void AtInitiator::try_send(int index) {
  for (;;) {
    Port& pt = port(index);
    if (pt.in_request || pt.queue.empty()) return;
    Pending t = std::move(pt.queue.front());
    pt.queue.pop_front();
    tlm::tlm_generic_payload* p = t.prepared;
    if (!p) {
      p = pool_.acquire();
      p->set_command(t.cmd);
      p->set_address(t.address);
      p->set_data_length(t.length);
      p->set_streaming_width(t.length);
      p->set_data_ptr(t.data);
      p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    }
    if (!issue(index, p, std::move(t.done))) return;
  }
}

bool AtInitiator::issue(int index, tlm::tlm_generic_payload* p, Done done) {
  port(index).in_request = p;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum r = forward_(index, *p, phase, delay);
  if (r == tlm::TLM_COMPLETED && !done && delay == sc_core::SC_ZERO_TIME) {
    // Taken at once and nobody to tell (a chunk handed to its first link): finished here rather
    // than a delta cycle later from the PEQ, which cost a kernel event, a process activation and
    // an in-flight entry per chunk. Only this port feeds its target, which now holds this
    // transfer (sending or queued) and so queues the next one either way: the same order, the
    // same simulated time, no kernel notification added or moved.
    port(index).in_request = nullptr;
    ++completed_;
    p->release();
    return true;
  }
  // Recorded after the call: responses come through the PEQ, never from inside it.
  in_flight_[key(p)] = {index, std::move(done)};
  switch (r) {
    case tlm::TLM_ACCEPTED: break;  // END_REQ comes on the backward path
    case tlm::TLM_UPDATED:
      if (hold_until_response_ && phase == tlm::END_REQ) break;  // nothing to do before BEGIN_RESP
      peq_.notify(*p, phase, delay);                             // END_REQ or BEGIN_RESP
      break;
    case tlm::TLM_COMPLETED: peq_.notify(*p, internal_completed, delay); break;
  }
  return false;
}

tlm::tlm_sync_enum AtInitiator::nb_transport_bw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay) {
  peq_.notify(p, phase, delay);
  return tlm::TLM_ACCEPTED;
}

void AtInitiator::on_peq(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
  const InFlight* f = in_flight_.find(key(&p));
  if (!f) throw RunError("AT initiator: a response for a transfer not in flight");
  const int index = f->index;
  Port& pt = port(index);
  if (phase == tlm::END_REQ) {
    if (pt.in_request == &p && !hold_until_response_) pt.in_request = nullptr;
  } else if (phase == tlm::BEGIN_RESP) {
    if (pt.in_request == &p) pt.in_request = nullptr;  // BEGIN_RESP implies END_REQ
    tlm::tlm_phase end = tlm::END_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    forward_(index, p, end, delay);  // base protocol: the target answers END_RESP with COMPLETED
    finish(p);
  } else if (phase == internal_completed) {
    if (pt.in_request == &p) pt.in_request = nullptr;
    finish(p);
  } else {
    throw RunError("AT initiator: unexpected phase on the backward path");
  }
  try_send(index);
}

void AtInitiator::finish(tlm::tlm_generic_payload& p) {
  Done done = std::move(in_flight_.find(key(&p))->done);
  in_flight_.erase(key(&p));
  ++completed_;
  if (done) done(p);
  p.release();
}

}  // namespace trainvp
