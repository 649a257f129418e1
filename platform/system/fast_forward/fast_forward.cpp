#include "platform/system/fast_forward/fast_forward.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <iterator>
#include <utility>

#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

// Where a label's "it<N>" token's digits are: [first, last) (first == last: none).
std::pair<std::size_t, std::size_t> iteration_token(const std::string& label) {
  for (std::size_t i = 0; i + 2 < label.size(); ++i) {
    if (label.compare(i, 2, "it") != 0 || (i > 0 && label[i - 1] != ' ')) continue;
    std::size_t j = i + 2;
    while (j < label.size() && std::isdigit(static_cast<unsigned char>(label[j]))) ++j;
    if (j == i + 2 || (j < label.size() && label[j] != ' ')) continue;
    return {i + 2, j};
  }
  return {0, 0};
}

}  // namespace

std::string shift_iteration_label(const std::string& label, int by) {
  const auto [a, b] = iteration_token(label);
  if (a == b) return label;
  return label.substr(0, a) + std::to_string(std::stoll(label.substr(a, b - a)) + by) + label.substr(b);
}

int label_iteration(const std::string& label) {
  const auto [a, b] = iteration_token(label);
  return a == b ? -1 : static_cast<int>(std::stoll(label.substr(a, b - a)));
}

FastForward::FastForward(FastForwardParts parts, RunContext& ctx) : p_(std::move(parts)), ctx_(ctx) {
  if (!p_.cfg.enabled && p_.off_reason.empty()) p_.off_reason = "disabled (/training/fast_forward/enabled)";
  if (p_.off_reason.empty())
    for (Gpu* g : p_.gpus) g->set_boundary(this);
}

FastForward::Snapshot FastForward::snapshot(int rank) const {
  Snapshot s;
  s.at_ps = now_ps();
  // Hybrid parallelism: a stage's pipeline sends may still travel when it ends an iteration; what
  // they carry is keyed by iteration, which every rank moves on by the same count.
  s.idle = p_.by_iteration || p_.engine->rank_idle(rank);
  for (std::size_t d = 0; d < p_.fabric->dirs().size(); ++d) s.links.push_back(p_.fabric->dir_totals(d, s.at_ps));
  s.records = p_.engine->record_count();
  return s;
}

IterationSkip FastForward::at_boundary(int rank, int iteration) {
  if (!pending_.empty()) flush_pending();
  if (iteration > seen_) {
    seen_ = iteration;
    return decide(rank, iteration);
  }
  auto it = decided_.find(iteration);
  if (it == decided_.end()) return {};
  const IterationSkip skip = it->second;
  if (++arrived_[iteration] == p_.gpus.size()) complete(iteration, skip);
  return skip;
}

// The traffic of the last period equals the one before: the same chunks and bytes on every link
// direction and the same collectives, busy and paused time within the tolerance.
bool FastForward::traffic_repeats(int B, int L, std::int64_t period_ps) const {
  auto a = snaps_.find(B - 2 * L), b = snaps_.find(B - L), c = snaps_.find(B);
  if (a == snaps_.end() || b == snaps_.end() || !a->second.idle || !b->second.idle) return false;
  const Snapshot &s0 = a->second, &s1 = b->second, &s2 = c->second;
  if (s2.records - s1.records != s1.records - s0.records) return false;
  const double tol = p_.cfg.tolerance * static_cast<double>(period_ps);
  for (std::size_t d = 0; d < s2.links.size(); ++d) {
    const LinkDirStats &x = s0.links[d].stats, &y = s1.links[d].stats, &z = s2.links[d].stats;
    if (z.chunks - y.chunks != y.chunks - x.chunks ||
        z.payload_bytes - y.payload_bytes != y.payload_bytes - x.payload_bytes)
      return false;
    if (std::fabs(static_cast<double>((z.busy_ps - y.busy_ps) - (y.busy_ps - x.busy_ps))) > tol ||
        std::fabs(static_cast<double>((z.paused_ps - y.paused_ps) - (y.paused_ps - x.paused_ps))) > tol)
      return false;
  }
  return true;
}

