#pragma once
// PyTorch DistributedDataParallel: gradients packed into buckets in reverse layer order (the
// first bucket capped at `first_bucket`, the others at `bucket`); a bucket's all-reduce starts on
// a rank when all its gradients are ready there, overlapping the rest of the backward; the
// optimizer step waits for every bucket. `ddp_no_overlap` is one all-reduce after the backward.
// With several comm streams, bucket b runs on stream b mod streams, in order per stream.
#include <cstdint>
#include <string>
#include <vector>

#include "platform/core/per_iteration.hpp"

#include <systemc>

#include "models/collectives/engine.hpp"
#include "models/collectives/group_ranks.hpp"
#include "models/collectives/stream_queues.hpp"
#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/workload/workload.hpp"

namespace trainvp {

struct DdpConfig {
  std::uint64_t bucket = 25ull << 20;
  std::uint64_t first_bucket = 1ull << 20;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  int comm_streams = 1;
  bool overlap = true;  // false: ddp_no_overlap
  // AllReduce; ReduceScatter under ZeRO (each rank keeps the shard its optimizer updates).
  CollectiveOp op = CollectiveOp::AllReduce;
};

struct Bucket {
  std::vector<int> layers;  // in the order their gradients become ready
  std::uint64_t bytes = 0;
};

// Buckets in the order they fill (reverse layer order); layers without parameters get none.
std::vector<Bucket> make_buckets(const Workload& w, std::uint64_t first_cap, std::uint64_t cap);

class DdpSync : public sc_core::sc_module, public SyncStrategy {
 public:
  DdpSync(sc_core::sc_module_name name, const DdpConfig& cfg, const Workload& w, std::vector<Gpu*> gpus,
          CollectiveEngine& engine, std::vector<int> nodes_of, int iterations, RunContext& ctx);

  const char* name() const override { return cfg_.overlap ? "ddp" : "ddp_no_overlap"; }
  bool may_start(int rank, int iteration, const Phase& phase) const override;
  const sc_core::sc_event& changed(int rank) const override { return *changed_[at(rank)]; }
  std::string waiting_for(int rank, int iteration, const Phase& phase) const override;
  std::int64_t comm_ps(int rank, int iteration) const override;
  void report(nlohmann::ordered_json& results) const override;  // the buckets
  std::uint64_t peak_in_flight_bytes(int rank) const override { return peak_in_flight_[at(rank)]; }
  void skip_iterations(int first, int count, int period, std::int64_t period_ps) override;
  const std::vector<Bucket>& buckets() const { return buckets_; }

 private:
  void on_gradient(const GradientReady& g);
  void bucket_ready(int rank, int iteration, int b);
  void try_join(int rank, int stream);
  void rank_finished(int rank, int iteration, int b);
  int collective(int iteration, int b);

  DdpConfig cfg_;
  std::vector<Bucket> buckets_;
  std::vector<int> bucket_of_layer_;
  std::vector<std::uint64_t> layer_bytes_;  // gradient bytes per layer, for functional layouts
  std::vector<Gpu*> gpus_;
  GroupRanks group_;  // the communicator; per-rank state below is indexed by position in it
  std::size_t at(int rank) const { return group_.at(rank); }
  CollectiveEngine& engine_;
  std::vector<int> nodes_of_;
  std::vector<std::shared_ptr<const CompiledProgram>> programs_;  // per bucket, reused every iteration
  // Per rank: layers still to come per bucket (current iteration), buckets done per iteration.
  std::vector<std::vector<int>> pending_layers_;
  std::vector<PerIteration<int>> done_;                        // [rank][iteration]
  std::vector<PerIteration<std::vector<TimeInterval>>> busy_;  // [rank][iteration]
  StreamQueues streams_;  // per rank and stream: buckets ready but not yet joined, in order; when each joined
  PerIteration<std::vector<int>> ids_;  // [iteration][bucket] -> collective id, -1 before launch
  std::vector<std::unique_ptr<sc_core::sc_event>> changed_;
  std::vector<std::uint64_t> in_flight_, peak_in_flight_;  // [rank]: bytes of buckets ready, not done
  RunContext& ctx_;
  std::vector<int> tracks_;  // per rank: its collective stream in the trace
};

}  // namespace trainvp
