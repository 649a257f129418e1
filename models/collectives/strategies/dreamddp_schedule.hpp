#pragma once
// DreamDDP's schedule (Tang et al., arXiv 2502.11058): which layers to average in each of the H
// local iterations of a period so that the averages hide under the backward. Pure C++, no time
// but integers of picoseconds, so that it is exact and unit-testable.
//
// Cost model (the paper's): layers in backward order; layer i's gradient is ready at
// R_i = bwd_0 + ... + bwd_i after the backward starts, which ends at T = R_last + tail. An
// iteration averages a contiguous run of layers, one after another on one stream, each starting
// when it is ready and the previous one is done:
//     f = max(f, R_i) + comm_i over the run;   wait = max(0, f - T)
// The H iterations take contiguous runs that together cover every layer once, in order: the
// first iteration the layers nearest the output.
//
// Search (pruned depth-first, as in the paper's Scheduling/dreamddp_scheduling.py): from layer j
// in iteration h,
//   - optimal hiding: add layers while the run still ends by T (free: wait stays 0);
//   - at least one: if the run's first layer does not hide, assign it anyway and close;
//   - delayed assignment: at the first layer that does not hide, branch between assigning it here
//     (paying its wait) and closing the iteration without it; keep the smaller total wait;
//   - the last iteration takes every layer left.
// Memoized on (layer, iterations left). Fill-in: each iteration also averages the layers before
// its first one (in backward order) whose run, from the start of the backward, ends by the time
// that first layer is ready, so the scheduled run is not delayed.
#include <cstdint>
#include <vector>

namespace trainvp {

struct ScheduleInput {
  std::vector<std::int64_t> bwd_ps;   // per layer (backward order): backward time since the previous one was ready
  std::vector<std::int64_t> comm_ps;  // per layer: its synchronization alone
  std::int64_t tail_ps = 0;           // backward after the last layer is ready (parameterless layers)
};

struct Schedule {
  std::vector<std::vector<int>> sets;     // per iteration of the period: positions (backward order)
  std::vector<std::vector<int>> fill_in;  // per iteration: extra positions (empty without fill-in)
  std::vector<std::int64_t> wait_ps;      // per iteration: predicted wait after the backward
  std::int64_t total_wait_ps = 0;
};

// Wait of a run of positions [first, last) (contiguous) synchronized in one iteration.
std::int64_t run_wait_ps(const ScheduleInput& in, int first, int last);

// When positions (ascending) synchronized one after another are all done, from the backward's start.
std::int64_t chain_end_ps(const ScheduleInput& in, const std::vector<int>& positions);

// Throws std::invalid_argument for H < 1 or inputs of different lengths or negative times.
Schedule dreamddp_schedule(const ScheduleInput& in, int H, bool fill_in);

// Partial Local SGD's assignment (even contiguous split) under the same cost model.
Schedule even_schedule(const ScheduleInput& in, int H);

}  // namespace trainvp
