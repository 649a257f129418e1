#pragma once
// State kept per iteration that grows as the run reaches each iteration, never sized for the
// whole run up front: `validate` (which elaborates the models) allocates nothing per iteration,
// and a run's memory follows the iterations it has simulated, not the ones it plans.
#include <cstddef>
#include <utility>
#include <vector>

namespace trainvp {

template <class T>
class PerIteration {
 public:
  explicit PerIteration(T fresh = T{}) : fresh_(std::move(fresh)) {}
  // The iteration's entry, created as `fresh` when first touched. The reference lasts until
  // a later iteration is first touched.
  T& operator[](int iteration) {
    const auto i = static_cast<std::size_t>(iteration);
    if (i >= items_.size()) items_.resize(i + 1, fresh_);
    return items_[i];
  }
  // Read-only: an iteration not reached yet reads as `fresh`.
  const T& at(int iteration) const {
    const auto i = static_cast<std::size_t>(iteration);
    return i < items_.size() ? items_[i] : fresh_;
  }
  std::size_t reached() const { return items_.size(); }

 private:
  T fresh_;
  std::vector<T> items_;
};

}  // namespace trainvp
