#pragma once
// The cross-traffic of `congestion` faults (docs/faults.md#congestion): paced flows from source
// NICs to destination NICs, injected into the fabric as real chunks and routed (ECMP) like any
// transfer, so they compete in the same link queues as the training traffic. One sink per
// destination NIC, shared by the faults; chunks carry their fault's index as tag.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/link/traffic.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

class BackgroundTraffic {
 public:
  BackgroundTraffic(Fabric& fabric, std::uint64_t default_chunk) : fabric_(fabric), default_chunk_(default_chunk) {}

  // Adds fault `f`'s flows: for every pair of a source and a different destination (NIC device
  // indices), `f.flows` flows of `f.congestion_bps` / `f.flows` each. Returns the names of the
  // links its routes load, in fabric order. Throws ScenarioError at /faults/<i>/destination when
  // there is no pair or too many.
  std::vector<std::string> add(const FaultConfig& f, const std::vector<int>& sources,
                               const std::vector<int>& destinations);

  struct Totals {
    int pairs = 0;
    std::uint64_t sent_bytes = 0, sent_chunks = 0, delivered_bytes = 0;
  };
  Totals totals(int fault_index) const;
  static constexpr int kMaxFlows = 4096;  // per fault: pairs x flows

 private:
  // Packet fidelity: a paced chunk source. Flow fidelity: an endless flow capped at its rate
  // (FlowSource); its bytes count as delivered as they drain (no chunks in flight).
  struct Flow {
    int fault;
    std::unique_ptr<TrafficSource> src;
    std::unique_ptr<FlowSource> flow_src;
    std::uint64_t chunk = 0;
  };
  int sink_port(int nic);

  Fabric& fabric_;
  std::uint64_t default_chunk_;
  std::vector<Flow> flows_;
  std::unordered_map<int, int> pairs_;      // fault index -> pairs
  std::unordered_map<int, int> sink_port_;  // destination NIC device -> out-port
  std::vector<std::unique_ptr<TrafficSink>> sinks_;
};

}  // namespace trainvp
