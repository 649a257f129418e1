#pragma once
// The profile DreamDDP schedules from: per layer, its backward time and the time of its
// synchronization alone on the scenario's fabric. Either given in the scenario
// (/training/sync/profile) or measured by a profiling pass of the platform's own:
//
// - backward: the roofline time of the layer's dX and dW phases (one micro-batch), on the
//   slowest GPU of the cluster (per layer), exactly as the GPUs will run them;
// - synchronization: each layer's collectives (compressed if compression is on) run alone, one
//   layer after another, over the scenario's cluster and fabric in a separate simulation, which
//   runs in a forked child process before this one elaborates anything (SystemC elaborates once
//   per process). Layers with identical collectives are measured once.
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/strategies/dreamddp_schedule.hpp"
#include "platform/config/scenario.hpp"

namespace trainvp {

struct SyncProfile {
  std::string source;                     // "measured" or "scenario"
  std::vector<int> layers;                // the synchronized layers in backward order (schedule positions)
  std::vector<std::int64_t> bwd_ps;       // per layer of the workload (forward order)
  std::vector<std::int64_t> comm_ps;      // per layer of the workload; 0 without parameters
  std::vector<std::int64_t> extra_ps;     // per layer: compression work when it is synchronized (slowest GPU)
  std::int64_t iteration_compute_ps = 0;  // one iteration's phases on the slowest GPU (roofline)
  ScheduleInput input;                    // per schedule position, parameterless layers folded in
};

// Per layer of `w`: the collectives that synchronize it alone over `world` ranks (what dreamddp runs).
std::vector<std::vector<SyncStep>> layer_sync_steps(const Scenario& s, const Workload& w, int world);

// The profile from /training/sync/profile, or measured (forks; call before any SystemC module
// exists in this process). Throws RunError when the profiling run fails. The profile is of `w`
// synchronized over `ranks`: the scenario's workload over every GPU, or under hybrid parallelism a
// pipeline stage's layers over one of its DP groups.
SyncProfile sync_profile(const Scenario& s, const Workload& w, const std::vector<int>& ranks);

}  // namespace trainvp
