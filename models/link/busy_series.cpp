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

// What add() would do from a series of this width and span (0: not allocated yet), step by step.
void BusySeries::Steps::prepare(std::int64_t width, std::int64_t span) {
  width_ = width, span_ = span;
  bucket_.clear(), amount_.clear();
  last_end_ = 0;
  if (share_ <= 0) return;
  for (std::size_t i = 0; i < n_; ++i) {
    std::int64_t from = pairs_[2 * i];
    const std::int64_t to = pairs_[2 * i + 1];
    if (to <= from) continue;
    if (to > span) {  // grow(): the width doubles until [0, to) is covered
      bucket_.push_back(-1 - static_cast<std::int64_t>(i)), amount_.push_back(0);
      while (to > width * static_cast<std::int64_t>(kBuckets)) width *= 2;
      span = width * static_cast<std::int64_t>(kBuckets);
    }
    last_end_ = std::max(last_end_, to);
    std::int64_t k = from / width, lo = k * width;
    for (; to - lo > width; from = lo += width)
      bucket_.push_back(k++), amount_.push_back(share_ * static_cast<double>(lo + width - from));
    bucket_.push_back(k), amount_.push_back(share_ * static_cast<double>(to - from));
  }
}

void BusySeries::add(Steps& steps) {
  if (steps.width_ != width_ps_ || steps.span_ != span_ps_) steps.prepare(width_ps_, span_ps_);
  const std::size_t n = steps.bucket_.size();
  for (std::size_t j = 0; j < n; ++j) {
    const std::int64_t k = steps.bucket_[j];
    if (k < 0) grow(steps.pairs_[2 * static_cast<std::size_t>(-1 - k) + 1]);
    else buckets_[static_cast<std::size_t>(k)] += steps.amount_[j];
  }
  last_end_ps_ = std::max(last_end_ps_, steps.last_end_);
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
