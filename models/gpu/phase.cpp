#include "models/gpu/phase.hpp"

#include <algorithm>

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

PhaseSchedule::PhaseSchedule(std::vector<ScheduleBlock> blocks, const BlockPatterns& patterns, std::vector<Phase> tail)
    : tail_(std::move(tail)) {
  auto b = std::make_shared<Blocks>();
  const std::size_t chunks = patterns.forward.size();
  for (std::size_t c = 0; c < chunks; ++c) {
    b->slot0.push_back(body_.size());
    body_.insert(body_.end(), patterns.forward[c].begin(), patterns.forward[c].end());
    b->slot0.push_back(body_.size());
    body_.insert(body_.end(), patterns.backward[c].begin(), patterns.backward[c].end());
  }
  b->repeats.assign(body_.size(), 0);
  std::uint64_t at = 0;
  for (const ScheduleBlock& blk : blocks) {
    b->start.push_back(at);
    const auto& pat = blk.backward ? patterns.backward[static_cast<std::size_t>(blk.chunk)]
                                   : patterns.forward[static_cast<std::size_t>(blk.chunk)];
    const std::size_t s0 = b->slot0[2 * static_cast<std::size_t>(blk.chunk) + (blk.backward ? 1 : 0)];
    for (std::size_t k = 0; k < pat.size(); ++k) ++b->repeats[s0 + k];
    at += pat.size();
  }
  b->start.push_back(at);
  b->list = std::move(blocks);
  blocks_ = std::move(b);
}

int PhaseSchedule::repeats(std::size_t s) const {
  if (s >= body_.size()) return 1;
  return blocks_ ? blocks_->repeats[s] : micro_batches_;
}

Phase PhaseSchedule::at(std::uint64_t i) const {
  if (blocks_) {
    const std::uint64_t total = blocks_->start.back();
    if (i >= total) return tail_[static_cast<std::size_t>(i - total)];
    const std::size_t s = slot(i);
    Phase p = body_[s];
    const auto it = std::upper_bound(blocks_->start.begin(), blocks_->start.end() - 1, i);
    p.micro_batch = blocks_->list[static_cast<std::size_t>(it - blocks_->start.begin()) - 1].micro_batch;
    return p;
  }
  const std::uint64_t n = body_.size();
  if (n > 0 && i < n * static_cast<std::uint64_t>(micro_batches_)) {
    Phase p = body_[static_cast<std::size_t>(i % n)];
    p.micro_batch = static_cast<int>(i / n);
    return p;
  }
  return tail_[static_cast<std::size_t>(i - n * static_cast<std::uint64_t>(micro_batches_))];
}

std::size_t PhaseSchedule::slot(std::uint64_t i) const {
  if (blocks_) {
    const std::uint64_t total = blocks_->start.back();
    if (i >= total) return body_.size() + static_cast<std::size_t>(i - total);
    const auto it = std::upper_bound(blocks_->start.begin(), blocks_->start.end() - 1, i);
    const std::size_t b = static_cast<std::size_t>(it - blocks_->start.begin()) - 1;
    const ScheduleBlock& blk = blocks_->list[b];
    return blocks_->slot0[2 * static_cast<std::size_t>(blk.chunk) + (blk.backward ? 1 : 0)] +
           static_cast<std::size_t>(i - blocks_->start[b]);
  }
  const std::uint64_t n = body_.size(), in_body = n * static_cast<std::uint64_t>(micro_batches_);
  return static_cast<std::size_t>(i < in_body ? i % n : n + (i - in_body));
}

const Phase& PhaseSchedule::slot_phase(std::size_t s) const {
  return s < body_.size() ? body_[s] : tail_[s - body_.size()];
}

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

bool has_input_grad_phase(const Layer& l) {
  return l.bwd_input_time_ps >= 0 ? l.bwd_input_time_ps > 0
                                  : l.bwd_input_flops > 0 || l.bwd_input_bytes > 0 || l.bwd_input_kernels > 0;
}

BlockPatterns chunk_patterns(const Workload& w, const std::vector<int>& chunk_of, int chunks) {
  BlockPatterns p;
  p.forward.resize(static_cast<std::size_t>(chunks));
  p.backward.resize(static_cast<std::size_t>(chunks));
  const int layers = static_cast<int>(w.layers.size());
  for (int l = 0; l < layers; ++l)
    p.forward[static_cast<std::size_t>(chunk_of[static_cast<std::size_t>(l)])].push_back({PhaseKind::Forward, l, 0});
  for (int l = layers - 1; l >= 0; --l) {
    auto& b = p.backward[static_cast<std::size_t>(chunk_of[static_cast<std::size_t>(l)])];
    if (has_input_grad_phase(w.layers[static_cast<std::size_t>(l)])) b.push_back({PhaseKind::BackwardInput, l, 0});
    b.push_back({PhaseKind::BackwardWeight, l, 0});
  }
  return p;
}

PhaseSchedule data_parallel_schedule(const Workload& w) {
  std::vector<bool> dx;
  for (const Layer& l : w.layers) dx.push_back(has_input_grad_phase(l));
  // The step phase stays even without an optimizer (it then does no work): it is where the
  // iteration waits for its gradients' synchronization.
  return data_parallel_schedule(dx, w.micro_batches, true);
}

}  // namespace trainvp
