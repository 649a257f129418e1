#include "models/health/detector.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "models/health/algorithms/group_compare.hpp"

namespace trainvp {

namespace {

BocpdParams bocpd_params(const DetectorParams& p) {
  BocpdParams b;
  b.hazard_lambda = p.hazard_lambda;
  b.noise = p.noise;
  b.window = p.reset_window;
  return b;
}

LatenessParams lateness_params(const DetectorParams& p) {
  LatenessParams l;
  l.threshold = p.lateness_threshold;
  l.windows = p.lateness_windows;
  return l;
}

}  // namespace

Detector::Detector(const DetectorParams& p) : p_(p), bocpd_(bocpd_params(p)), lateness_(lateness_params(p)) {}

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
  const std::size_t cap =
      static_cast<std::size_t>(p_.baseline_iterations + p_.verify_iterations + 2 * p_.reset_window + 8);
  while (held_.size() > cap) held_.pop_front(), ++first_;
  const double reset = bocpd_.update(w.seconds());
  for (int r : lateness_.add(w.lateness_s, w.seconds()))
    if (std::find(waiting_.begin(), waiting_.end(), r) == waiting_.end()) waiting_.push_back(r);
  // The fastest stretch of baseline_iterations windows so far is the healthy reference.
  if (const int from = k + 1 - p_.baseline_iterations; from >= 0 && (!best_ || mean_time(from, k + 1) < best_->time_s))
    best_ = means(from, k + 1);
  // A new regime's first observations are all "short runs": flag only once it has more.
  if (candidate_ < 0 && k - regime_ + 1 > p_.reset_window && reset > p_.reset_threshold) {
    // Run length r counts the observations of the current run, the newest included.
    const int c = std::max({k - bocpd_.most_likely_run() + 1, regime_ + 1, first_ + 1});
    if (c > rejected_) candidate_ = c, candidate_p_ = reset, before_end_ = c, shifts_ = 0;
  }
  if (candidate_ < 0) return late_ranks(k);
  if (k < candidate_ + p_.verify_iterations - 1) return std::nullopt;
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
    return late_ranks(k);
  }
  waiting_.clear();  // a verified change of the iteration time: its suspects cover the late ranks
  const int b0 = std::max({regime_, b - p_.baseline_iterations, first_}),
            a1 = std::min(c + p_.verify_iterations, k + 1);
  const Means was = means(b0, b), now = means(c, a1);
  if (!best_ || was.time_s < best_->time_s) best_ = was;  // a baseline shorter than a full stretch
  ChangeFinding f;
  f.change_window = b;
  f.verified_window = k;
  f.reset_probability = candidate_p_;
  f.before_s = was.time_s;
  f.after_s = now.time_s;
  f.slowdown = now.time_s > was.time_s;
  if (f.slowdown) {
    suspects(f, was, now, comm_size);
  } else if (const Means settled = a1 - c >= 2 ? means(c + 1, a1) : now;
             best_ && settled.time_s >= (1 + p_.verify_threshold) * best_->time_s) {
    // Still slow against the healthy level: what holds it there now may not be what slowed it
    // first. Judged without the new regime's first window, which a fault ending inside it leaves
    // partly slow (a recovery would otherwise read as still slow, and its probes blame the healthy).
    f.slowdown = f.against_healthy = true;
    f.before_s = best_->time_s;
    f.after_s = settled.time_s;
    suspects(f, *best_, settled, comm_size);
  }
  // The new regime starts after the (partial) first windows: the model restarts from its windows.
  regime_ = c;
  rejected_ = c;
  bocpd_.reset();
  for (int i = c; i <= k; ++i) bocpd_.update(window(i).seconds());
  return f;
}

