// S2's micro-batch split (rebalance.hpp).
#include "models/health/algorithms/rebalance.hpp"

#include <cmath>
#include <queue>
#include <stdexcept>
#include <utility>

namespace trainvp {

std::vector<int> rebalance_micro_batches(const std::vector<double>& c, int total) {
  const int k = static_cast<int>(c.size());
  if (k < 1 || total < k) throw std::invalid_argument("rebalance_micro_batches: needs total >= groups >= 1");
  for (double v : c)
    if (!(v > 0) || !std::isfinite(v))
      throw std::invalid_argument("rebalance_micro_batches: times must be finite and > 0");
  std::vector<int> m(c.size(), 1);
  // (time with one more, index): the smallest first, then the lowest index.
  using Slot = std::pair<double, int>;
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> next;
  for (int j = 0; j < k; ++j) next.emplace(2 * c[j], j);
  for (int left = total - k; left > 0; --left) {
    const int j = next.top().second;
    next.pop();
    ++m[j];
    next.emplace((m[j] + 1) * c[j], j);
  }
  return m;
}

}  // namespace trainvp
