#pragma once
// ZeRO-1/2's parameter all-gather (docs/parallelism.md): after each optimizer step a DP group
// all-gathers the parameters its ranks updated (1/d each) before the next iteration needs them.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/collectives/engine.hpp"
#include "models/parallel/layout.hpp"
#include "models/parallel/program_cache.hpp"
#include "models/parallel/parallel_traffic_sink.hpp"
#include "models/workload/workload.hpp"
#include "models/parallel/traffic_key.hpp"

namespace trainvp {

// One DP group's parameter all-gather: the group by its (pp, tp) coordinates, and the iteration
// whose step it follows.
struct ZeroGatherKey {
  int pp = 0, tp = 0, iteration = 0;
  bool operator==(const ZeroGatherKey& o) const { return pp == o.pp && tp == o.tp && iteration == o.iteration; }
};
struct ZeroGatherKeyHash {
  std::size_t operator()(const ZeroGatherKey& k) const {
    return key_hash(key_word(k.pp, k.tp), static_cast<std::uint32_t>(k.iteration));
  }
};

class ZeroGathers {
 public:
  // `stages`: each pipeline stage's workload (TP-sharded), whose parameters a gather moves.
  ZeroGathers(const ParallelLayout& layout, CollectiveEngine& engine, ProgramCache& programs, ParallelTrafficSink& sink,
              std::vector<const Workload*> stages, std::size_t ranks);

  // The rank joins its group's gather after the step of `iteration`.
  void gather(int rank, int iteration);
  // Whether the gather after the step of `iteration` - 1 completed on the rank.
  bool gathered_before(int rank, int iteration) const {
    return gathered_[static_cast<std::size_t>(rank)] >= iteration - 1;
  }

 private:
  const ParallelLayout& layout_;
  CollectiveEngine& engine_;
  ProgramCache& programs_;
  ParallelTrafficSink& sink_;
  std::vector<const Workload*> stages_;
  std::vector<int> gathered_;  // per rank: the last iteration whose gather completed on it
  std::unordered_map<ZeroGatherKey, std::pair<int, int>, ZeroGatherKeyHash> live_;  // -> (collective id, joins left)
};

}  // namespace trainvp
