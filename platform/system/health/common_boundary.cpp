#include "platform/system/health/common_boundary.hpp"

#include <algorithm>
#include <utility>

namespace trainvp {

CommonBoundary::CommonBoundary(std::size_t world, std::vector<int> ranks)
    : ranks_(std::move(ranks)), ended_(world, -1), pause_(world, 0), scale_(world, -1.0) {
  if (ranks_.empty())
    for (std::size_t r = 0; r < world; ++r) ranks_.push_back(static_cast<int>(r));
}

bool CommonBoundary::all_ended() const {
  return std::all_of(ranks_.begin(), ranks_.end(),
                     [&](int k) { return ended_[static_cast<std::size_t>(k)] >= after_; });
}

int CommonBoundary::pause_all(std::int64_t pause_ps) {
  int last = -1;
  for (int r : ranks_) {
    pause_[static_cast<std::size_t>(r)] += pause_ps;
    last = std::max(last, ended_[static_cast<std::size_t>(r)]);
  }
  after_ = last + 1;
  return after_;
}

void CommonBoundary::scale_all(double s) {
  for (int r : ranks_) scale_[static_cast<std::size_t>(r)] = s;
}

std::int64_t CommonBoundary::take_pause(int rank) { return std::exchange(pause_[static_cast<std::size_t>(rank)], 0); }

double CommonBoundary::take_scale(int rank) { return std::exchange(scale_[static_cast<std::size_t>(rank)], -1.0); }

bool CommonBoundary::pending() const {
  return !std::all_of(pause_.begin(), pause_.end(), [](std::int64_t p) { return p == 0; }) ||
         !std::all_of(scale_.begin(), scale_.end(), [](double s) { return s < 0; });
}

}  // namespace trainvp
