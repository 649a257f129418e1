#include "models/gpu/phase.hpp"

#include "models/workload/workload.hpp"

namespace trainvp {

const char* phase_label(PhaseKind k) {
  switch (k) {
    case PhaseKind::Forward: return "fwd";
    case PhaseKind::BackwardInput: return "bwd_in";
    case PhaseKind::BackwardWeight: return "bwd_w";
    case PhaseKind::Optimizer: return "optimizer";
  }
  return "?";
}

std::vector<Phase> data_parallel_schedule(const std::vector<bool>& has_input_grad, int micro_batches,
                                          bool has_optimizer) {
  const int layers = static_cast<int>(has_input_grad.size());
  std::vector<Phase> s;
  s.reserve(static_cast<std::size_t>(micro_batches) * (3 * has_input_grad.size()) + 1);
  for (int mb = 0; mb < micro_batches; ++mb) {
    for (int l = 0; l < layers; ++l) s.push_back({PhaseKind::Forward, l, mb});
    for (int l = layers - 1; l >= 0; --l) {
      if (has_input_grad[static_cast<std::size_t>(l)]) s.push_back({PhaseKind::BackwardInput, l, mb});
      s.push_back({PhaseKind::BackwardWeight, l, mb});
    }
  }
  if (has_optimizer) s.push_back({PhaseKind::Optimizer, -1, micro_batches - 1});
  return s;
}

std::vector<Phase> data_parallel_schedule(const Workload& w) {
  std::vector<bool> dx;
  for (const Layer& l : w.layers)
    dx.push_back(l.bwd_input_time_ps >= 0 ? l.bwd_input_time_ps > 0
                                          : l.bwd_input_flops > 0 || l.bwd_input_bytes > 0 || l.bwd_input_kernels > 0);
  // The step phase stays even without an optimizer (it then does no work): it is where the
  // iteration waits for its gradients' synchronization.
  return data_parallel_schedule(dx, w.micro_batches, true);
}

}  // namespace trainvp
