#include "models/link/endpoint_port.hpp"

#include <string>

#include "platform/core/errors.hpp"

namespace trainvp {

EndpointPort::EndpointPort(sc_core::sc_module_name name)
    : sc_module(name),
      dma("dma"),
      mem("mem"),
      dma_engine_("dma_peq", pool_,
                  [this](int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
                    return dma[i]->nb_transport_fw(p, ph, t);
                  }) {
  dma.register_nb_transport_bw(this, &EndpointPort::nb_transport_bw);
  mem.register_nb_transport_fw(this, &EndpointPort::nb_transport_fw);
}

void EndpointPort::send_chunk(tlm::tlm_generic_payload* chunk) {
  bytes_out_ += chunk->get_data_length();
  dma_engine_.send(chunk_of(*chunk)->route->ports[0], chunk, nullptr);
}

tlm::tlm_sync_enum EndpointPort::nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph,
                                                 sc_core::sc_time& t) {
  return dma_engine_.nb_transport_bw(i, p, ph, t);
}

// A chunk lands in the device's memory; the collective learns of it from the sink.
tlm::tlm_sync_enum EndpointPort::nb_transport_fw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph,
                                                 sc_core::sc_time&) {
  ChunkExt* c = chunk_of(p);
  if (!c) throw RunError(std::string(name()) + ": only fabric chunks are modelled");
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  bytes_in_ += p.get_data_length();
  p.set_response_status(tlm::TLM_OK_RESPONSE);  // before its owner, who may reuse it, hears of it
  c->sink->chunk_delivered(p);
  return tlm::TLM_COMPLETED;
}

}  // namespace trainvp
