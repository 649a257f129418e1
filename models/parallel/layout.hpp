#pragma once
// Where the parallel dimensions land: which GPU holds which (tp, pp, dp) coordinate, the groups
// each collective runs in, which layers each pipeline stage holds, and what one TP rank of a layer
// computes and stores.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/parallel/parallel_config.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

// A layout that cannot be: `field` is the key of training.parallel at fault ("tp", "rank_map/3",
// "stage_layers"), so the config layer can name the JSON pointer.
struct LayoutError : std::invalid_argument {
  LayoutError(std::string field, const std::string& message)
      : std::invalid_argument(message), field(std::move(field)) {}
  std::string field;
};

class ParallelLayout {
 public:
  // Checks tp x pp x dp == gpus and that the rank map (explicit or from `order`) is a bijection.
  ParallelLayout(const ParallelConfig& cfg, int gpus);
  const ParallelConfig& config() const { return cfg_; }
  int gpus() const { return gpus_; }
  ParallelCoord coord(int rank) const { return coord_[static_cast<std::size_t>(rank)]; }
  // The layout of a job on part of a cluster: its rank r is cluster rank `ranks[r]` (ascending).
  // Groups, coordinates and stage ranks then speak cluster ranks; coord() of a rank outside the
  // job is undefined.
  void place_on(const std::vector<int>& ranks);
  int rank(ParallelCoord c) const;
  std::vector<int> tp_group(int pp, int dp) const;  // global ranks ordered by tp coordinate
  std::vector<int> dp_group(int tp, int pp) const;  // ordered by dp coordinate
  std::vector<int> stage_ranks(int pp) const;       // every GPU of stage pp, by global rank

 private:
  ParallelConfig cfg_;
  int gpus_ = 0;
  std::vector<int> ranks_;            // the ranks it holds, ascending
  std::vector<ParallelCoord> coord_;  // per global rank
  std::vector<int> rank_;             // per (tp, pp, dp): tp + t * (pp + p * dp)
};

// Which layers each model chunk holds: chunk c = [first[c], first[c + 1]), in model order. Chunk
// c runs on pipeline stage c mod p as its virtual chunk c / p (Megatron's interleaved placement).
struct StagePartition {
  std::vector<int> first;  // chunks + 1 entries, first[0] = 0, last = layer count
  int chunks() const { return static_cast<int>(first.size()) - 1; }
  int begin(int c) const { return first[static_cast<std::size_t>(c)]; }
  int end(int c) const { return first[static_cast<std::size_t>(c) + 1]; }
};
// Contiguous chunks of at least one layer each, minimizing the slowest chunk's time (per-layer
// forward + backward time of one micro-batch); throws LayoutError("pp") when there are fewer
// layers than chunks.
StagePartition balanced_partition(const std::vector<double>& layer_time, int chunks);
// An explicit partition (`stage_layers`); throws LayoutError("stage_layers") unless it has
// `chunks` positive entries summing to `layers`.
StagePartition explicit_partition(const std::vector<int>& counts, int chunks, int layers);

// What one TP rank of `l` computes and stores: GEMMs, attention and vocabulary-parallel lookups
// and losses split by t; the work TP does not split (Layer's tp_replicated part: norms,
// residual adds) stays whole unless sequence parallelism splits it too. Parameters of weight
// matrices split by t, the rest (norm and bias vectors) stay whole; grad_bytes follows params.
Layer tp_shard(const Layer& l, int tp, bool sequence_parallel, DType grad_dtype);

// The layers one GPU of pipeline stage `stage` runs: its chunks stage, stage + p, ... in order,
// each layer TP-sharded, with micro_batches = m. `chunk_of` (if non-null) receives, per layer
// of the result, its chunk's virtual index (0 .. v-1).
Workload stage_workload(const Workload& full, const ParallelConfig& cfg, const StagePartition& part, int stage,
                        std::vector<int>* chunk_of = nullptr);

}  // namespace trainvp
