#pragma once
// The unit of work a GPU executes. An iteration is a schedule of phases; data parallelism uses
// forward layer by layer, backward in reverse with dX and dW halves, then the optimizer step.
// Pipeline parallelism (1F1B) and tensor parallelism will add phases and schedules, not change
// the GPU, which only walks a schedule and asks a gate before each phase.
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

// Forward 0..L-1, then backward L-1..0 (dX then dW per layer; no dX for layer 0, whose input is
// data), repeated per micro-batch, then one optimizer step (unless has_optimizer is false).
std::vector<Phase> data_parallel_schedule(int layers, int micro_batches, bool has_optimizer);

}  // namespace trainvp