IterationSkip FastForward::decide(int rank, int B) {
  if (!p_.off_reason.empty()) return {};
  const FastForwardConfig& c = p_.cfg;
  const int keep = (c.repeats + 2) * c.max_period + 1;  // snapshots a check can reach back to
  snaps_.erase(snaps_.begin(), snaps_.lower_bound(B - keep));
  const Snapshot& now = snaps_[B] = snapshot(rank);
  fold(B);
  if (!now.idle || (p_.faults && p_.faults->loss_active())) return {};
  // DCQCN that has acted (a mark, a CNP) leaves rates and alpha that carry over: not periodic.
  // Until then every queue pair is at line rate and nothing was counted, so a skip is exact.
  if (p_.fabric && p_.fabric->congestion() && p_.fabric->congestion()->acted()) return {};
  const int limit = p_.skip_limit ? p_.skip_limit() : -1;
  if (limit == 0) return {};
  std::vector<const RankIterations*> ranks;
  for (const Gpu* g : p_.gpus) ranks.push_back(&g->iterations());
  CommOf comm = p_.comm;
  if (!comm && p_.strategy) comm = [s = p_.strategy](int r, int i) { return s->comm_ps(r, i); };
  PeriodQuery q;
  q.boundary = B;
  q.arrived = rank;
  q.repeats = c.repeats;
  q.tolerance = c.tolerance;
  q.first = std::max(p_.warmup, resume_);
  q.arrived_comm_final = !p_.by_iteration;
  q.after_ps = p_.faults ? p_.faults->last_change_ps() : -1;
  const std::int64_t next = p_.faults ? p_.faults->next_change_ps() : FaultInjector::kNever;
  for (int L = p_.cycle; L <= c.max_period; L += p_.cycle) {
    const Period per = check_period(ranks, comm, q, L);
    if (per.iterations == 0 || !traffic_repeats(B, L, per.ps)) continue;
    // Whole periods that leave `margin` of them before the next change and before the last iteration.
    const std::int64_t by_time = next == FaultInjector::kNever ? INT_MAX : (next - now.at_ps) / per.ps - c.margin;
    const std::int64_t by_count = (p_.iterations - 1 - B) / L - c.margin;
    const std::int64_t by_limit = limit < 0 ? INT_MAX : limit / L;
    const std::int64_t n = std::min<std::int64_t>({by_time, by_count, by_limit, INT_MAX / L});
    if (n < 1 || n * L < c.min_skip) return {};
    IterationSkip skip{static_cast<int>(n) * L, L, per.ps};
    apply(B, skip);
    return skip;
  }
  return {};
}

void FastForward::apply(int B, const IterationSkip& skip) {
  const int times = skip.iterations / skip.period;
  const Snapshot &from = snaps_.at(B - skip.period), &to = snaps_.at(B);
  // The skipped iterations' link time stands for the stretch the next iteration starts after.
  for (std::size_t d = 0; d < p_.fabric->dirs().size(); ++d)
    p_.fabric->add_dir_repeats(d, from.links[d], to.links[d], times, to.at_ps, to.at_ps + skip.delay_ps());
  decided_[B] = skip;
  if (p_.on_skip) p_.on_skip(B, skip);
  if (++arrived_[B] == p_.gpus.size()) complete(B, skip);
  done_.push_back({to.at_ps, B, skip});
  skipped_ += skip.iterations;
  resume_ = B + skip.iterations + 1;
  if (ctx_.trace.enabled()) {
    if (track_ < 0) track_ = ctx_.trace.track("fast-forward", "skips");
    ctx_.trace.slice(track_, "fast-forward " + std::to_string(skip.iterations) + " iterations", "fast_forward",
                     to.at_ps, to.at_ps + skip.delay_ps(),
                     {{"after_iteration", B},
                      {"iterations", skip.iterations},
                      {"period_iterations", skip.period},
                      {"period_s", sec(skip.period_ps)}});
  }
}

