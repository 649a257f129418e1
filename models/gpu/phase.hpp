#pragma once
// The unit of work a GPU executes. An iteration is a schedule of phases; data parallelism uses
// forward layer by layer, backward in reverse with dX and dW halves, then the optimizer step.
// Pipeline parallelism (1F1B) and tensor parallelism will add phases and schedules, not change
// the GPU, which only walks a schedule and asks a gate before each phase.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trainvp {

enum class PhaseKind { Forward, BackwardInput, BackwardWeight, Optimizer };

struct Phase {
  PhaseKind kind;
  int layer = -1;  // -1 for phases that span the model (optimizer)
  int micro_batch = 0;
};

const char* phase_label(PhaseKind k);  // "fwd", "bwd_in", "bwd_w", "optimizer"

// One micro-batch's phases repeated `micro_batches` times, then a tail run once (the optimizer
// step). It is held as that pattern, not expanded: its memory is O(layers) whatever the
// micro-batch count, so a GPU (and `validate`, which elaborates GPUs) allocates nothing per
// micro-batch. A slot is a distinct phase of the pattern (body slots, then tail slots): what
// per-phase caches (nominal times, trace names) are indexed by.
//
// A pipeline schedule (1F1B and the like) is held as blocks instead: each block is one
// micro-batch's forward or backward through one of the GPU's model chunks, whose phases are the
// chunk's pattern. The block list is O(micro-batches x chunks) and shared by every GPU of a
// pipeline stage; slots are the chunks' forward and backward patterns, then the tail.
struct ScheduleBlock {
  bool backward = false;
  int chunk = 0;  // the GPU's virtual chunk (0 .. v-1)
  int micro_batch = 0;
};
struct BlockPatterns {
  std::vector<std::vector<Phase>> forward, backward;  // per chunk
};

class PhaseSchedule {
 public:
  PhaseSchedule() = default;
  PhaseSchedule(std::vector<Phase> body, int micro_batches, std::vector<Phase> tail);
  // Block mode. Copies share the blocks: build one per pipeline stage and copy it to its GPUs.
  PhaseSchedule(std::vector<ScheduleBlock> blocks, const BlockPatterns& patterns, std::vector<Phase> tail);
  std::uint64_t size() const {
    return (blocks_ ? blocks_->start.back() : body_.size() * static_cast<std::uint64_t>(micro_batches_)) + tail_.size();
  }
  bool empty() const { return size() == 0; }
  Phase at(std::uint64_t i) const;          // the i-th phase of the iteration, its micro-batch set
  std::size_t slot(std::uint64_t i) const;  // the pattern slot of the i-th phase
  std::size_t slots() const { return body_.size() + tail_.size(); }
  const Phase& slot_phase(std::size_t s) const;  // micro_batch as in the pattern (body: 0)
  int repeats(std::size_t s) const;
  // Block mode: the blocks, and the schedule index of block b's first phase (null otherwise).
  const std::vector<ScheduleBlock>* blocks() const { return blocks_ ? &blocks_->list : nullptr; }
  std::uint64_t block_start(std::size_t b) const { return blocks_->start[b]; }

 private:
  struct Blocks {
    std::vector<ScheduleBlock> list;
    std::vector<std::uint64_t> start;  // per block, then the total
    std::vector<std::size_t> slot0;    // per chunk x direction: its pattern's first slot
    std::vector<int> repeats;          // per body slot: how many blocks use it
  };
  std::vector<Phase> body_, tail_;  // block mode: body_ holds the chunks' patterns back to back
  int micro_batches_ = 0;
  std::shared_ptr<const Blocks> blocks_;
};

// Forward 0..L-1, then backward L-1..0 (dX then dW per layer), repeated per micro-batch, then
// one optimizer step (unless has_optimizer is false). A layer's dX phase is left out when
// has_input_grad[l] is false: the first layer's input is data, and if the layer has no internal
// backward work either (an embedding lookup), there is nothing to run.
PhaseSchedule data_parallel_schedule(const std::vector<bool>& has_input_grad, int micro_batches, bool has_optimizer);

struct Workload;
struct Layer;
PhaseSchedule data_parallel_schedule(const Workload& w);
// Whether a layer's backward has a dX phase (data_parallel_schedule's rule).
bool has_input_grad_phase(const Layer& l);
// The forward and backward patterns of each chunk: chunk_of[l] is layer l's chunk; forward in
// layer order, backward in reverse with dX then dW, as data_parallel_schedule.
BlockPatterns chunk_patterns(const Workload& w, const std::vector<int>& chunk_of, int chunks);

}  // namespace trainvp
