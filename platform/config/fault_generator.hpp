#pragma once
// The seeded random fault campaign (`fault_generator`, docs/faults.md#random-campaigns): per fault
// kind Poisson arrivals at a rate, a duration distribution, a severity mix with the fault keys of
// each severity, and a scope from which each event draws its target. The events become plain
// `faults` entries ("origin": "generator"), validated and injected like explicit ones and written to
// DIR/faults.json, so that `trainvp run --faults DIR/faults.json` replays the campaign exactly.
//
// Table-driven: a fault kind takes part by one entry in the table of fault_generator.cpp (its
// target type, compute or network class, default rate and severity levels).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config/faults.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// The campaign's events are drawn against the fabric's names when the simulation is elaborated
// (platform/system/faults/campaign.hpp).
enum class DurationDist { Exponential, Lognormal, Fixed };
constexpr int kSeverities = 3;  // weak, medium, severe

// What one generated event hits: a GPU, all GPUs of a node, a link, or (congestion) a pair of NICs.
enum class GeneratorTargets { Gpu, Host, Link, NicPair };

struct FaultGeneratorKind {
  std::string name;  // its key under /fault_generator, e.g. "gpu_slowdown"
  FaultKind kind = FaultKind::GpuSlowdown;
  GeneratorTargets targets = GeneratorTargets::Gpu;
  double rate_per_h = 0;  // events per hour over the whole job; 0: off
  DurationDist distribution = DurationDist::Exponential;
  std::int64_t mean_ps = 0;                        // mean duration
  double sigma = 1.0;                              // lognormal: standard deviation of ln(duration)
  double mix[kSeverities] = {};                    // probabilities of weak, medium, severe
  nlohmann::json levels[kSeverities];              // the fault keys each severity sets, e.g. {"factor": 0.8}
  std::int64_t min_duration_ps[kSeverities] = {};  // a level's ramp: events last at least that long
  std::string scope;                               // glob over the fabric's names; "": the kind's default targets
};

struct FaultGeneratorConfig {
  bool enabled = false;                       // the scenario has a `fault_generator`
  std::int64_t start_ps = 0, horizon_ps = 0;  // events arrive in [start, horizon)
  std::uint64_t seed = 1;
  std::vector<FaultGeneratorKind> kinds;  // in the generator's table order
  nlohmann::json resolved;
};

struct Scenario;

// Reads /fault_generator. Defaults depend on the job (`s` must have its cluster, training and seed
// loaded): rates scale with its GPUs or nodes, network events last longer at >= 512 GPUs, the
// horizon is /training/time_limit. Throws ScenarioError at /fault_generator/...
FaultGeneratorConfig load_fault_generator(const nlohmann::json& value, const Scenario& s);

// The generator's schemas, for `trainvp describe` (all_schemas()).
std::vector<SchemaInfo> fault_generator_schemas();

// "weak", "medium", "severe".
const char* severity_name(int severity);

// Exact time text: whole seconds, else microseconds as decimal seconds, else picoseconds.
std::string time_text(std::int64_t ps);

}  // namespace trainvp
