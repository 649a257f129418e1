#pragma once
// /faults: injected faults (docs/faults.md), one schema per kind. The fault generator's events
// (fault_generator.hpp) pass the same validation.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// One injected fault (docs/faults.md). Targets are matched against the fabric's names when the
// simulation is elaborated (Simulation throws ScenarioError at /faults/<index>/target).
enum class FaultKind { LinkDegrade, GpuSlowdown, CpuContention, LinkDown, PacketLoss, Congestion };

// The names /faults/*/kind takes, in the order `trainvp describe` lists the kinds.
const NameTable<FaultKind>& fault_kind_names();
const char* fault_kind_name(FaultKind k);

struct FaultConfig {
  int index = 0;  // position in /faults
  FaultKind kind = FaultKind::LinkDegrade;
  std::string target;  // name or glob
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = -1;       // -1: to the end of the run
  double bandwidth_factor = 1.0;       // link_degrade
  std::int64_t added_latency_ps = 0;   // link_degrade
  double factor = 1.0;                 // gpu_slowdown
  std::int64_t ramp_ps = 0;            // gpu_slowdown
  double launch_factor = 1.0;          // cpu_contention
  double loss_rate = 0;                // packet_loss: probability that a transmitted packet is lost
  std::int64_t loss_timeout_ps = 0;    // packet_loss: retransmission timeout for a lost last packet
  bool generated = false;              // "origin": "generator": drawn by the fault generator
  std::string severity;                // the generator's severity class ("" for explicit faults)
  std::string destination;             // congestion: destination NIC name or glob (`target`: the sources)
  double congestion_bps = 0;           // congestion: payload rate of each source-destination pair
  int flows = 1;                       // congestion: parallel flows per pair, rate / flows each
  std::int64_t on_ps = 0, off_ps = 0;  // congestion: on/off pattern; off 0: always on
  std::uint64_t congestion_chunk = 0;  // congestion: message (chunk) size; 0: the fabric's chunk
  nlohmann::json params;               // the resolved object, for results.json
};

const ParamSet<FaultConfig>& fault_kind_schema(FaultKind k);

// Reads a `faults` list (null: none); `resolved` receives the resolved list. Throws ScenarioError
// at /faults/<index>/...
std::vector<FaultConfig> load_fault_list(const nlohmann::json& faults, nlohmann::json& resolved);

}  // namespace trainvp