std::optional<ChangeFinding> Detector::late_ranks(int k) {
  if (waiting_.empty()) return std::nullopt;
  const int span = p_.lateness_windows;
  std::vector<std::pair<double, int>> found;  // (-excess, rank)
  int since = k;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const int r = *it, since_r = lateness_.late_since(r);
    if (!lateness_.late(r)) {
      it = waiting_.erase(it);  // no longer late
      continue;
    }
    if (since_r < 0) {  // its newest window was not late: judged once it is again
      ++it;
      continue;
    }
    const int s = std::max(since_r, first_);
    // Late while the iteration time moved by verify_threshold or more: the change point's business
    // (it names the late ranks among its suspects). Late while it stayed flat: a fault the
    // iteration time hides.
    const double before = mean_time(std::max(first_, s - span), s), after = mean_time(s, k + 1);
    if (before <= 0 || std::abs(after / before - 1.0) >= p_.verify_threshold) {
      it = waiting_.erase(it);
      continue;
    }
    found.push_back({-lateness_.excess(r), r});
    since = std::min(since, s);
    it = waiting_.erase(it);
  }
  if (found.empty()) return std::nullopt;
  std::sort(found.begin(), found.end());
  ChangeFinding f;
  f.late_rank = true;
  f.change_window = since;
  f.verified_window = k;
  f.slowdown = true;
  f.after_s = mean_time(std::max(first_, k + 1 - span), k + 1);
  f.before_s = best_ ? best_->time_s : mean_time(std::max(first_, since - span), since);
  for (std::size_t i = 0; i < found.size() && static_cast<int>(i) < p_.max_suspects; ++i)
    f.compute_suspects.push_back(found[i].second);
  return f;
}

Detector::Means Detector::means(int from, int to) const {
  Means m;
  m.time_s = mean_time(from, to);
  auto add = [](std::vector<double>& sum, const std::vector<double>& v) {
    if (sum.size() < v.size()) sum.resize(v.size(), 0.0);
    for (std::size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
  };
  for (int j = from; j < to; ++j) {
    const MonitorWindow& w = window(j);
    add(m.lateness_s, w.lateness_s), add(m.transfer_s, w.transfer_s), add(m.bytes, w.bytes);
  }
  const double n = std::max(1, to - from);
  for (auto* v : {&m.lateness_s, &m.transfer_s, &m.bytes})
    for (double& x : *v) x /= n;
  return m;
}

void Detector::suspects(ChangeFinding& f, const Means& before, const Means& after,
                        const std::vector<int>& comm_size) const {
  const double grew = after.time_s - before.time_s;
  auto at = [](const std::vector<double>& v, std::size_t i) { return i < v.size() ? v[i] : 0.0; };
  // Compute: the ranks that now arrive later (they hold their groups back), against the median.
  const std::size_t ranks = after.lateness_s.size();
  std::vector<double> delta(ranks);
  for (std::size_t r = 0; r < ranks; ++r) delta[r] = at(after.lateness_s, r) - at(before.lateness_s, r);
  const double med = std::max(0.0, median(delta));
  std::vector<std::pair<double, int>> late;
  for (std::size_t r = 0; r < ranks; ++r)
    if (delta[r] > (1 + p_.group_threshold) * med && delta[r] >= p_.group_threshold * grew)
      late.push_back({-delta[r], static_cast<int>(r)});
  std::sort(late.begin(), late.end());
  for (std::size_t i = 0; i < late.size() && static_cast<int>(i) < p_.max_suspects; ++i)
    f.compute_suspects.push_back(late[i].second);
  if (!late.empty() && grew > 0) f.late_share = -late.front().first / grew;
  // Communication: communicators whose transfers slowed more than their equal-volume peers'
  // (their own baseline when they have fewer than three peers).
  const std::size_t groups = after.transfer_s.size();
  std::map<std::pair<int, long long>, std::vector<std::size_t>> classes;
  std::vector<double> ratio(groups, 0), more(groups, 0);
  for (std::size_t g = 0; g < groups && g < comm_size.size(); ++g) {
    const double tb = at(before.transfer_s, g), ta = at(after.transfer_s, g);
    if (tb <= 0) continue;
    ratio[g] = ta / tb, more[g] = ta - tb;
    classes[{comm_size[g], std::llround(at(before.bytes, g))}].push_back(g);
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
  // No rank and no communicator stands out: the whole group, or the whole fabric, slowed. What
  // the transfers did against their own baseline tells which (no peer is needed for that).
  f.no_outlier = f.compute_suspects.empty() && f.comm_suspects.empty();
  std::vector<double> rs;
  for (std::size_t g = 0; g < groups && g < comm_size.size(); ++g) {
    if (comm_size[g] < 2 || at(before.transfer_s, g) <= 0) continue;
    rs.push_back(ratio[g]);
    f.measured_comms.push_back(static_cast<int>(g));
    if (ratio[g] >= 1 + p_.group_threshold) f.grown_comms.push_back(static_cast<int>(g));
  }
  f.transfer_ratio = rs.empty() ? 1.0 : median(rs);
}

}  // namespace trainvp
