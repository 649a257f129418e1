#include "platform/core/tlm/protocol_checker.hpp"

#include <sstream>

namespace trainvp {

ProtocolChecker::ProtocolChecker(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
  in.register_nb_transport_fw(this, &ProtocolChecker::fw);
  out.register_nb_transport_bw(this, &ProtocolChecker::bw);
}

void ProtocolChecker::violation(const tlm::tlm_generic_payload& p, const std::string& what, const char* clause) {
  std::ostringstream s;
  s << name() << ": " << what << " (IEEE 1666-2011 " << clause << "), address 0x" << std::hex << p.get_address()
    << " at " << sc_core::sc_time_stamp();
  violations_.push_back(s.str());
}

tlm::tlm_sync_enum ProtocolChecker::fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
  const tlm::tlm_phase sent = ph;
  if (sent == tlm::BEGIN_REQ) {
    if (phase_.count(&p)) violation(p, "BEGIN_REQ for a transaction already in progress", "15.2.4");
    if (in_request_)
      violation(p, "BEGIN_REQ before the previous request's END_REQ (request exclusion rule)", "15.2.6 e)");
    if (!p.has_mm()) violation(p, "nb_transport with a payload that has no memory manager", "14.5 i)");
    if (p.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
      violation(p, "BEGIN_REQ with a response status other than TLM_INCOMPLETE_RESPONSE", "14.17 e)");
    phase_[&p] = tlm::BEGIN_REQ;
    in_request_ = &p;
    ++begun_;
  } else if (sent == tlm::END_RESP) {
    advance(p, tlm::END_RESP, "nb_transport_fw");
  } else {
    std::ostringstream s;
    s << "phase " << sent << " on the forward path";
    violation(p, s.str(), "15.2.3 c)");
  }
  const tlm::tlm_sync_enum r = out->nb_transport_fw(p, ph, t);
  if (r == tlm::TLM_ACCEPTED && ph != sent) violation(p, "phase changed on a TLM_ACCEPTED return", "15.2.3 c)");
  if (r == tlm::TLM_UPDATED) {
    if (sent == tlm::BEGIN_REQ && (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP)) {
      advance(p, ph, "the return from nb_transport_fw");
    } else {
      std::ostringstream s;
      s << "TLM_UPDATED with phase " << ph << " returned for " << sent;
      violation(p, s.str(), "15.2.4");
    }
  }
  if (r == tlm::TLM_COMPLETED && sent == tlm::BEGIN_REQ && p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation(p, "TLM_COMPLETED for BEGIN_REQ without a response status (still TLM_INCOMPLETE_RESPONSE)", "14.17 e)");
  if (r == tlm::TLM_COMPLETED || sent == tlm::END_RESP) finish(p);
  return r;
}

tlm::tlm_sync_enum ProtocolChecker::bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
  const tlm::tlm_phase sent = ph;
  if (sent == tlm::END_REQ || sent == tlm::BEGIN_RESP) {
    advance(p, sent, "nb_transport_bw");
  } else {
    std::ostringstream s;
    s << "phase " << sent << " on the backward path";
    violation(p, s.str(), "15.2.3 c)");
  }
  const tlm::tlm_sync_enum r = in->nb_transport_bw(p, ph, t);
  if (r == tlm::TLM_ACCEPTED && ph != sent) violation(p, "phase changed on a TLM_ACCEPTED return", "15.2.3 c)");
  if (r == tlm::TLM_UPDATED) {
    if (sent == tlm::BEGIN_RESP && ph == tlm::END_RESP) {
      advance(p, tlm::END_RESP, "the return from nb_transport_bw");
      finish(p);
    } else {
      std::ostringstream s;
      s << "TLM_UPDATED with phase " << ph << " returned for " << sent;
      violation(p, s.str(), "15.2.4");
    }
  }
  if (r == tlm::TLM_COMPLETED) finish(p);
  return r;
}

void ProtocolChecker::advance(tlm::tlm_generic_payload& p, const tlm::tlm_phase& next, const char* where) {
  auto it = phase_.find(&p);
  std::ostringstream s;
  if (it == phase_.end()) {
    s << next << " in " << where << " for a transaction not in progress";
    violation(p, s.str(), "15.2.4");
    return;
  }
  const tlm::tlm_phase cur = it->second;
  const bool legal = next == tlm::END_REQ      ? cur == tlm::BEGIN_REQ
                     : next == tlm::BEGIN_RESP ? cur == tlm::BEGIN_REQ || cur == tlm::END_REQ
                                               : cur == tlm::BEGIN_RESP;  // END_RESP
  if (!legal) {
    s << next << " after " << cur << " in " << where;
    violation(p, s.str(), "15.2.4");
  }
  if (in_request_ == &p && next != tlm::END_RESP) in_request_ = nullptr;  // BEGIN_RESP implies END_REQ
  if (next == tlm::BEGIN_RESP) {
    if (in_response_ && in_response_ != &p)
      violation(p, "BEGIN_RESP before the previous response's END_RESP (response exclusion rule)", "15.2.6 f)");
    if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      violation(p, "BEGIN_RESP without a response status (still TLM_INCOMPLETE_RESPONSE)", "14.17 e)");
    in_response_ = &p;
  }
  if (next == tlm::END_RESP && in_response_ == &p) in_response_ = nullptr;
  it->second = next;
}

void ProtocolChecker::finish(tlm::tlm_generic_payload& p) {
  if (!phase_.erase(&p)) return;  // already reported as not in progress
  if (in_request_ == &p) in_request_ = nullptr;
  if (in_response_ == &p) in_response_ = nullptr;
  ++completed_;
}

}  // namespace trainvp
