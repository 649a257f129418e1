#pragma once
// /jobs/N/checkpoint: a neighbour whose traffic is storage, not training (docs/jobs.md#checkpoint-jobs).
// Every `period` each node the job holds writes `bytes` to a storage node, split evenly over its
// GPUs, each GPU's share going to the GPU of the same local index on the storage node (the NIC of
// the same rail), through the fabric's own queues. A neighbour's checkpoints are the bursty,
// minutes-long cross traffic GREYHOUND blames for most fail-slows on shared RoCE fabrics.
#include <cstdint>
#include <vector>

#include "platform/core/params.hpp"

namespace trainvp {

struct CheckpointParams {
  std::uint64_t bytes = 0;     // written per burst by each writer node ("25GiB")
  std::int64_t period_ps = 0;  // from one burst's start to the next ("30s"); a late burst delays the next
  int bursts = 0;              // how many; 0: one per period while any training job still runs
  std::vector<int> storage;    // the storage nodes (the job holds them too), writers assigned round-robin
};

const ParamSet<CheckpointParams>& checkpoint_schema();

}  // namespace trainvp
