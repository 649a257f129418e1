#include "models/link/busy_series.hpp"

#include <algorithm>

namespace trainvp {

void BusySeries::coarsen() {
  for (std::size_t k = 0; k < kBuckets / 2; ++k) buckets_[k] = buckets_[2 * k] + buckets_[2 * k + 1];
  std::fill(buckets_.begin() + kBuckets / 2, buckets_.end(), 0.0);
  width_ps_ *= 2;
}

void BusySeries::grow(std::int64_t to_ps) {
  if (buckets_.empty()) buckets_.assign(kBuckets, 0.0);
  while (to_ps > width_ps_ * static_cast<std::int64_t>(kBuckets)) coarsen();
  span_ps_ = width_ps_ * static_cast<std::int64_t>(kBuckets);
}

void BusySeries::spread(std::int64_t from_ps, std::int64_t to_ps, double busy_ps) {
  if (to_ps > from_ps && busy_ps > 0) add(from_ps, to_ps, busy_ps / static_cast<double>(to_ps - from_ps));
}

double BusySeries::total_ps() const {
  double t = 0;
  for (double b : buckets_) t += b;
  return t;
}

std::vector<double> BusySeries::at_width(std::int64_t width_ps, std::size_t n) const {
  std::vector<double> out(n, 0.0);
  if (buckets_.empty()) return out;
  const std::int64_t merge = width_ps / width_ps_;
  for (std::size_t k = 0; k < buckets_.size(); ++k) {
    const auto to = static_cast<std::size_t>(static_cast<std::int64_t>(k) / merge);
    if (to < n) out[to] += buckets_[k];
  }
  return out;
}

std::int64_t BusySeries::common_width(std::int64_t end_ps, std::int64_t widest_ps) {
  std::int64_t w = kFirstWidthPs;
  while (w < widest_ps || w * static_cast<std::int64_t>(kBuckets) < end_ps) w *= 2;
  return w;
}

}  // namespace trainvp
