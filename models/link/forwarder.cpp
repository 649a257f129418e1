#include "models/link/forwarder.hpp"

#include "models/link/chunk.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/vector_fifo.hpp"

namespace trainvp {

Forwarder::Forwarder(sc_core::sc_module_name name, std::string label)
    : sc_module(name), in("in"), out("out"), label_(std::move(label)) {
  in.register_nb_transport_fw(this, &Forwarder::fw);
  out.register_nb_transport_bw(this, &Forwarder::bw);
}

const ModelInfo& Forwarder::info() {
  static const ModelInfo i{
      "forwarder",
      "A device that forwards chunks between links by their source route: an Ethernet switch, leaf or spine, a "
      "NIC (between its PCIe and network ports), an NVSwitch, a PCIe switch or root complex. A pass-through in the "
      "AT sense: BEGIN_REQ goes on to the egress link the route names, whose queue is the device's output buffer "
      "and whose latency holds its forwarding time (fabric.switch_latency, fabric.nic_latency, "
      "nvlink.switch_latency, pcie.switch_latency).",
      {"fabric", "nvlink", "pcie"},
      "",
      {{"in", "target, TLM-2.0 AT (multi-passthrough)", "the link directions arriving at the device, one per port"},
       {"out", "initiator, TLM-2.0 AT (multi-passthrough)", "the link directions leaving the device, one per port"}},
      {},
      {},
      "its egress link directions report its output buffers' queues and pauses (the links[*] entries named "
      "\"DEVICE->...\")"};
  return i;
}

void Forwarder::end_held_requests(int in_port) {
  if (end_held_.size() <= static_cast<std::size_t>(in_port)) end_held_.resize(static_cast<std::size_t>(in_port) + 1);
  end_held_[static_cast<std::size_t>(in_port)] = true;
}

void Forwarder::end_of_elaboration() {
  ports_.resize(out.size());
  for (std::size_t i = 0; i < ports_.size(); ++i) ports_[i].egress = out[static_cast<int>(i)];
}

tlm::tlm_sync_enum Forwarder::fw(int in_port, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (ph != tlm::BEGIN_REQ) throw RunError(label_ + ": unexpected phase on the forward path");
  ChunkExt* c = chunk_of(p);
  int port = c->route->ports[static_cast<std::size_t>(++c->hop)];
  if (c->express) {  // past the bulk queue: the egress link takes it at once
    tlm::tlm_phase begin = tlm::BEGIN_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    if (out[port]->nb_transport_fw(p, begin, t) != tlm::TLM_COMPLETED)
      throw RunError(label_ + ": an express message was not taken");
    return tlm::TLM_COMPLETED;
  }
  Port& pt = ports_[static_cast<std::size_t>(port)];
  if (!pt.waiting_accept && pt.empty() && offer(port, &p)) return tlm::TLM_COMPLETED;
  p.acquire();
  ingress_of_[&p] = in_port;
  if (pt.waiting_accept != &p) pt.queue.push_back(&p);
  if (static_cast<std::size_t>(in_port) >= end_held_.size() || !end_held_[static_cast<std::size_t>(in_port)])
    return tlm::TLM_ACCEPTED;
  ph = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

bool Forwarder::offer(int out_port, tlm::tlm_generic_payload* p) {
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  tlm::tlm_sync_enum r = ports_[static_cast<std::size_t>(out_port)].egress->nb_transport_fw(*p, ph, t);
  if (r == tlm::TLM_COMPLETED) return true;
  // Held by the egress link, with or without END_REQ (LinkDir::end_held_requests): BEGIN_RESP follows.
  if (r != tlm::TLM_ACCEPTED && (r != tlm::TLM_UPDATED || ph != tlm::END_REQ))
    throw RunError(label_ + ": egress answered BEGIN_REQ with TLM_UPDATED");
  ports_[static_cast<std::size_t>(out_port)].waiting_accept = p;
  return false;
}

tlm::tlm_sync_enum Forwarder::bw(int out_port, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
  Port& pt = ports_[static_cast<std::size_t>(out_port)];
  if (ph != tlm::BEGIN_RESP || pt.waiting_accept != &p)
    throw RunError(label_ + ": unexpected phase on the backward path");
  pt.waiting_accept = nullptr;
  accepted_later(ingress_of_.at(&p), &p);
  // Offer what queued behind it, in arrival order, until the egress pushes back again.
  while (!pt.waiting_accept && !pt.empty()) {
    tlm::tlm_generic_payload* q = pop_front(pt.queue, pt.head);
    if (offer(out_port, q)) accepted_later(ingress_of_.at(q), q);
  }
  return tlm::TLM_COMPLETED;
}

void Forwarder::accepted_later(int in_port, tlm::tlm_generic_payload* p) {
  ingress_of_.erase(p);
  tlm::tlm_phase ph = tlm::BEGIN_RESP;
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  in[in_port]->nb_transport_bw(*p, ph, t);  // COMPLETED, or ACCEPTED with END_RESP to follow
  p->release();
}

}  // namespace trainvp
