// Group comparison against the median (group_compare.hpp).
#include "models/health/algorithms/group_compare.hpp"

#include <algorithm>
#include <stdexcept>

namespace trainvp {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of no values");
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (values.size() % 2 == 1) return *mid;
  // The lower middle is the largest of the half below mid.
  const double lower = *std::max_element(values.begin(), mid);
  return lower + (*mid - lower) / 2;
}

std::vector<int> above_median(const std::vector<double>& values, double threshold) {
  std::vector<int> out;
  if (values.empty()) return out;
  const double m = median(values), limit = m + threshold * m;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] > limit) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace trainvp
