#pragma once
// State kept per iteration that grows as the run reaches each iteration, never sized for the
// whole run up front: `validate` (which elaborates the models) allocates nothing per iteration,
// and a run's memory follows the iterations it has simulated, not the ones it plans.
//
// Iterations that fast-forward skips repeat the period before them (docs/performance.md): they
// are kept as that run of iterations, not as copies, so a month of skipped iterations costs
// nothing per iteration (a 512-GPU job of 59,000 iterations kept 4 GB of copies).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trainvp {

template <class T>
class PerIteration {
 public:
  explicit PerIteration(T fresh = T{}) : fresh_(std::move(fresh)) {}
  // The iteration's entry, created as `fresh` when first touched. The reference lasts until
  // a later iteration is first touched. A skipped iteration is read-only (at()).
  T& operator[](int iteration) {
    const Place p = place(iteration);
    if (p.skipped) throw std::logic_error("iteration " + std::to_string(iteration) + " was skipped: read-only");
    if (p.index >= items_.size()) items_.resize(p.index + 1, fresh_);
    return items_[p.index];
  }
  // Read-only: an iteration not reached yet reads as `fresh`; a skipped one as the iteration of
  // the period before the skip that it repeats.
  const T& at(int iteration) const { return stored(place(iteration).index); }
  // The same, and by how much later than its source a skipped iteration runs (whole periods of the
  // skips' period_ps; 0 for a simulated one): what time stamps in the entry shift by.
  const T& at(int iteration, std::int64_t& shift_ps) const {
    const Place p = place(iteration);
    shift_ps = p.shift_ps;
    return stored(p.index);
  }
  // Iterations [first, first + count) repeat [first - period, first), count / period times, each
  // period_ps later than the one it repeats (fast-forward's skip: count a multiple of period, the
  // period's entries final; SyncStrategy::skip_iterations states the rule). Entries of the skipped
  // iterations touched before are dropped, as copies over them would have been.
  void repeat(int first, int count, int period, std::int64_t period_ps = 0) {
    if (period < 1 || count < period || count % period != 0 || first < period)
      throw std::logic_error("PerIteration::repeat: not whole periods after a period");
    if (!skips_.empty() && first < skips_.back().first + skips_.back().count)
      throw std::logic_error("PerIteration::repeat: skips out of order");
    const Place p = place(first);
    const Place after = place(first + count);
    if (after.index < items_.size())
      throw std::logic_error("PerIteration::repeat: iterations after the skip were touched already");
    items_.resize(p.index, fresh_);  // the period's entries exist; later ones dropped
    skips_.push_back({first, count, period, period_ps, p.index});
  }
  // The iteration a skipped one repeats (a simulated one: itself).
  int source(int iteration) const { return origin(iteration).iteration; }
  // Iterations reached: one past the last touched or skipped.
  std::size_t reached() const {
    if (skips_.empty()) return items_.size();
    const Skip& s = skips_.back();
    return static_cast<std::size_t>(s.first + s.count) + (items_.size() - s.stored_before);
  }

 private:
  struct Skip {
    int first, count, period;
    std::int64_t period_ps;
    std::size_t stored_before;  // where iteration `first` would be stored: entries before it
  };
  struct Origin {
    int iteration;  // the simulated iteration it repeats (itself if simulated)
    std::int64_t shift_ps;
  };
  // The one rule of a skip: iteration first + j repeats first + j - m x period, m periods later,
  // m = j / period + 1; a source inside an earlier skip repeats further back in turn.
  Origin origin(int iteration) const {
    std::int64_t shift = 0;
    for (;;) {
      auto s =
          std::upper_bound(skips_.begin(), skips_.end(), iteration, [](int i, const Skip& k) { return i < k.first; });
      if (s == skips_.begin() || iteration >= (s - 1)->first + (s - 1)->count) return {iteration, shift};
      --s;
      const int m = (iteration - s->first) / s->period + 1;
      iteration -= m * s->period;
      shift += m * s->period_ps;
    }
  }
  struct Place {
    std::size_t index;  // into items_ (a skipped iteration: its source's)
    bool skipped;
    std::int64_t shift_ps;
  };
  Place place(int iteration) const {
    if (skips_.empty()) return {static_cast<std::size_t>(iteration), false, 0};
    const Skip& last = skips_.back();  // the common case: an iteration after the last skip
    if (iteration >= last.first + last.count)
      return {last.stored_before + static_cast<std::size_t>(iteration - last.first - last.count), false, 0};
    const Origin o = origin(iteration);
    const bool skipped = o.iteration != iteration;
    auto s =
        std::upper_bound(skips_.begin(), skips_.end(), o.iteration, [](int i, const Skip& k) { return i < k.first; });
    if (s == skips_.begin()) return {static_cast<std::size_t>(o.iteration), skipped, o.shift_ps};
    --s;
    return {s->stored_before + static_cast<std::size_t>(o.iteration - s->first - s->count), skipped, o.shift_ps};
  }
  const T& stored(std::size_t index) const { return index < items_.size() ? items_[index] : fresh_; }

  T fresh_;
  std::vector<T> items_;
  std::vector<Skip> skips_;  // in iteration order
};

}  // namespace trainvp
