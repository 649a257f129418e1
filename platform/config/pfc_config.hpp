#pragma once
// cluster.fabric.pfc: how Ethernet links push back (docs/fabric.md#pfc): the PFC-like egress model
// (the default), per-port ingress PFC as RoCE switches do it, or none.
#include <cstdint>

#include "models/link/pfc.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct PfcConfig {
  PfcMode mode = PfcMode::Egress;
  std::uint64_t xoff = 0;      // 0: fabric.switch_buffer (a port's share of the switch buffer)
  std::uint64_t xon = 0;       // 0: xoff / 2
  std::uint64_t headroom = 0;  // 0: per port, from its link's bandwidth-delay product (pfc_port_params)
};

const ParamSet<PfcConfig>& pfc_schema();

// Loads cluster.fabric.pfc (`value` an object) into `c`, resolving the defaults that depend on the
// fabric, and checks it against it (flow fidelity, chunk size); ScenarioError naming the pointer.
// Returns the resolved object for the resolved scenario.
json load_pfc(PfcConfig& c, const json& value, const std::string& path, std::uint64_t switch_buffer,
              std::uint64_t chunk, bool flow_fidelity);

// One Ethernet link direction's PFC parameters: the pause acts the link's propagation plus one
// PAUSE frame (64 bytes + 20 of preamble and gap) after a crossing; the default headroom holds
// what a transmitter sends in the round trip (its direction's latency plus that delay, at the
// link rate) plus two chunks (the one crossing XOFF, the one on the wire when the PAUSE lands).
PfcPortParams pfc_port_params(const PfcConfig& c, double bps, std::int64_t propagation_ps, std::int64_t dir_latency_ps,
                              std::uint64_t chunk_wire_bytes);

}  // namespace trainvp
