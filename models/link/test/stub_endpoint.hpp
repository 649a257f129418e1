#pragma once
// A rank's fabric ports reduced to their protocol, for unit tests that wire models to links
// without GPUs (the engine alone, ParallelSync's waits): chunks leave by test::InitiatorModule's
// AT initiator (the base protocol's request exclusion, as a GPU's copy engine), and an arriving
// chunk is taken at once, completed with its status and handed to its sink, as GPU memory takes it.
#include <tlm_utils/simple_target_socket.h>

#include "models/link/chunk.hpp"
#include "models/link/endpoint.hpp"
#include "platform/core/test/at_modules.hpp"

namespace trainvp::test {

struct StubEndpoint : InitiatorModule, ChunkEndpoint {
  tlm_utils::simple_target_socket<StubEndpoint> in;

  explicit StubEndpoint(sc_core::sc_module_name name) : InitiatorModule(name), in("in") {
    in.register_nb_transport_fw(this, &StubEndpoint::fw);
  }
  void send_chunk(tlm::tlm_generic_payload* chunk) override { at.send(0, chunk, nullptr); }
  const char* endpoint_name() const override { return name(); }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    chunk_of(p)->sink->chunk_delivered(p);
    return tlm::TLM_COMPLETED;
  }
};

}  // namespace trainvp::test
