#pragma once
// Phase durations by roofline: max(FLOPs / effective compute, bytes / effective memory
// bandwidth) + kernels x launch overhead, divided by the GPU's speed factor. Measured layer
// times replace the roofline term (and include their own launches).
#include <cstdint>

#include "models/gpu/gpu_params.hpp"
#include "models/gpu/phase.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct PhaseWork {
  double flops = 0;
  double bytes = 0;
  int kernels = 0;
  std::int64_t measured_ps = -1;  // >= 0: a measured time replaces the roofline
};

// The work of a phase of `w` (per micro-batch for layer phases, per step for the optimizer).
PhaseWork phase_work(const Workload& w, const Phase& ph);

// Optimizer state traffic and arithmetic per parameter, documented in docs/scenario-format.md.
double optimizer_bytes_per_param(OptimizerKind k, DType weights, DType grads);
double optimizer_flops_per_param(OptimizerKind k);

// Duration in picoseconds. `launch_scale` multiplies the launch overhead (CPU contention).
std::int64_t phase_time_ps(const GpuParams& gpu, DType dtype, const PhaseWork& work, double speed,
                           double launch_scale = 1.0);

}  // namespace trainvp
