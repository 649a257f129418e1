#pragma once
// Pipeline parallelism's traffic (docs/parallelism.md): a chunk's output activations (forward) and
// input gradients (backward) sent point to point to the GPU with the same (tp, dp) that holds the
// neighbouring chunk, and the inputs each GPU has received and not yet used.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/gpu/phase.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/program_cache.hpp"
#include "models/parallel/parallel_traffic_sink.hpp"
#include "models/parallel/traffic_key.hpp"

namespace trainvp {

// One pipeline input a GPU waits for: an iteration's activations (forward) or input gradients
// (backward) of one micro-batch, into one of the receiving GPU's virtual chunks.
struct PipelineInput {
  int iteration = 0, chunk = 0, micro_batch = 0;
  bool backward = false;
  bool operator==(const PipelineInput& o) const {
    return iteration == o.iteration && chunk == o.chunk && micro_batch == o.micro_batch && backward == o.backward;
  }
};
struct PipelineInputHash {
  std::size_t operator()(const PipelineInput& k) const {
    return key_hash(key_word(k.iteration, k.micro_batch), key_word(k.chunk, k.backward));
  }
};

class PipelineTraffic {
 public:
  // `boundary_bytes`: what one TP rank sends per micro-batch and boundary; `ranks`: global ranks.
  PipelineTraffic(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
                  ParallelTrafficSink& sink, std::uint64_t boundary_bytes, std::size_t ranks);

  bool arrived(int rank, const PipelineInput& in) const {
    return state_[static_cast<std::size_t>(rank)].arrived.count(in) > 0;
  }
  void consumed(int rank, const PipelineInput& in) { state_[static_cast<std::size_t>(rank)].arrived.erase(in); }
  // The rank's sends not yet done on it (with overlap_p2p off its next phase waits for them).
  int sends_in_flight(int rank) const { return state_[static_cast<std::size_t>(rank)].sends_in_flight; }
  // The block's output (activations forward, input gradients backward) leaves for its neighbour.
  void send(int rank, int iteration, const ScheduleBlock& block);

 private:
  struct RankState {
    int sends_in_flight = 0;
    std::unordered_set<PipelineInput, PipelineInputHash> arrived;
  };

  const ParallelLayout& layout_;
  CollectiveEngine& engine_;
  ProgramCache& programs_;
  ParallelTrafficSink& sink_;
  std::uint64_t boundary_bytes_;
  int p_, v_;
  bool overlap_p2p_;
  std::vector<RankState> state_;
  // Each send's program by (rank, chunk, direction), from programs_ on first use: a send then
  // builds no communicator and searches no map (hundreds of thousands per iteration).
  std::vector<std::shared_ptr<const CompiledProgram>> program_of_;
};

}  // namespace trainvp
