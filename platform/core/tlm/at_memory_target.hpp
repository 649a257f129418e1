#pragma once
// The target side of the AT base protocol for a memory: accepts a request at once (END_REQ),
// serializes data transfer at the memory's bandwidth, and starts the response a fixed latency
// after the data is through. Responses on each socket index respect the response exclusion
// rule (the next BEGIN_RESP only after the previous END_RESP). Timing only: payload data is
// not stored, which lets an 80 GiB HBM be modelled without backing it.
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

namespace trainvp {

class AtMemoryTarget {
 public:
  using Backward =
      std::function<tlm::tlm_sync_enum(int index, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)>;

  // bytes_per_s: sustained bandwidth; latency_ps: from data through to BEGIN_RESP.
  AtMemoryTarget(const char* name, double bytes_per_s, std::int64_t latency_ps, Backward backward);

  tlm::tlm_sync_enum nb_transport_fw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  void reserve_ports(std::size_t n) {  // see AtInitiator::reserve_ports
    if (ports_.size() < n) ports_.resize(n);
  }
  std::uint64_t bytes_served() const { return bytes_; }
  std::uint64_t transactions() const { return transactions_; }

 private:
  struct Port {
    std::deque<tlm::tlm_generic_payload*> responses;  // ready, waiting for the channel
    tlm::tlm_generic_payload* in_response = nullptr;  // BEGIN_RESP sent, END_RESP not yet seen
  };
  Port& port(int index);
  void on_peq(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase);
  void send_response(int index);

  double bytes_per_s_;
  std::int64_t latency_ps_;
  Backward backward_;
  tlm_utils::peq_with_cb_and_phase<AtMemoryTarget> peq_;
  std::vector<Port> ports_;
  std::unordered_map<tlm::tlm_generic_payload*, int> index_of_;
  std::int64_t free_at_ps_ = 0;  // when the data path is next free
  std::uint64_t bytes_ = 0;
  std::uint64_t transactions_ = 0;
};

}  // namespace trainvp
