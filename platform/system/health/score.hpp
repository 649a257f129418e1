#pragma once
// Scores the fail-slow monitor against the faults the platform injected, which the monitor never
// sees (docs/health.md#scoring): every diagnosis is matched to the fault it names, every fault to
// its first matching diagnosis, with precision, recall and reaction times.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/health/monitor.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"

namespace trainvp {

// Whether diagnosis `d` names fault `f`: the cause of the fault's kind, a suspect the fault touches
// (a GPU it slows; a probed edge or, without one, a suspect communicator's ring whose route
// crosses a link it degrades or a NIC it congests), and a change that began while it was on (one
// iteration of slack before its start).
bool diagnosis_matches(const Diagnosis& d, const FaultTruth& f, Fabric& fabric, std::int64_t slack_ps);

// results.json `health`: the detector's report, the diagnoses, the faults and the score.
nlohmann::ordered_json score_health(const FailSlowMonitor& m, const std::vector<FaultTruth>& truth, Fabric& fabric);

}  // namespace trainvp
