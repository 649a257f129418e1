#include "platform/core/tlm/at_memory_target.hpp"

#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

DECLARE_EXTENDED_PHASE(internal_response_ready);

AtMemoryTarget::AtMemoryTarget(const char* name, double bytes_per_s, std::int64_t latency_ps, Backward backward)
    : bytes_per_s_(bytes_per_s),
      latency_ps_(latency_ps),
      backward_(std::move(backward)),
      peq_(name, this, &AtMemoryTarget::on_peq) {}

AtMemoryTarget::Port& AtMemoryTarget::port(int index) {
  if (static_cast<std::size_t>(index) >= ports_.size()) ports_.resize(static_cast<std::size_t>(index) + 1);
  return ports_[static_cast<std::size_t>(index)];
}

tlm::tlm_sync_enum AtMemoryTarget::nb_transport_fw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                                   sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    index_of_[&p] = index;
    peq_.notify(p, phase, delay);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP) {
    // Handled now, not through the PEQ: the initiator may recycle the payload right after.
    Port& pt = port(index);
    if (pt.in_response == &p) pt.in_response = nullptr;
    index_of_.erase(&p);
    send_response(index);
    return tlm::TLM_COMPLETED;
  }
  throw RunError("AT memory target: unexpected phase on the forward path");
}

void AtMemoryTarget::on_peq(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase) {
  int index = index_of_.at(&p);
  if (phase == tlm::BEGIN_REQ) {
    // Accept at once; the data path serializes transfers at the memory bandwidth.
    tlm::tlm_phase end = tlm::END_REQ;
    sc_core::sc_time zero = sc_core::SC_ZERO_TIME;
    backward_(index, p, end, zero);
    const std::int64_t now = now_ps();
    const std::int64_t start = free_at_ps_ > now ? free_at_ps_ : now;
    free_at_ps_ = start + round_ps(static_cast<double>(p.get_data_length()) / bytes_per_s_ * 1e12);
    bytes_ += p.get_data_length();
    ++transactions_;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    peq_.notify(p, internal_response_ready, ps_time(free_at_ps_ - now + latency_ps_));
  } else if (phase == internal_response_ready) {
    port(index).responses.push_back(&p);
    send_response(index);
  }
}

void AtMemoryTarget::send_response(int index) {
  Port& pt = port(index);
  while (!pt.in_response && !pt.responses.empty()) {
    tlm::tlm_generic_payload* p = pt.responses.front();
    pt.responses.pop_front();
    pt.in_response = p;
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tlm::tlm_sync_enum r = backward_(index, *p, phase, delay);
    if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
      pt.in_response = nullptr;  // the initiator finished the transaction on the return path
      index_of_.erase(p);
    }
  }
}

}  // namespace trainvp
