#pragma once
// Scores the fail-slow monitor against the faults the platform injected, which the monitor never
// sees (docs/health.md#scoring): every diagnosis is matched to the fault it names, every fault to
// its first matching diagnosis, with precision, recall and reaction times.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/health/monitor.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"

namespace trainvp {

// The cause a fault of kind k stands for: a slower GPU is compute, a slower host cpu, a link's or
// the network's trouble communication (the scoring's truth, and the fleet report's causes).
FailCause cause_of(FaultKind k);

// Whether diagnosis `d` names fault `f`: the cause of the fault's kind, a suspect the fault touches
// (a GPU it slows; a probed edge or, without one, a suspect communicator's ring whose route
// crosses a link it degrades or a NIC it congests), and a change that began while it was on (one
// iteration of slack before its start). A group_wide diagnosis stands for a GPU or host fault on
// one of the ranks it names, a fabric_wide one for a link or congestion fault on the route of one
// of its communicators' rings (docs/health.md#no-healthy-peer).
bool diagnosis_matches(const Diagnosis& d, const FaultTruth& f, Fabric& fabric, std::int64_t slack_ps);

// Another job's traffic, the truth a job's communication diagnosis may match where no injected
// fault explains it (docs/health.md#with-jobs): when the neighbour sent, and every link direction
// one of its transfers may take (any ECMP choice).
struct NeighbourTruth {
  std::string job;                                           // its name
  std::string kind;                                          // "training" or "checkpoint"
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;  // when it sent: its bursts, or its run
  std::vector<int> dirs;                                     // ascending
};

// Whether communication diagnosis `d` names neighbour `n`: its change began while the neighbour
// sent (one iteration of slack before), and a slow edge (or, without one, a suspect
// communicator's ring edge) may be routed over a direction the neighbour's transfers may take.
bool neighbour_matches(const Diagnosis& d, const NeighbourTruth& n, Fabric& fabric, std::int64_t slack_ps);

// results.json `health`: the detector's report, the diagnoses, the faults and the score. With
// `neighbours` (a job's health with `jobs`), a diagnosis no fault explains may match one of them,
// and the results list them too.
nlohmann::ordered_json score_health(const FailSlowMonitor& m, const std::vector<FaultTruth>& truth, Fabric& fabric,
                                    const std::vector<NeighbourTruth>* neighbours = nullptr);

}  // namespace trainvp
