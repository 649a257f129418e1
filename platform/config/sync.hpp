#pragma once
// /training/sync: the gradient synchronization strategy, its all-reduce algorithm and streams, and
// the nested parts the layer-wise and partial strategies add (compression, class_streams,
// profile), with the rules across sync keys.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/program.hpp"
#include "models/collectives/strategies/compression.hpp"
#include "models/workload/workload.hpp"
#include "platform/config/cluster.hpp"
#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

enum class SyncStrategyKind {
  None,
  Ddp,
  DdpNoOverlap,
  Layerwise,
  Blockwise,
  Adaptive,
  AscWfbp,
  LocalSgd,
  Plsgd,
  DreamDdp,
  Elastic
};

// The names /training/sync/strategy takes, in the order `trainvp describe` lists them.
const NameTable<SyncStrategyKind>& sync_strategy_names();
const char* sync_strategy_name(SyncStrategyKind k);

// One entry of /training/sync/profile: a layer's measured backward and synchronization times.
struct ProfileEntry {
  std::string layer;
  std::int64_t bwd_ps = 0;
  std::int64_t comm_ps = 0;
};

// /training/sync/class_streams: the stream of each size class.
struct ClassStreams {
  int large = 0, medium = 0, small = 0;
};

// /training/sync/retry: the transport's give-up and the layer-granular retry (docs/faults.md#
// transport-failure). Off unless the object is given. Defaults are NCCL's: NCCL_IB_RETRY_CNT 7 and
// NCCL_IB_TIMEOUT 20 (4.096 us x 2^20 per transport timeout).
struct RetryConfig {
  bool enabled = false;
  int retry_cnt = 7;
  std::int64_t timeout_ps = 4'294'967'296'000;  // 4.096 us x 2^20
  std::int64_t backoff_ps = 1'000'000'000;      // 1 ms before a failed layer's relaunch
  int attempts = 4;                             // the first try and 3 retries (the seed's count)
  std::int64_t give_up_ps() const { return static_cast<std::int64_t>(retry_cnt) * timeout_ps; }
};

struct SyncConfig {
  SyncStrategyKind strategy = SyncStrategyKind::None;
  std::uint64_t bucket = 25ull << 20;
  std::uint64_t first_bucket = 1ull << 20;
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  int comm_streams = 1;
  // Layer-wise and partial synchronization (docs/strategies.md).
  int period = 5;                        // H of localsgd, plsgd, dreamddp
  int block = 2;                         // adjacent layers per unit (blockwise, adaptive)
  int pack = 10;                         // small units merged per all-reduce
  std::uint64_t large_bytes = 10000000;  // size classes of the multi-stream scheduler
  std::uint64_t small_bytes = 1000000;
  bool has_class_streams = false;
  ClassStreams class_streams;
  double util_high = 0.9, util_low = 0.7;  // adaptive
  bool fill_in = false;                    // dreamddp
  std::vector<ProfileEntry> profile;       // dreamddp: explicit profile; empty: measured
  CompressionConfig compression;
  // elastic: how long the optimizer step waits for a unit after it became ready; -1: no limit
  // (/training/sync/elastic/timeout "none").
  std::int64_t elastic_timeout_ps = 500'000'000'000;
  RetryConfig retry;
};

// /training/sync/elastic: the weak-network protocol's parameters.
struct ElasticConfig {
  std::int64_t timeout_ps = 500'000'000'000;
};

const ParamSet<SyncConfig>& sync_schema();
const ParamSet<CompressionConfig>& compression_schema();
const ParamSet<ClassStreams>& class_streams_schema();
const ParamSet<ProfileEntry>& profile_schema();
const ParamSet<ElasticConfig>& elastic_schema();
const ParamSet<RetryConfig>& retry_schema();

// Whether the algorithm reduces in the nodes' CXL devices (cxl_allreduce, cxl_hierarchical).
bool cxl_algo_of(CollectiveAlgo a);

// Reads /training/sync (`value`, null when absent) into `sync`: its keys, compression,
// class_streams and profile, the rules that involve several keys or the workload `w`, and what
// the cxl algorithms need of the cluster `c`. Returns the resolved object; throws ScenarioError
// naming the pointer of the first problem.
json load_sync(SyncConfig& sync, const json& value, const Workload& w, const ClusterConfig& c);

}  // namespace trainvp
