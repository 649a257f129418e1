#pragma once
// Real training driven by the timed run (docs/strategies.md#time-to-accuracy): what each
// iteration synchronized is read from the strategy after the run (never re-derived), each real
// iteration ends at the simulated end of the same iteration, and the replicas (models/train)
// apply the strategy's semantics to real values. Fast-forwarded iterations are trained too: the
// strategy and the GPUs account them, so their plans and times are known.
#include <cstdint>
#include <vector>

#include "models/collectives/sync_strategy.hpp"
#include "models/gpu/gpu.hpp"
#include "models/train/replicas.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

// What the timed run did, per iteration, in the terms the replicas take.
struct TrainSchedule {
  SyncValues mode = SyncValues::None;
  std::vector<std::uint64_t> layer_params;  // per modelled layer (forward order): its slice's weight
  TrainCompression compression;             // slice_compressed per modelled layer
  std::vector<std::vector<int>> synced;     // per iteration: the modelled layers synchronized
  std::vector<double> end_s;                // per iteration: its simulated end (the last rank's)
  std::vector<WeakSync> weak;               // elastic: each rank's weak-sync units and their merges
};

// Reads the schedule off a finished run: `strategy` (null: nothing synchronized) and the GPUs' records.
TrainSchedule schedule_of_run(const Scenario& s, const SyncStrategy* strategy, const std::vector<const Gpu*>& gpus);

struct TrainEvaluation {
  int iteration = 0;
  double time_s = 0;      // simulated end of the iteration
  double train_loss = 0;  // mean over the ranks' batches of that iteration
  double loss = 0;        // test loss of the ranks' mean model after the iteration
  double accuracy = 0;    // its test accuracy
};

struct TrainRun {
  std::uint64_t parameters = 0;
  int ranks = 0;
  std::vector<double> train_loss;  // per iteration
  std::vector<double> time_s;      // per iteration: its simulated end
  std::vector<TrainEvaluation> evaluations;
  int target_iteration = -1;  // first evaluation at or above the target (-1: none)
  double time_to_target_s = -1;
  std::vector<int> slice_syncs;             // per modelled layer: synchronizations of its slice
  std::vector<std::uint64_t> slice_values;  // per modelled layer: the real values of its slice
  double wall_s = 0;
};

// Trains p on `ranks` replicas through the schedule's iterations.
TrainRun run_training(const TrainParams& p, const TrainSchedule& schedule, int ranks);

}  // namespace trainvp
