#pragma once
// A rank's communication time per iteration: the union of its collectives' [join, done]
// intervals, each counted in the iteration during which it ended. Under fast-forward the skipped
// iterations repeat the period before the skip, so their intervals are shifted copies of that
// period's; this computes the sums without making a copy per skipped period.
#include <cstdint>
#include <vector>

#include "models/collectives/engine.hpp"

namespace trainvp {

using CommInterval = CollectiveEngine::Interval;

// A fast-forward skip: iterations [first, first + count) repeat iterations
// [first - period, first) count / period times, each repetition period_ps later.
struct PeriodSkip {
  int first, count, period;
  std::int64_t period_ps;
};

// `real`: the rank's simulated intervals in completion (end) order; `ends`: every iteration's end
// (skipped ones included, shifted copies as the GPU records them); `skips` in iteration order.
// Equal, to the picosecond, to sweeping `real` merged with every skipped period's copies
// (comm_by_iteration_copied) at a cost that does not grow with the skipped iterations.
std::vector<std::int64_t> comm_by_iteration(const std::vector<CommInterval>& real,
                                            const std::vector<std::int64_t>& ends,
                                            const std::vector<PeriodSkip>& skips);

// The same by materializing every copy: the definition, kept for the tests.
std::vector<std::int64_t> comm_by_iteration_copied(const std::vector<CommInterval>& real,
                                                   const std::vector<std::int64_t>& ends,
                                                   const std::vector<PeriodSkip>& skips);

}  // namespace trainvp
