#pragma once
// The unit of work a GPU executes. An iteration is a schedule of phases; data parallelism uses
// forward layer by layer, backward in reverse with dX and dW halves, then the optimizer step.
// Pipeline parallelism (1F1B) and tensor parallelism will add phases and schedules, not change
// the GPU, which only walks a schedule and asks a gate before each phase.
#include <cstdint>
#include <string>
#include <vector>

namespace trainvp {

enum class PhaseKind { Forward, BackwardInput, BackwardWeight, Optimizer };

struct Phase {
  PhaseKind kind;
  int layer = -1;       // -1 for phases that span the model (optimizer)
  int micro_batch = 0;
};

const char* phase_label(PhaseKind k);  // "fwd", "bwd_in", "bwd_w", "optimizer"

// One micro-batch's phases repeated `micro_batches` times, then a tail run once (the optimizer
// step). It is held as that pattern, not expanded: its memory is O(layers) whatever the
// micro-batch count, so a GPU (and `validate`, which elaborates GPUs) allocates nothing per
// micro-batch. A slot is a distinct phase of the pattern (body slots, then tail slots): what
// per-phase caches (nominal times, trace names) are indexed by.
class PhaseSchedule {
 public:
  PhaseSchedule() = default;
  PhaseSchedule(std::vector<Phase> body, int micro_batches, std::vector<Phase> tail);
  std::uint64_t size() const { return body_.size() * static_cast<std::uint64_t>(micro_batches_) + tail_.size(); }
  bool empty() const { return size() == 0; }
  Phase at(std::uint64_t i) const;        // the i-th phase of the iteration, its micro-batch set
  std::size_t slot(std::uint64_t i) const;  // the pattern slot of the i-th phase
  std::size_t slots() const { return body_.size() + tail_.size(); }
  const Phase& slot_phase(std::size_t s) const;  // micro_batch as in the pattern (body: 0)
  int repeats(std::size_t s) const { return s < body_.size() ? micro_batches_ : 1; }

 private:
  std::vector<Phase> body_, tail_;
  int micro_batches_ = 0;
};

// Forward 0..L-1, then backward L-1..0 (dX then dW per layer), repeated per micro-batch, then
// one optimizer step (unless has_optimizer is false). A layer's dX phase is left out when
// has_input_grad[l] is false: the first layer's input is data, and if the layer has no internal
// backward work either (an embedding lookup), there is nothing to run.
PhaseSchedule data_parallel_schedule(const std::vector<bool>& has_input_grad, int micro_batches, bool has_optimizer);

struct Workload;
PhaseSchedule data_parallel_schedule(const Workload& w);

}  // namespace trainvp
