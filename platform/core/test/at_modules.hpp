#pragma once
// The AT helpers (AtInitiator, AtMemoryTarget) as stand-alone modules with one socket each, so a
// unit test can put a model's socket against either, with a ProtocolChecker in between.
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "platform/core/tlm/at_initiator.hpp"
#include "platform/core/tlm/at_memory_target.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp::test {

struct InitiatorModule : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<InitiatorModule> out;
  PayloadPool pool;
  AtInitiator at;

  explicit InitiatorModule(sc_core::sc_module_name name)
      : sc_module(name),
        out("out"),
        at("at", pool, [this](int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
          return out->nb_transport_fw(p, ph, t);
        }) {
    out.register_nb_transport_bw(this, &InitiatorModule::bw);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return at.nb_transport_bw(0, p, ph, t);
  }
};

struct MemoryModule : sc_core::sc_module {
  tlm_utils::simple_target_socket<MemoryModule> in;
  AtMemoryTarget mem;

  MemoryModule(sc_core::sc_module_name name, double bytes_per_s, std::int64_t latency_ps)
      : sc_module(name),
        in("in"),
        mem("mem", bytes_per_s, latency_ps,
            [this](int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
              return in->nb_transport_bw(p, ph, t);
            }) {
    in.register_nb_transport_fw(this, &MemoryModule::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return mem.nb_transport_fw(0, p, ph, t);
  }
};

}  // namespace trainvp::test
