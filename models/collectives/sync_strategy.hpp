#pragma once
// A gradient synchronization strategy: it subscribes to the GPUs' gradient-ready events,
// launches collectives on the engine, and gates phases (the optimizer step, or for Local SGD
// the next forward) until the collectives they need are complete.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/gpu/phase_gate.hpp"

namespace trainvp {

class SyncStrategy : public PhaseGate {
 public:
  virtual const char* name() const = 0;
  // Time rank spent with at least one of its collectives in progress during `iteration` (ps).
  virtual std::int64_t comm_ps(int rank, int iteration) const = 0;
  // Writes what results.json says about the strategy: fields of `results["sync"]` (which holds
  // `strategy` already) and of each of `results["iterations"]` (which hold `warmup`).
  virtual void report(nlohmann::ordered_json& results) const = 0;
};

// Length of the union of [start, end) intervals.
struct TimeInterval {
  std::int64_t start, end;
};
std::int64_t union_length(std::vector<TimeInterval> intervals);

}  // namespace trainvp
