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

// Forward 0..L-1, then backward L-1..0 (dX then dW per layer), repeated per micro-batch, then
// one optimizer step (unless has_optimizer is false). A layer's dX phase is left out when
// has_input_grad[l] is false: the first layer's input is data, and if the layer has no internal
// backward work either (an embedding lookup), there is nothing to run.
std::vector<Phase> data_parallel_schedule(const std::vector<bool>& has_input_grad, int micro_batches,
                                          bool has_optimizer);

struct Workload;
std::vector<Phase> data_parallel_schedule(const Workload& w);

}  // namespace trainvp
