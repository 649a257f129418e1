#pragma once
// A CPU aggregator node's parameters (cluster.aggregators): its CPU (cores, SIMD width, clock,
// memory bandwidth), with presets for real server CPUs, and how it reaches the fabric.
#include <cstdint>
#include <string>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

struct CpuParams {
  std::string model;  // preset or custom name, for reports
  int cores = 1;
  int simd_bits = 256;              // vector register width
  int simd_adds_per_cycle = 1;      // vector FP adds a core issues per cycle (its FP add/FMA pipes)
  double clock_hz = 2e9;            // sustained all-core clock
  double mem_bw = 0;                // bits/s, peak DRAM bandwidth
  double mem_efficiency = 0.8;      // fraction of the peak a streaming sum reaches
  std::int64_t job_latency_ps = 0;  // fixed cost per reduction (hand-off to the summing threads)

  // Element adds per second over all cores: cores x lanes x adds per cycle x clock.
  double adds_per_s(int elem_bytes) const;
  // Bytes per second the reduction streams through DRAM.
  double mem_bytes_per_s() const { return mem_bw / 8.0 * mem_efficiency; }
};

// Time to sum `contributors` contributions of `bytes` each into one result (docs/aggregators.md):
//   job_latency + max((k - 1) n / e / adds_per_s,  (k + 1) n / mem_bytes_per_s)
// compute: k - 1 adds per element; memory: k inputs read, one result written (a roofline).
std::int64_t cpu_reduce_ps(const CpuParams& c, std::uint64_t bytes, int contributors, int elem_bytes);

const ParamSet<CpuParams>& cpu_schema();

struct CpuPreset {
  std::string name, description;
  json values;  // an object in the cpu schema, as a scenario would write it
};
const std::vector<CpuPreset>& cpu_presets();
// A CPU from a scenario: a preset name ("xeon-8380"), or an object with `preset` plus overrides,
// or every key. Returns the resolved object.
json load_cpu(CpuParams& out, const json& value, const std::string& path);

// cluster.aggregators: how many aggregator nodes, their CPU and NICs.
struct AggregatorParams {
  int count = 0;
  int nics = 1;
  double nic_bw = 0;  // bits/s per NIC; 0: the fabric's link rate
  CpuParams cpu;
};
const ParamSet<AggregatorParams>& aggregators_schema();

}  // namespace trainvp
