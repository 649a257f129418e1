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
  const T& at(int iteration) const {
    const Place p = place(iteration);
    return p.index < items_.size() ? items_[p.index] : fresh_;
  }
  // Iterations [first, first + count) repeat [first - period, first), count / period times
  // (fast-forward's skip: count a multiple of period, the period's entries final). Entries of
  // the skipped iterations touched before are dropped, as copies over them would have been.
  void repeat(int first, int count, int period) {
    if (period < 1 || count < period || count % period != 0 || first < period)
      throw std::logic_error("PerIteration::repeat: not whole periods after a period");
    if (!skips_.empty() && first < skips_.back().first + skips_.back().count)
      throw std::logic_error("PerIteration::repeat: skips out of order");
    const Place p = place(first);
    const Place after = place(first + count);
    if (after.index < items_.size())
      throw std::logic_error("PerIteration::repeat: iterations after the skip were touched already");
    items_.resize(p.index, fresh_);  // the period's entries exist; later ones dropped
    skips_.push_back({first, count, period, p.index});
  }
  // The iteration a skipped one repeats (a simulated one: itself).
  int source(int iteration) const {
    for (;;) {
      auto s =
          std::upper_bound(skips_.begin(), skips_.end(), iteration, [](int i, const Skip& k) { return i < k.first; });
      if (s == skips_.begin()) return iteration;
      --s;
      if (iteration >= s->first + s->count) return iteration;
      iteration -= ((iteration - s->first) / s->period + 1) * s->period;
    }
  }
  // Iterations reached: one past the last touched or skipped.
  std::size_t reached() const {
    if (skips_.empty()) return items_.size();
    const Skip& s = skips_.back();
    return static_cast<std::size_t>(s.first + s.count) + (items_.size() - s.stored_before);
  }

 private:
  struct Skip {
    int first, count, period;
    std::size_t stored_before;  // where iteration `first` would be stored: entries before it
  };
  struct Place {
    std::size_t index;  // into items_ (a skipped iteration: its source's)
    bool skipped;
  };
  Place place(int iteration) const {
    if (skips_.empty()) return {static_cast<std::size_t>(iteration), false};
    const Skip& last = skips_.back();  // the common case: an iteration after the last skip
    if (iteration >= last.first + last.count)
      return {last.stored_before + static_cast<std::size_t>(iteration - last.first - last.count), false};
    const int from = source(iteration);
    auto s = std::upper_bound(skips_.begin(), skips_.end(), from, [](int i, const Skip& k) { return i < k.first; });
    if (s == skips_.begin()) return {static_cast<std::size_t>(from), from != iteration};
    --s;
    return {s->stored_before + static_cast<std::size_t>(from - s->first - s->count), from != iteration};
  }

  T fresh_;
  std::vector<T> items_;
  std::vector<Skip> skips_;  // in iteration order
};

}  // namespace trainvp
