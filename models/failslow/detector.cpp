#include "models/failslow/detector.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "models/health/group_compare.hpp"

namespace trainvp {

namespace {

BocpdParams bocpd_params(const DetectorParams& p) {
  BocpdParams b;
  b.hazard_lambda = p.hazard_lambda;
  b.noise = p.noise;
  b.window = p.reset_window;
  return b;
}

}  // namespace

Detector::Detector(const DetectorParams& p) : p_(p), bocpd_(bocpd_params(p)) {}

const MonitorWindow& Detector::window(int index) const {
  if (index < first_ || index >= total_) throw std::out_of_range("detector window no longer held");
  return held_[static_cast<std::size_t>(index - first_)];
}

double Detector::mean_time(int from, int to) const {
  double s = 0;
  for (int i = from; i < to; ++i) s += window(i).seconds();
  return to > from ? s / (to - from) : 0.0;
}

std::optional<ChangeFinding> Detector::add(const MonitorWindow& w, const std::vector<int>& comm_size) {
  held_.push_back(w);
  const int k = total_++;
  // Enough history for a baseline before a change point flagged up to reset_window + verify
  // windows ago.
  const std::size_t cap = static_cast<std::size_t>(p_.baseline_iterations + p_.verify_iterations + 2 * p_.reset_window + 8);
  while (held_.size() > cap) held_.pop_front(), ++first_;
  const double reset = bocpd_.update(w.seconds());
  // A new regime's first observations are all "short runs": flag only once it has more.
  if (candidate_ < 0 && k - regime_ + 1 > p_.reset_window && reset > p_.reset_threshold) {
    // Run length r counts the observations of the current run, the newest included.
    const int c = std::max({k - bocpd_.most_likely_run() + 1, regime_ + 1, first_ + 1});
    if (c > rejected_) candidate_ = c, candidate_p_ = reset, before_end_ = c, shifts_ = 0;
  }
  if (candidate_ < 0 || k < candidate_ + p_.verify_iterations - 1) return std::nullopt;
  const int c = candidate_, b = before_end_;
  candidate_ = -1;
  const double before = mean_time(std::max({regime_, b - p_.baseline_iterations, first_}), b);
  const double after = mean_time(c, std::min(c + p_.verify_iterations, k + 1));
  if (before <= 0 || std::abs(after / before - 1.0) < p_.verify_threshold) {
    // A fault that starts inside a window makes that window only partly slow: look again one
    // window later (up to reset_window times) before rejecting the change.
    if (shifts_ < p_.reset_window) {
      candidate_ = c + 1, ++shifts_;
      return std::nullopt;
    }
    rejected_ = c;
    return std::nullopt;
  }
  ChangeFinding f = compare(c, b, k, comm_size);
  f.reset_probability = candidate_p_;
  // The new regime starts after the (partial) first windows: the model restarts from its windows.
  regime_ = c;
  rejected_ = c;
  bocpd_.reset();
  for (int i = c; i <= k; ++i) bocpd_.update(window(i).seconds());
  return f;
}

ChangeFinding Detector::compare(int c, int b, int k, const std::vector<int>& comm_size) const {
  ChangeFinding f;
  f.change_window = b;
  f.verified_window = k;
  const int b0 = std::max({regime_, b - p_.baseline_iterations, first_}), a1 = std::min(c + p_.verify_iterations, k + 1);
  f.before_s = mean_time(b0, b);
  f.after_s = mean_time(c, a1);
  f.slowdown = f.after_s > f.before_s;
  if (!f.slowdown) return f;
  const double grew = f.after_s - f.before_s;
  // Mean of a per-window series over [from, to); entries a window lacks (a communicator seen
  // later) count as 0.
  auto mean_of = [&](auto member, std::size_t i, int from, int to) {
    double s = 0;
    for (int j = from; j < to; ++j) {
      const std::vector<double>& v = window(j).*member;
      if (i < v.size()) s += v[i];
    }
    return s / std::max(1, to - from);
  };
  // Compute: the ranks that now arrive later (they hold their groups back), against the median.
  const std::size_t ranks = window(c).lateness_s.size();
  std::vector<double> delta(ranks);
  for (std::size_t r = 0; r < ranks; ++r)
    delta[r] = mean_of(&MonitorWindow::lateness_s, r, c, a1) - mean_of(&MonitorWindow::lateness_s, r, b0, b);
  const double med = std::max(0.0, median(delta));
  std::vector<std::pair<double, int>> late;
  for (std::size_t r = 0; r < ranks; ++r)
    if (delta[r] > (1 + p_.group_threshold) * med && delta[r] >= p_.group_threshold * grew)
      late.push_back({-delta[r], static_cast<int>(r)});
  std::sort(late.begin(), late.end());
  for (std::size_t i = 0; i < late.size() && static_cast<int>(i) < p_.max_suspects; ++i)
    f.compute_suspects.push_back(late[i].second);
  // Communication: communicators whose transfers slowed more than their equal-volume peers'
  // (their own baseline when they have fewer than three peers).
  const std::size_t groups = window(c).transfer_s.size();
  std::map<std::pair<int, long long>, std::vector<std::size_t>> classes;
  std::vector<double> ratio(groups, 0), more(groups, 0);
  for (std::size_t g = 0; g < groups && g < comm_size.size(); ++g) {
    const double tb = mean_of(&MonitorWindow::transfer_s, g, b0, b), ta = mean_of(&MonitorWindow::transfer_s, g, c, a1);
    if (tb <= 0) continue;
    ratio[g] = ta / tb, more[g] = ta - tb;
    const double bytes = mean_of(&MonitorWindow::bytes, g, b0, b);
    classes[{comm_size[g], std::llround(bytes)}].push_back(g);
  }
  std::vector<std::pair<double, int>> slow;
  for (auto& [key, members] : classes) {
    std::vector<double> rs;
    for (std::size_t g : members) rs.push_back(ratio[g]);
    const double ref = members.size() >= 3 ? median(rs) : 1.0;
    for (std::size_t g : members)
      if (ratio[g] > (1 + p_.group_threshold) * ref && more[g] >= p_.group_threshold * grew)
        slow.push_back({-ratio[g], static_cast<int>(g)});
  }
  std::sort(slow.begin(), slow.end());
  for (std::size_t i = 0; i < slow.size() && static_cast<int>(i) < p_.max_suspects; ++i)
    f.comm_suspects.push_back(slow[i].second);
  return f;
}

}  // namespace trainvp
