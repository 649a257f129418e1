#pragma once
// The initiator side of the AT base protocol, for every index of a (multi-)socket: queues
// transfers per index, sends BEGIN_REQ only after that index's previous END_REQ (request
// exclusion rule), answers BEGIN_RESP with END_RESP, and calls each transfer's completion
// callback at the simulated time its response arrives. Never waits: it runs from one PEQ.
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "platform/core/flat_map.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

class AtInitiator {
 public:
  using Forward =
      std::function<tlm::tlm_sync_enum(int index, tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&)>;
  using Done = std::function<void(tlm::tlm_generic_payload&)>;

  // Construct during elaboration (it owns a PEQ). `forward` calls nb_transport_fw on `index`.
  AtInitiator(const char* name, PayloadPool& pool, Forward forward);

  // Queues a transfer of `length` bytes at `address` on socket index `index`; `data` may be
  // null (timing only). `done` runs when the response has arrived.
  void transfer(int index, tlm::tlm_command cmd, std::uint64_t address, std::uint32_t length, unsigned char* data,
                Done done);

  // Queues a payload the caller prepared (and keeps its own reference to); it is acquired while
  // in flight here and released when `done` has run.
  void send(int index, tlm::tlm_generic_payload* prepared, Done done);

  // The owner's nb_transport_bw forwards here.
  tlm::tlm_sync_enum nb_transport_bw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  // Sizes the per-index state up front (call at end of elaboration): calls re-enter this object,
  // so its port table must not reallocate while a reference to an entry is live.
  void reserve_ports(std::size_t n) {
    if (ports_.size() < n) ports_.resize(n);
  }
  // A port's next request goes out at the current one's response, not at its END_REQ: for an
  // owner that also sends on the socket past this queue (CxlPort's express messages), so that a
  // target may end a request it holds and leave the request channel free for them.
  void hold_until_response() { hold_until_response_ = true; }
  std::size_t outstanding() const;
  std::uint64_t completed() const { return completed_; }

 private:
  struct Pending {
    tlm::tlm_command cmd;
    std::uint64_t address;
    std::uint32_t length;
    unsigned char* data;
    Done done;
    tlm::tlm_generic_payload* prepared = nullptr;
  };
  struct Port {
    std::deque<Pending> queue;
    tlm::tlm_generic_payload* in_request = nullptr;  // BEGIN_REQ sent, END_REQ not yet seen
  };
  struct InFlight {
    int index;
    Done done;
  };
  Port& port(int index);
  void try_send(int index);
  // Sends BEGIN_REQ for `p`; true when it finished on the spot (the port is free for the next).
  bool issue(int index, tlm::tlm_generic_payload* p, Done done);
  void on_peq(tlm::tlm_generic_payload& p, const tlm::tlm_phase& phase);
  void finish(tlm::tlm_generic_payload& p);

  PayloadPool& pool_;
  Forward forward_;
  tlm_utils::peq_with_cb_and_phase<AtInitiator> peq_;
  std::vector<Port> ports_;
  static std::uint64_t key(const tlm::tlm_generic_payload* p) { return reinterpret_cast<std::uintptr_t>(p); }
  FlatMap64<InFlight> in_flight_;  // by payload; looked up per transfer (a flat table: no node to miss)
  std::uint64_t completed_ = 0;
  bool hold_until_response_ = false;
};

}  // namespace trainvp
