#pragma once
// A rank's communication time per iteration: the union of its collectives' [join, done]
// intervals, each counted in the iteration during which it ended. Under fast-forward the skipped
// iterations repeat the period before the skip, so their intervals are shifted copies of that
// period's; this computes the sums without making a copy per skipped period.
#include <cstddef>
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

// comm_by_iteration for a long run without keeping every interval: a rank's intervals are folded
// into per-iteration sums as soon as nothing still to come can reach them, and dropped. The sums
// are comm_by_iteration's to the picosecond (a union's state never reaches back over a point no
// interval spans, and a skip's window, copies and late intervals are folded together).
class CommFolder {
 public:
  // Folds the longest prefix of `real` (the rank's intervals ended so far, in end order) that
  // nothing to come can reach, and returns how many intervals it took (the caller drops them).
  // The caller promises that every interval still to come starts after `bound`, and that no skip
  // still to come repeats anything before it; `ends` covers the iterations ended so far (skipped
  // ones included), `skips` the skips so far. The prefix ends at or before `bound` and the last
  // iteration's end (what ends later counts in an iteration not ended yet) at a point no
  // interval spans, and each skip not folded yet lies wholly before that point (its window, its
  // copies and intervals it cut across) or wholly after it.
  std::size_t fold(const std::vector<CommInterval>& real, const std::vector<std::int64_t>& ends,
                   const std::vector<PeriodSkip>& skips, std::int64_t bound);
  // Every iteration's sum, once `rest` (the intervals not folded) is complete.
  std::vector<std::int64_t> sums(const std::vector<CommInterval>& rest, const std::vector<std::int64_t>& ends,
                                 const std::vector<PeriodSkip>& skips) const;

 private:
  std::vector<std::int64_t> folded_;  // per iteration: the folded intervals' share
  std::size_t skips_folded_ = 0;      // skips wholly in the folded prefix
};

// The same by materializing every copy: the definition, kept for the tests.
std::vector<std::int64_t> comm_by_iteration_copied(const std::vector<CommInterval>& real,
                                                   const std::vector<std::int64_t>& ends,
                                                   const std::vector<PeriodSkip>& skips);

}  // namespace trainvp
