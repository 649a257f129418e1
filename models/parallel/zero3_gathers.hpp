#pragma once
// ZeRO-3's layer parameter all-gathers (docs/parallelism.md#zero-3-layer-wise): each layer's
// parameters gathered before its forward and again before its backward, per micro-batch,
// prefetched `zero3_prefetch` phases ahead; a phase waits for its own layer's gather.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/gpu/gpu.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/program_cache.hpp"
#include "models/parallel/running_union.hpp"
#include "models/parallel/parallel_traffic_sink.hpp"
#include "models/parallel/traffic_key.hpp"

namespace trainvp {

// One layer's gather on one GPU: (iteration, micro-batch, layer, before the forward or backward).
struct Zero3Gather {
  int iteration = 0, micro_batch = 0, layer = 0;
  bool backward = false;
  bool operator==(const Zero3Gather& o) const {
    return iteration == o.iteration && micro_batch == o.micro_batch && layer == o.layer && backward == o.backward;
  }
};
struct Zero3GatherHash {
  std::size_t operator()(const Zero3Gather& k) const {
    return key_hash(key_word(k.iteration, k.micro_batch), key_word(k.layer, k.backward));
  }
};
// The collective a DP group's ranks join for one gather: the group by its (pp, tp) coordinates.
struct Zero3Collective {
  int pp = 0, tp = 0;
  Zero3Gather gather;
  bool operator==(const Zero3Collective& o) const { return pp == o.pp && tp == o.tp && gather == o.gather; }
};
struct Zero3CollectiveHash {
  std::size_t operator()(const Zero3Collective& k) const {
    const Zero3Gather& g = k.gather;
    return key_hash(key_word(g.iteration, g.micro_batch), key_word(g.layer, g.backward), key_word(k.pp, k.tp));
  }
};

class Zero3Gathers {
 public:
  // `members`: by global rank, the GPUs in a DP group (null for the others); `prefetch`: how many
  // phases ahead their gathers start.
  Zero3Gathers(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs,
               ParallelTrafficSink& sink, std::vector<const Gpu*> members, int prefetch);

  void start();  // the first iteration's first gathers, at time 0
  // Whether the rank's next phase (of `iteration`) waits for its layer's gather.
  bool waiting(int rank, int iteration) const {
    const RankState& st = state_[static_cast<std::size_t>(rank)];
    const std::optional<Zero3Gather> need = need_of(rank, iteration, st.phase_index);
    return need && !st.done.count(*need);
  }
  // What the rank's next phase waits for, for people (a GPU's stall report): the gather of its
  // layer's parameters, for the forward or the backward of a micro-batch.
  std::string waited(int rank, int iteration) const;
  // The rank's phase ended: its gathered copy is freed and the next phases' gathers start.
  void phase_ended(int rank, int iteration);

 private:
  struct RankState {
    std::uint64_t phase_index = 0;  // in the iteration's schedule, of the phase to run next
    std::unordered_set<Zero3Gather, Zero3GatherHash> joined, done;
    RunningUnion in_flight = RunningUnion(256);  // the gathers' [join, done] intervals
  };

  // The gather phase `index` of `iteration` needs (none: a phase without parameters).
  std::optional<Zero3Gather> need_of(int rank, int iteration, std::uint64_t index) const;
  void join(int rank, int iteration, std::uint64_t index);

  const ParallelLayout& layout_;
  CollectiveEngine& engine_;
  ProgramCache& programs_;
  ParallelTrafficSink& sink_;
  std::vector<const Gpu*> members_;
  int prefetch_;
  std::vector<RankState> state_;
  std::unordered_map<Zero3Collective, std::pair<int, int>, Zero3CollectiveHash>
      live_;  // -> (collective id, joins left)
};

}  // namespace trainvp
