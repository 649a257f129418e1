#pragma once
// A device's port on the fabric, for devices that are not GPUs (a CPU aggregator's NIC side, an
// NVSwitch's NVLS unit): an endpoint that sends chunks out of `dma` and takes the chunks written
// into it on `mem`, handing each to its collective (the chunk's sink), with a response status.
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "models/link/chunk.hpp"
#include "models/link/endpoint.hpp"
#include "platform/core/tlm/at_initiator.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

class EndpointPort : public sc_core::sc_module, public ChunkEndpoint {
 public:
  tlm_utils::multi_passthrough_initiator_socket_optional<EndpointPort> dma;
  tlm_utils::multi_passthrough_target_socket_optional<EndpointPort> mem;

  explicit EndpointPort(sc_core::sc_module_name name);
  void send_chunk(tlm::tlm_generic_payload* chunk) override;
  const char* endpoint_name() const override { return name(); }
  void end_of_elaboration() override { dma_engine_.reserve_ports(dma.size()); }
  std::uint64_t bytes_in() const { return bytes_in_; }
  std::uint64_t bytes_out() const { return bytes_out_; }

 private:
  tlm::tlm_sync_enum nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_fw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  PayloadPool pool_;
  AtInitiator dma_engine_;
  std::uint64_t bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace trainvp
