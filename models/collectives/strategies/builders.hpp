#pragma once
// The strategies as configurations of UnitSync: which units, which plan in which iteration,
// which trigger. Pure C++ (no SystemC), so their structure is unit-testable.
#include <vector>

#include "models/collectives/strategies/dreamddp_schedule.hpp"
#include "models/collectives/strategies/unit_sync.hpp"

namespace trainvp {

struct StrategyCommon {
  int world = 1;  // ranks
  CollectiveAlgo algorithm = CollectiveAlgo::Ring;
  int streams = 1;  // comm_streams
  CompressionConfig compression;
};

// layerwise (opt.block == 1) and blockwise: the seed's scheduler over gradients, every iteration.
UnitSyncConfig grouped_config(const char* name, const Workload& w, const StrategyCommon& c, const GroupingOptions& opt);

// elastic: layerwise's units and streams (opt.block 1), the optimizer step waiting for each unit
// at most deadline_ps after it became ready (-1: no limit, exactly layerwise).
UnitSyncConfig elastic_config(const Workload& w, const StrategyCommon& c, GroupingOptions opt,
                              std::int64_t deadline_ps);

// adaptive: plan 0 layer-wise (block 1), plan 1 block-wise (`block`), switched by utilization.
UnitSyncConfig adaptive_config(const Workload& w, const StrategyCommon& c, GroupingOptions opt, int block, double high,
                               double low);

// asc_wfbp: every layer's gradient all-reduced as soon as it is ready, concurrently with any
// still running (one stream per layer: simultaneous communications).
UnitSyncConfig asc_wfbp_config(const Workload& w, const StrategyCommon& c);

// localsgd: every parameter averaged in one blocking all-reduce after iterations H-1, 2H-1, ...
UnitSyncConfig local_sgd_config(const Workload& w, const StrategyCommon& c, int H);

// plsgd and dreamddp: parameter averages per layer, overlapping the backward; iteration r
// synchronizes set (r mod H) of `schedule` (positions in synced_layers(w) order) plus its fill-in.
UnitSyncConfig partial_config(const char* name, const Workload& w, const StrategyCommon& c, const Schedule& schedule);

// PLSGD's schedule (no timing needed): the synced layers split evenly into H contiguous sets.
Schedule plsgd_sets(const Workload& w, int H);

}  // namespace trainvp
