#pragma once
// A device that forwards chunks between links by the chunk's source route: an Ethernet
// switch, a NIC (between its PCIe and network ports), an NVSwitch, a PCIe switch or root
// complex. It is a pass-through interconnect in the AT sense: BEGIN_REQ goes straight to the
// egress link chosen by the route, whose queue is this device's output-port buffer, and the
// acceptance (or the later BEGIN_RESP) travels back to the ingress link. The device's
// forwarding latency is added by its egress links. Requests waiting for an egress port that
// has one unaccepted request already queue here (request exclusion rule), in arrival order.
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "platform/core/model_info.hpp"

namespace trainvp {

class Forwarder : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket_optional<Forwarder> in;
  tlm_utils::multi_passthrough_initiator_socket_optional<Forwarder> out;

  Forwarder(sc_core::sc_module_name name, std::string label);
  const std::string& label() const { return label_; }
  static const ModelInfo& info();
  // The chunks from in-port `in_port` that wait here are held with END_REQ (TLM_UPDATED), not
  // TLM_ACCEPTED, freeing the request channel for express messages. Only for a port whose sender
  // offers no other chunk before the held one's BEGIN_RESP (a LinkDir). Elaboration only.
  void end_held_requests(int in_port);

 private:
  // Ports are sized once binding is complete: calls re-enter this device (an acceptance travels
  // back while another chunk arrives), so the port table must never reallocate during a run.
  void end_of_elaboration() override;
  tlm::tlm_sync_enum fw(int in_port, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum bw(int out_port, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  // Sends to `out_port`; returns true when accepted at once.
  bool offer(int out_port, tlm::tlm_generic_payload* p);
  void accepted_later(int in_port, tlm::tlm_generic_payload* p);

  // A switch has a port per rank at scale and touches one per chunk: kept small (a vector FIFO,
  // platform/core/vector_fifo.hpp, not a deque's two blocks), with the egress's interface at hand
  // rather than behind the socket's table.
  struct Port {
    tlm::tlm_fw_transport_if<>* egress = nullptr;
    tlm::tlm_generic_payload* waiting_accept = nullptr;  // BEGIN_REQ outstanding on this egress
    std::vector<tlm::tlm_generic_payload*> queue;        // not yet offered, from `head` on
    std::size_t head = 0;
    bool empty() const { return head == queue.size(); }
  };
  std::string label_;
  std::vector<Port> ports_;
  std::unordered_map<tlm::tlm_generic_payload*, int> ingress_of_;  // held payload -> ingress port
  std::vector<bool> end_held_;                                     // by in-port: end_held_requests
};

}  // namespace trainvp
