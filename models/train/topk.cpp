#include "models/train/topk.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace trainvp {

std::size_t topk_count(std::size_t n, double ratio) {
  if (n == 0) return 0;
  const auto k = static_cast<std::size_t>(std::ceil(ratio * static_cast<double>(n)));
  return std::min(n, std::max<std::size_t>(1, k));
}

void topk_in_place(float* values, std::size_t n, std::size_t k, float* residual) {
  if (residual)
    for (std::size_t i = 0; i < n; ++i) values[i] += residual[i];
  if (k < n) {
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    // Largest magnitude first; equal magnitudes by index, so the choice is the same everywhere.
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                     [values](std::uint32_t a, std::uint32_t b) {
                       const float x = std::fabs(values[a]), y = std::fabs(values[b]);
                       return x > y || (x == y && a < b);
                     });
    std::vector<bool> keep(n, false);
    for (std::size_t i = 0; i < k; ++i) keep[order[i]] = true;
    for (std::size_t i = 0; i < n; ++i)
      if (!keep[i]) {
        if (residual) residual[i] = values[i];
        values[i] = 0.0f;
      } else if (residual) {
        residual[i] = 0.0f;
      }
  } else if (residual) {
    std::fill(residual, residual + n, 0.0f);
  }
}

}  // namespace trainvp
