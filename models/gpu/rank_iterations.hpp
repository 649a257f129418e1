#pragma once
// A rank's record of each iteration, and the iterations steady-state fast-forward skipped kept as
// runs instead of copies (docs/performance.md#steady-state-fast-forward): a skipped iteration
// reads as the one of the period before the skip that it repeats, shifted by whole periods
// (PerIteration's rule, which append_skipped in iteration_boundary.hpp spells out as copies). A 512-GPU job of 59,000
// iterations, 8 of them simulated, kept 1.7 GB of such copies.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/gpu/iteration_boundary.hpp"
#include "platform/core/per_iteration.hpp"

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
  explicit RankIterations(const std::vector<RankIteration>& simulated) {
    for (const RankIteration& r : simulated) push_back(r);
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // By value: a skipped iteration's record is made when read.
  RankIteration operator[](std::size_t i) const {
    std::int64_t shift_ps = 0;
    RankIteration r = records_.at(static_cast<int>(i), shift_ps);
    r.start_ps += shift_ps, r.end_ps += shift_ps;
    return r;
  }
  RankIteration at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("iteration " + std::to_string(i) + " of " + std::to_string(size_));
    return (*this)[i];
  }
  RankIteration back() const { return at(size_ - 1); }

  void push_back(const RankIteration& r) { records_[static_cast<int>(size_++)] = r; }
  // The records end with the iteration the skip follows: the next skip.iterations repeat its
  // last skip.period ones, each later by the periods between them.
  void skip(const IterationSkip& s) {
    records_.repeat(static_cast<int>(size_), s.iterations, s.period, s.period_ps);
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
  PerIteration<RankIteration> records_;  // the simulated iterations, and the skips as runs
  std::size_t size_ = 0;
};

}  // namespace trainvp
