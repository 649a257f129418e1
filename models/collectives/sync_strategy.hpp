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
  // Part of the rank's time blocked at its gates in `iteration` that waited for another pipeline
  // stage rather than for a collective (the bubble): not exposed communication (ps).
  virtual std::int64_t stage_wait_ps(int /*rank*/, int /*iteration*/) const { return 0; }
  // Writes what results.json says about the strategy: fields of `results["sync"]` (which holds
  // `strategy` already) and of each of `results["iterations"]` (which hold `warmup`).
  virtual void report(nlohmann::ordered_json& results) const = 0;
  // The most bytes of `rank`'s gradient buffers held at once for synchronization: from the moment
  // a unit (bucket, layer) is ready until its collective is done on the rank. 0: not tracked.
  virtual std::uint64_t peak_in_flight_bytes(int /*rank*/) const { return 0; }
  // Steady-state fast-forward: iterations [first, first + count) are not simulated. They repeat
  // the `period` iterations before `first`, each shifted by whole periods of `period_ps` (the
  // records of iteration first + j copy first + j - m x period, m = ceil((j + 1) / period)).
  // The strategy records them as done, with their communication shifted, so that its gates and
  // its report go on as if they had run. Called while no collective is in flight.
  virtual void skip_iterations(int first, int count, int period, std::int64_t period_ps) = 0;
};

// Length of the union of [start, end) intervals.
struct TimeInterval {
  std::int64_t start, end;
};
std::int64_t union_length(std::vector<TimeInterval> intervals);

}  // namespace trainvp
