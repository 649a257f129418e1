#pragma once
// /health: GREYHOUND's fail-slow detector and mitigation running in the platform (docs/health.md).
// Present: the monitor tracks every rank's collective calls, detects and validates fail-slows,
// the mitigation policy answers its diagnoses, and results.json `health` scores both against the
// injected faults.
#include <cstdint>
#include <vector>

#include "models/health/detector_params.hpp"
#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// none: detect only. ladder: GREYHOUND's S1 (observe), S2 (move micro-batches between data-
// parallel replicas), S3 (move the job's nodes so its slow GPUs sit in few replicas and light
// stages), S4 (checkpoint and restart with a spare node), escalating by ski rental.
// always_restart: S4 on every diagnosis. oracle: acts on the injected faults themselves, at once.
enum class MitigationPolicy { None, Ladder, AlwaysRestart, Oracle };
const NameTable<MitigationPolicy>& mitigation_policy_names();  // the schema's choices and results' names
enum class MitigationStep { S1 = 1, S2 = 2, S3 = 3, S4 = 4 };

struct MitigationConfig {
  MitigationPolicy policy = MitigationPolicy::None;
  std::vector<MitigationStep> steps = {MitigationStep::S1, MitigationStep::S2, MitigationStep::S4};
  std::int64_t rebalance_pause_ps = 2'000'000'000'000;   // S2: the job pauses to re-plan its split
  std::int64_t topology_pause_ps = 60'000'000'000'000;   // S3: the job stops to move
  std::int64_t checkpoint_save_ps = 30'000'000'000'000;  // S4
  std::int64_t restart_ps = 300'000'000'000'000;         // S4: relaunch, load, warm up
  int recheck_iterations = 20;                           // S2: re-probe the GPUs it works around this often
};

struct HealthConfig {
  bool enabled = false;  // the scenario has a `health` object
  DetectorParams detector;
  MitigationConfig mitigation;
};

const ParamSet<HealthConfig>& health_schema();
const ParamSet<MitigationConfig>& mitigation_schema();
const char* mitigation_step_name(MitigationStep s);  // "s1" ... "s4"

// Reads /health (null when absent: off). Returns the resolved object, or null without one.
json load_health(HealthConfig& h, const json& value);

}  // namespace trainvp
