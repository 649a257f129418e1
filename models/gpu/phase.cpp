#include "models/gpu/phase.hpp"

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

std::vector<Phase> data_parallel_schedule(int layers, int micro_batches, bool has_optimizer) {
  std::vector<Phase> s;
  s.reserve(static_cast<std::size_t>(micro_batches) * (3 * layers) + 1);
  for (int mb = 0; mb < micro_batches; ++mb) {
    for (int l = 0; l < layers; ++l) s.push_back({PhaseKind::Forward, l, mb});
    for (int l = layers - 1; l >= 0; --l) {
      if (l > 0) s.push_back({PhaseKind::BackwardInput, l, mb});
      s.push_back({PhaseKind::BackwardWeight, l, mb});
    }
  }
  if (has_optimizer) s.push_back({PhaseKind::Optimizer, -1, micro_batches - 1});
  return s;
}

}  // namespace trainvp
