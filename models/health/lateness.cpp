#include "models/health/lateness.hpp"

#include <algorithm>
#include <utility>

#include "models/health/algorithms/group_compare.hpp"

namespace trainvp {

std::vector<int> LatenessTracker::add(const std::vector<double>& lateness_s, double window_s) {
  const int k = added_++;
  const std::size_t n = lateness_s.size();
  if (late_.size() < n) late_.resize(n, 0), since_.resize(n, -1);
  std::vector<double> e(n, 0.0);
  if (window_s > 0 && n > 0) {
    const double med = median(lateness_s);
    for (std::size_t r = 0; r < n; ++r) e[r] = (lateness_s[r] - med) / window_s;
  }
  recent_.push_back(std::move(e));
  while (recent_.size() > static_cast<std::size_t>(p_.windows)) recent_.pop_front();
  const std::vector<double>& now = recent_.back();
  for (std::size_t r = 0; r < late_.size(); ++r) {
    const double x = r < now.size() ? now[r] : 0.0;
    if (x < p_.threshold / 2) since_[r] = -1;
    else if (since_[r] < 0) since_[r] = k;
  }
  const bool filling = added_ <= (layout_until_ < 0 ? p_.windows : layout_until_);
  const bool full = recent_.size() >= static_cast<std::size_t>(p_.windows);
  std::vector<std::pair<double, int>> entered;
  for (std::size_t r = 0; r < late_.size(); ++r) {
    const double s = excess(static_cast<int>(r));
    if (late_[r] && s < p_.threshold / 2) late_[r] = 0;
    else if (!late_[r] && s >= p_.threshold && full) {
      late_[r] = 1;
      if (!filling) entered.push_back({-s, static_cast<int>(r)});
    }
  }
  std::sort(entered.begin(), entered.end());
  std::vector<int> out;
  for (const auto& x : entered) out.push_back(x.second);
  return out;
}

void LatenessTracker::restart() {
  recent_.clear();
  std::fill(late_.begin(), late_.end(), 0);
  std::fill(since_.begin(), since_.end(), -1);
  layout_until_ = added_ + p_.windows + 1;  // and the window the change falls in, partly the old layout
}

bool LatenessTracker::late(int rank) const {
  return rank >= 0 && static_cast<std::size_t>(rank) < late_.size() && late_[static_cast<std::size_t>(rank)];
}

std::vector<int> LatenessTracker::late_ranks() const {
  std::vector<int> out;
  for (std::size_t r = 0; r < late_.size(); ++r)
    if (late_[r]) out.push_back(static_cast<int>(r));
  return out;
}

double LatenessTracker::excess(int rank) const {
  if (recent_.empty() || rank < 0) return 0.0;
  double s = 0;
  for (const std::vector<double>& w : recent_)
    s += static_cast<std::size_t>(rank) < w.size() ? w[static_cast<std::size_t>(rank)] : 0.0;
  return s / static_cast<double>(recent_.size());
}

int LatenessTracker::late_since(int rank) const {
  return rank >= 0 && static_cast<std::size_t>(rank) < since_.size() ? since_[static_cast<std::size_t>(rank)] : -1;
}

}  // namespace trainvp
