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

PhaseSchedule::PhaseSchedule(std::vector<Phase> body, int micro_batches, std::vector<Phase> tail)
    : body_(std::move(body)), tail_(std::move(tail)), micro_batches_(micro_batches) {}

Phase PhaseSchedule::at(std::uint64_t i) const {
  const std::uint64_t n = body_.size();
  if (n > 0 && i < n * static_cast<std::uint64_t>(micro_batches_)) {
    Phase p = body_[static_cast<std::size_t>(i % n)];
    p.micro_batch = static_cast<int>(i / n);
    return p;
  }
  return tail_[static_cast<std::size_t>(i - n * static_cast<std::uint64_t>(micro_batches_))];
}

std::size_t PhaseSchedule::slot(std::uint64_t i) const {
  const std::uint64_t n = body_.size(), in_body = n * static_cast<std::uint64_t>(micro_batches_);
  return static_cast<std::size_t>(i < in_body ? i % n : n + (i - in_body));
}

const Phase& PhaseSchedule::slot_phase(std::size_t s) const { return s < body_.size() ? body_[s] : tail_[s - body_.size()]; }

PhaseSchedule data_parallel_schedule(const std::vector<bool>& has_input_grad, int micro_batches, bool has_optimizer) {
  const int layers = static_cast<int>(has_input_grad.size());
  std::vector<Phase> body, tail;
  for (int l = 0; l < layers; ++l) body.push_back({PhaseKind::Forward, l, 0});
  for (int l = layers - 1; l >= 0; --l) {
    if (has_input_grad[static_cast<std::size_t>(l)]) body.push_back({PhaseKind::BackwardInput, l, 0});
    body.push_back({PhaseKind::BackwardWeight, l, 0});
  }
  if (has_optimizer) tail.push_back({PhaseKind::Optimizer, -1, micro_batches - 1});
  return PhaseSchedule(std::move(body), micro_batches, std::move(tail));
}

PhaseSchedule data_parallel_schedule(const Workload& w) {
  std::vector<bool> dx;
  for (const Layer& l : w.layers)
    dx.push_back(l.bwd_input_time_ps >= 0 ? l.bwd_input_time_ps > 0
                                          : l.bwd_input_flops > 0 || l.bwd_input_bytes > 0 || l.bwd_input_kernels > 0);
  // The step phase stays even without an optimizer (it then does no work): it is where the
  // iteration waits for its gradients' synchronization.
  return data_parallel_schedule(dx, w.micro_batches, true);
}

}  // namespace trainvp
