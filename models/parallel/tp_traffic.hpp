#pragma once
// Tensor parallelism's traffic (docs/parallelism.md): the TP group's all-reduce that a layer's
// forward ends with and the one of its backward's input gradient (reduce-scatter + all-gather with
// sequence parallelism), and the pipeline sends that wait for the TP collectives before them.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/gpu/phase.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/pipeline_traffic.hpp"
#include "models/parallel/program_cache.hpp"
#include "models/parallel/parallel_traffic_sink.hpp"
#include "models/workload/workload.hpp"
#include "models/parallel/traffic_key.hpp"

namespace trainvp {

// One TP collective: the TP group by its (pp, dp) coordinates, the layer pass and which part
// (0: forward, 2: backward; + 1: sequence parallelism's all-gather after the reduce-scatter).
struct TpCollective {
  int pp = 0, dp = 0, iteration = 0, micro_batch = 0, layer = 0, tag = 0;
  bool operator==(const TpCollective& o) const {
    return pp == o.pp && dp == o.dp && iteration == o.iteration && micro_batch == o.micro_batch && layer == o.layer &&
           tag == o.tag;
  }
};
struct TpCollectiveHash {
  std::size_t operator()(const TpCollective& k) const {
    return key_hash(key_word(k.pp, k.dp), key_word(k.iteration, k.micro_batch), key_word(k.layer, k.tag));
  }
};

class TpTraffic {
 public:
  // `stages`: each pipeline stage's workload (TP-sharded), whose layers say the bytes;
  // `algorithm`: the all-reduce's. Released sends go to `pipeline`.
  TpTraffic(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs, ParallelTrafficSink& sink,
            PipelineTraffic& pipeline, std::vector<const Workload*> stages, CollectiveAlgo algorithm,
            std::size_t ranks);

  // TP collectives the rank joined that have not completed on it.
  int pending(int rank) const { return state_[static_cast<std::size_t>(rank)].pending; }
  // The phase (a forward or a dX with TP bytes) ended: the rank joins its collective.
  void join(int rank, int iteration, const Phase& phase) { join(rank, iteration, phase, 0); }
  // The block's pipeline send, after the TP collectives the rank joined so far.
  void queue_send(int rank, int iteration, const ScheduleBlock& block);
  // Sends whose TP collectives are all done leave.
  void flush_sends(int rank) {
    if (!state_[static_cast<std::size_t>(rank)].sends.empty()) flush(rank);
  }

 private:
  struct QueuedSend {
    ScheduleBlock block;
    int iteration;
    std::uint64_t after;  // the TP collectives before it: numbers below this
  };
  struct OpenTp {
    std::uint64_t seq;
    int iteration, micro_batch, layer;  // layer kOrphan: a later join of the same pass took its name
    bool backward;
  };
  static constexpr int kOrphan = std::numeric_limits<int>::min();
  struct RankState {
    int pending = 0;
    std::int64_t joined = 0;  // when it last joined one
    std::vector<QueuedSend> sends;
    // The collectives it joined, numbered as joined (a reduce-scatter and its all-gather share one
    // number): those still open, in join order (so the first is the oldest), with what names them.
    // A block's sends wait for the collectives joined before them only, so with tp_comm_overlap
    // later blocks' collectives do not hold them. A vector: one or two are open at a time.
    std::uint64_t seq = 0;
    std::vector<OpenTp> open;
  };

  void join(int rank, int iteration, const Phase& phase, int part);
  void done(int rank, int iteration, const Phase& phase, int part);
  void flush(int rank);

  const ParallelLayout& layout_;
  CollectiveEngine& engine_;
  ProgramCache& programs_;
  ParallelTrafficSink& sink_;
  PipelineTraffic& pipeline_;
  std::vector<const Workload*> stages_;
  CollectiveAlgo algorithm_;
  std::vector<RankState> state_;
  std::unordered_map<TpCollective, std::pair<int, int>, TpCollectiveHash> live_;  // -> (collective id, joins left)
  // Each TP collective's program by (stage, layer, tag, dp), from programs_ on first use: a
  // launch then builds no group and searches no map (hundreds of thousands per iteration).
  std::vector<std::shared_ptr<const CompiledProgram>> program_of_;
  std::vector<std::size_t> stage_base_;  // per stage: 4 x the layers of the stages before it
};

}  // namespace trainvp
