#pragma once
// A hook a GPU consults at the end of each iteration: steady-state fast-forward
// (docs/performance.md#steady-state-fast-forward) answers "skip n iterations" there. The GPU then
// records n iterations that repeat its last `period` ones, shifted by whole periods (kept as one
// run, RankIterations::skip, not as copies), and starts its next iteration `n / period` periods
// later than it would have: every rank is delayed by the same amount, so relative timing is kept
// exactly.
#include <cstdint>
#include <vector>

namespace trainvp {

struct IterationSkip {
  int iterations = 0;          // skipped after the iteration that just ended; a multiple of period
  int period = 0;              // iterations in one repeating period
  std::int64_t period_ps = 0;  // simulated time of one period
  std::int64_t pause_ps = 0;   // no skip: pause this long before the next iteration (a mitigation)
  std::int64_t delay_ps() const { return period > 0 ? static_cast<std::int64_t>(iterations / period) * period_ps : 0; }
};

class IterationBoundary {
 public:
  virtual ~IterationBoundary() = default;
  // `rank` has just ended `iteration` (its record is in Gpu::iterations()).
  virtual IterationSkip at_boundary(int rank, int iteration) = 0;
};

// The records of iterations [boundary + 1, boundary + skip.iterations], synthesized from
// `records` (which end with iteration `boundary`): iteration boundary + j copies
// boundary + j - m x period shifted by m periods, m = ceil(j / period). The definition that
// RankIterations::skip keeps without copies (test_period.cpp compares the two).
template <class Record>
void append_skipped(std::vector<Record>& records, const IterationSkip& skip) {
  const int last = static_cast<int>(records.size()) - 1;
  for (int j = 1; j <= skip.iterations; ++j) {
    const int m = (j + skip.period - 1) / skip.period;
    Record r = records[static_cast<std::size_t>(last + j - m * skip.period)];
    r.start_ps += m * skip.period_ps;
    r.end_ps += m * skip.period_ps;
    records.push_back(r);
  }
}

}  // namespace trainvp
