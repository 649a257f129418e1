#pragma once
// /training: iterations, warm-up, the optimizer step, the simulated-time limit and the gradient
// synchronization (sync.hpp).
#include <cstdint>

#include "models/workload/workload.hpp"
#include "platform/config/cluster.hpp"
#include "platform/config/sync.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct TrainingConfig {
  int iterations = 10;
  int warmup = 1;
  SyncConfig sync;
  std::int64_t time_limit_ps = 0;
  bool functional = false;  // workload.functional: gradients' values travel and are checked (docs/cxl.md)
};

// The keys of /training as given.
struct TrainingRaw {
  int iterations = 10, warmup = 1;
  OptimizerKind optimizer = OptimizerKind::Adam;
  std::int64_t time_limit = 0;
};
const ParamSet<TrainingRaw>& training_schema();

// Reads /training (`value`, null when absent) into `t`, and its optimizer into `w` (the workload it
// trains, whose layers the sync profile names). Returns the resolved object; throws ScenarioError
// naming the pointer of the first problem.
json load_training(TrainingConfig& t, Workload& w, const json& value, const ClusterConfig& c);

}  // namespace trainvp
