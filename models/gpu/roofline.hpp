#pragma once
// Phase durations, divided by the GPU's speed factor: a measured layer time as it is; the sum of
// the phase's kernels by the kernel model (kernel_time.hpp) when they have shapes and the GPU the
// model; else the roofline, max(FLOPs / effective compute, bytes / effective memory bandwidth) +
// kernels x launch overhead.
#include <cstdint>
#include <vector>

#include "models/gpu/gpu_params.hpp"
#include "models/gpu/phase.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct PhaseWork {
  double flops = 0;
  double bytes = 0;
  int kernels = 0;
  std::int64_t measured_ps = -1;  // >= 0: a measured time replaces the roofline
  // The phase's kernels with their shapes (the layer's, which outlives this), timed one by one by
  // the kernel model when the GPU has it; null or empty: the roofline.
  const std::vector<Kernel>* kernel_list = nullptr;
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
