#pragma once
// A rank's record of each iteration, and the iterations steady-state fast-forward skipped kept as
// runs instead of copies (docs/performance.md#steady-state-fast-forward): a skipped iteration
// reads as the one of the period before the skip that it repeats, shifted by whole periods
// (append_skipped's rule, iteration_boundary.hpp). A 512-GPU job of 59,000 iterations, 8 of them
// simulated, kept 1.7 GB of such copies.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/gpu/iteration_boundary.hpp"

namespace trainvp {

// What one rank did in one iteration (picoseconds of simulated time).
struct RankIteration {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::int64_t compute_ps = 0;  // time executing phases
  std::int64_t blocked_ps = 0;  // time waiting at the gate (exposed communication)
  std::int64_t extra_ps = 0;    // part of compute_ps spent on work a strategy added (compression)
  std::int64_t probe_ps = 0;    // time running validation probes (neither compute nor blocked)
  std::int64_t paused_ps = 0;   // a mitigation's pause before the iteration (checkpoint, restart, move)
};

class RankIterations {
 public:
  RankIterations() = default;
  explicit RankIterations(const std::vector<RankIteration>& simulated) : stored_(simulated), size_(simulated.size()) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // By value: a skipped iteration's record is made when read.
  RankIteration operator[](std::size_t i) const {
    std::int64_t shift = 0;
    for (;;) {
      auto r = std::upper_bound(runs_.begin(), runs_.end(), i, [](std::size_t x, const Run& k) { return x < k.first; });
      if (r == runs_.begin()) return shifted(stored_[i], shift);
      --r;
      if (i >= r->first + r->count) return shifted(stored_[r->stored_before + (i - r->first - r->count)], shift);
      const std::size_t m = (i - r->first) / r->period + 1;  // the same place m periods back
      i -= m * r->period;
      shift += static_cast<std::int64_t>(m) * r->period_ps;
    }
  }
  RankIteration at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("iteration " + std::to_string(i) + " of " + std::to_string(size_));
    return (*this)[i];
  }
  RankIteration back() const { return at(size_ - 1); }

  void push_back(const RankIteration& r) { stored_.push_back(r), ++size_; }
  // The records end with the iteration the skip follows: the next skip.iterations repeat its
  // last skip.period ones, each later by the periods between them.
  void skip(const IterationSkip& s) {
    if (s.period < 1 || s.iterations < 1 || s.iterations % s.period != 0 || size_ < static_cast<std::size_t>(s.period))
      throw std::logic_error("RankIterations::skip: not whole periods after a period");
    runs_.push_back({size_, static_cast<std::size_t>(s.iterations), static_cast<std::size_t>(s.period), s.period_ps,
                     stored_.size()});
    size_ += static_cast<std::size_t>(s.iterations);
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = RankIteration;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = RankIteration;
    const_iterator(const RankIterations* of, std::size_t i) : of_(of), i_(i) {}
    RankIteration operator*() const { return (*of_)[i_]; }
    const_iterator& operator++() { return ++i_, *this; }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const RankIterations* of_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Run {
    std::size_t first, count, period;  // iterations [first, first + count) repeat the period before
    std::int64_t period_ps;
    std::size_t stored_before;  // stored records before it
  };
  static RankIteration shifted(RankIteration r, std::int64_t by) {
    r.start_ps += by, r.end_ps += by;
    return r;
  }
  std::vector<RankIteration> stored_;  // the simulated iterations'
  std::vector<Run> runs_;              // in iteration order
  std::size_t size_ = 0;
};

}  // namespace trainvp