// Every rank has ended B, so every collective up to B's is complete: the strategy's state of the
// last period and the engine's records launched since the period began are final.
void FastForward::complete(int B, const IterationSkip& skip) {
  const int L = skip.period;
  if (p_.strategy) p_.strategy->skip_iterations(B + 1, skip.iterations, L, skip.period_ps);
  const Snapshot &from = snaps_.at(B - L), &to = snaps_.at(B);
  if (p_.by_iteration) {
    // The period's collectives: those of iterations B - L + 1 to B, all launched after the first
    // rank ended B - L, and by now all launched.
    Pending p{{}, skip.iterations / L, L, skip.period_ps};
    for (std::size_t i = from.records; i < p_.engine->record_count(); ++i) {
      const int it = label_iteration(p_.engine->record(i).label);
      if (it > B - L && it <= B) p.which.push_back(i);
    }
    pending_.push_back(std::move(p));
    flush_pending();
  } else {
    // The period's collectives: launched after the first rank ended B - L, up to B's (launched before it ended B).
    std::vector<std::size_t> which;
    for (std::size_t i = from.records; i < to.records; ++i) which.push_back(i);
    repeat(which, skip.iterations / L, L, skip.period_ps);
    p_.engine->repeat_intervals(from.at_ps, skip.iterations / L, skip.period_ps);
  }
  arrived_.erase(B);
}

// Records of summed kinds that no later skip can repeat (older than the longest period before B,
// and than any waiting to be repeated) go into per-kind sums: a long campaign's memory then no
// longer grows with its simulated iterations. The sums run in id order, as the report's would.
void FastForward::fold(int B) {
  if (!p_.summed) return;
  // The last snapshot at or before B - max_period: any later skip repeats records from a boundary
  // after it (a skip leaves no snapshots of the boundaries it skipped).
  auto at = snaps_.upper_bound(B - p_.cfg.max_period);
  if (at == snaps_.begin()) return;
  std::size_t upto = std::prev(at)->second.records;
  for (const Pending& p : pending_)
    for (std::size_t i : p.which) upto = std::min(upto, i);
  p_.engine->fold(upto, p_.summed, [this](const CollectiveRecord& r) {
    Sum& s = folded_[r.label.substr(0, r.label.find(' '))];
    s.collectives += 1, s.bytes += r.bytes, s.time_s += sec(r.end_ps - r.start_ps);
  });
}

void FastForward::flush_pending() {
  for (auto p = pending_.begin(); p != pending_.end();) {
    if (std::any_of(p->which.begin(), p->which.end(),
                    [this](std::size_t i) { return p_.engine->record(i).end_ps < 0; })) {
      ++p;
      continue;
    }
    repeat(p->which, p->times, p->period, p->period_ps);
    p = pending_.erase(p);
  }
}

void FastForward::repeat(const std::vector<std::size_t>& which, int times, int period, std::int64_t period_ps) {
  std::vector<std::size_t> listed;
  for (std::size_t i : which) {
    const CollectiveRecord& r = p_.engine->record(i);
    if (!p_.summed || !p_.summed(r.label)) {
      listed.push_back(i);
      continue;
    }
    // As the report would sum the copies: each copy's duration is the original's.
    Sum& s = summed_[r.label.substr(0, r.label.find(' '))];
    s.collectives += static_cast<std::uint64_t>(times);
    s.bytes += static_cast<std::uint64_t>(times) * r.bytes;
    for (int m = 0; m < times; ++m) s.time_s += sec(r.end_ps - r.start_ps);
  }
  p_.engine->repeat_listed(listed, times, period_ps, [period](const std::string& label, int m) {
    return shift_iteration_label(label, m * period);
  });
}

nlohmann::ordered_json FastForward::report() const {
  using ojson = nlohmann::ordered_json;
  ojson skips = ojson::array();
  for (const Done& d : done_)
    skips.push_back({{"at_s", sec(d.at_ps)},
                     {"after_iteration", d.after},
                     {"iterations", d.skip.iterations},
                     {"period_iterations", d.skip.period},
                     {"period_s", sec(d.skip.period_ps)},
                     {"simulated_s", sec(d.skip.delay_ps())}});
  ojson o = {{"enabled", p_.off_reason.empty()}};
  if (!p_.off_reason.empty()) o["off_reason"] = p_.off_reason;
  o["iterations_simulated"] = p_.iterations - skipped_;
  o["iterations_skipped"] = skipped_;
  o["skips"] = skips;
  return o;
}

}  // namespace trainvp
