#include "models/gpu/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "models/gpu/kernel_time.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

double optimizer_bytes_per_param(OptimizerKind k, DType weights, DType grads) {
  // FP32 master weights and states are read and written; the gradient is read; with a
  // low-precision compute dtype the step also writes the low-precision weight copy.
  double copy = dtype_bytes(weights) < 4 ? dtype_bytes(weights) : 0;
  switch (k) {
    case OptimizerKind::Adam: return 2 * 12 + dtype_bytes(grads) + copy;  // w, m, v in and out
    case OptimizerKind::Sgd: return 2 * 8 + dtype_bytes(grads) + copy;    // w, momentum in and out
    case OptimizerKind::None: return 0;
  }
  return 0;
}

double optimizer_flops_per_param(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::Adam: return 12;  // moments, bias correction, sqrt, divide, update
    case OptimizerKind::Sgd: return 4;
    case OptimizerKind::None: return 0;
  }
  return 0;
}

PhaseWork phase_work(const Workload& w, const Phase& ph) {
  PhaseWork r;
  if (ph.kind == PhaseKind::Optimizer) {
    if (w.optimizer == OptimizerKind::None) return r;  // the step boundary alone: no work
    if (w.optimizer_time_ps >= 0) {
      r.measured_ps = w.optimizer_time_ps / w.optimizer_shards;
      return r;
    }
    double p = static_cast<double>(w.total_params()) / w.optimizer_shards;
    r.flops = p * optimizer_flops_per_param(w.optimizer);
    r.bytes = p * optimizer_bytes_per_param(w.optimizer, w.shape.dtype, w.shape.grad_dtype);
    r.kernels = static_cast<int>(w.layers.size());  // one multi-tensor kernel per layer's tensors
    return r;
  }
  const Layer& l = w.layers[static_cast<std::size_t>(ph.layer)];
  switch (ph.kind) {
    case PhaseKind::Forward: r = {l.fwd_flops, l.fwd_bytes, l.fwd_kernels, l.fwd_time_ps, &l.kernels.fwd}; break;
    case PhaseKind::BackwardInput:
      r = {l.bwd_input_flops, l.bwd_input_bytes, l.bwd_input_kernels, l.bwd_input_time_ps, &l.kernels.bwd_input};
      break;
    case PhaseKind::BackwardWeight:
      r = {l.bwd_weight_flops, l.bwd_weight_bytes, l.bwd_weight_kernels, l.bwd_weight_time_ps, &l.kernels.bwd_weight};
      break;
    default: break;
  }
  return r;
}

std::int64_t phase_time_ps(const GpuParams& gpu, DType dtype, const PhaseWork& work, double speed,
                           double launch_scale) {
  double seconds;
  if (work.measured_ps >= 0) {
    seconds = static_cast<double>(work.measured_ps) * 1e-12;
  } else if (work.kernel_list && !work.kernel_list->empty() && gpu.times_kernels()) {
    // Launches are asynchronous, so the CPU's cost hides behind the kernels; CPU contention
    // (launch_scale) stretches the gaps between them.
    seconds = 0;
    for (const Kernel& k : *work.kernel_list)
      seconds += kernel_seconds(gpu, dtype, k) + (launch_scale - 1.0) * static_cast<double>(gpu.kernel_tail_ps) * 1e-12;
  } else {
    double rate = gpu.compute_rate(dtype);
    // Validation rejects a dtype the GPU cannot compute in, so rate > 0 whenever flops > 0.
    double compute = work.flops > 0 && rate > 0 ? work.flops / rate : 0.0;
    double memory = work.bytes > 0 ? work.bytes / gpu.mem_bytes_per_s() : 0.0;
    seconds =
        std::max(compute, memory) + work.kernels * launch_scale * static_cast<double>(gpu.kernel_launch_ps) * 1e-12;
  }
  return round_ps(seconds / speed * 1e12);
}

}  // namespace trainvp
