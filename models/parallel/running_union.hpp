#pragma once
// The union of intervals that arrive in end order (each ends at or after every earlier one), as
// a rank's communication time is counted: add() says how much time a new interval adds. A new
// interval may start before earlier ones ended, and also before a gap between them, so the union
// keeps its disjoint segments, not only its latest end ([0,4], [3,12], [15,18], [3,20] cover 20,
// not the 17 a latest-end count gives).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace trainvp {

class RunningUnion {
 public:
  // At most `max_segments` disjoint segments are kept (the oldest dropped): an interval reaching
  // back over more gaps than that counts the older ones again. A bound only for memory in runs of
  // many thousands of iterations; intervals that span a gap span one or two.
  explicit RunningUnion(std::size_t max_segments = SIZE_MAX) : max_(max_segments) {}

  // Adds [start, end] (end at or after every earlier end); returns the time it adds to the union.
  std::int64_t add(std::int64_t start, std::int64_t end) {
    std::int64_t covered = 0, lo = start;
    // Segments reaching start merge with it: each ends at or before `end`. The last of them is
    // rewritten in place: a pop and a push at a deque's block boundary free and allocate a block.
    while (!segs_.empty() && segs_.back().second >= start) {
      covered += segs_.back().second - std::max(segs_.back().first, start);
      lo = std::min(lo, segs_.back().first);
      if (segs_.size() == 1 || segs_[segs_.size() - 2].second < start) {
        segs_.back() = {lo, end};
        return end - start - covered;
      }
      segs_.pop_back();
    }
    segs_.emplace_back(lo, end);
    if (segs_.size() > max_) segs_.pop_front();
    return end - start - covered;
  }

 private:
  std::deque<std::pair<std::int64_t, std::int64_t>> segs_;
  std::size_t max_;
};

}  // namespace trainvp
