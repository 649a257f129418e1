#pragma once
// A TLM-2.0 base-protocol checker (IEEE 1666-2011 clause 15) for the AT style the models use: it
// sits in-line between an initiator and a target (or two hops of an interconnect), forwards
// nb_transport_fw and nb_transport_bw unchanged, and records every call or return that breaks the
// phase sequence BEGIN_REQ -> END_REQ -> BEGIN_RESP -> END_RESP (with its TLM_UPDATED and
// TLM_COMPLETED shortcuts), the request and response exclusion rules, or the generic payload's
// state at BEGIN_REQ and BEGIN_RESP. Violations are collected, not thrown, so a test can assert
// there are none (or, for a deliberately bad initiator, that one was caught). The models do not
// use b_transport, so it is not forwarded.
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace trainvp {

class ProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProtocolChecker> in;      // bound by the initiator
  tlm_utils::simple_initiator_socket<ProtocolChecker> out;  // binds to the target

  explicit ProtocolChecker(sc_core::sc_module_name name);

  // One line per violation: the rule, the clause and the transaction's address.
  const std::vector<std::string>& violations() const { return violations_; }
  std::uint64_t begun() const { return begun_; }          // BEGIN_REQs seen
  std::uint64_t completed() const { return completed_; }  // transactions seen through to their end
  std::size_t in_progress() const { return phase_.size(); }

 private:
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  // Moves `p` to `next` (a base-protocol phase), checking that it may follow the current one.
  void advance(tlm::tlm_generic_payload& p, const tlm::tlm_phase& next, const char* where);
  void finish(tlm::tlm_generic_payload& p);
  void violation(const tlm::tlm_generic_payload& p, const std::string& what, const char* clause);

  std::unordered_map<const tlm::tlm_generic_payload*, tlm::tlm_phase> phase_;  // last phase of each live transaction
  const tlm::tlm_generic_payload* in_request_ = nullptr;                       // BEGIN_REQ without END_REQ yet
  const tlm::tlm_generic_payload* in_response_ = nullptr;                      // BEGIN_RESP without END_RESP yet
  std::vector<std::string> violations_;
  std::uint64_t begun_ = 0, completed_ = 0;
};

}  // namespace trainvp
