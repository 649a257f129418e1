#pragma once
// /training: iterations, warm-up, the optimizer step, the simulated-time limit and the gradient
// synchronization (sync.hpp).
#include <cstdint>

#include "models/workload/workload.hpp"
#include "platform/config/cluster.hpp"
#include "platform/config/sync.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// /training/fast_forward: steady-state fast-forward (docs/performance.md#steady-state-fast-forward).
struct FastForwardConfig {
  bool enabled = true;
  int repeats = 3;          // periods that must repeat before a skip
  double tolerance = 1e-5;  // of the period: how closely per-rank timings must repeat
  int margin = 2;           // periods simulated before each scheduled change and before the end
  int max_period = 16;      // longest period searched, iterations
  int min_skip = 20;        // fewest iterations worth a skip
};
const ParamSet<FastForwardConfig>& fast_forward_schema();

struct TrainingConfig {
  int iterations = 10;
  int warmup = 1;
  SyncConfig sync;
  std::int64_t time_limit_ps = 0;
  bool functional = false;  // workload.functional: gradients' values travel and are checked (docs/cxl.md)
  FastForwardConfig fast_forward;
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
