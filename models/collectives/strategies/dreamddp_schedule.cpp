#include "models/collectives/strategies/dreamddp_schedule.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "models/collectives/strategies/units.hpp"

namespace trainvp {

namespace {

struct Timeline {
  std::vector<std::int64_t> ready;  // R_i
  std::int64_t end = 0;             // T
};

Timeline timeline(const ScheduleInput& in) {
  Timeline t;
  std::int64_t r = 0;
  for (std::int64_t b : in.bwd_ps) t.ready.push_back(r += b);
  t.end = r + in.tail_ps;
  return t;
}

void check(const ScheduleInput& in, int H) {
  if (H < 1) throw std::invalid_argument("the period H must be >= 1, got " + std::to_string(H));
  if (in.bwd_ps.size() != in.comm_ps.size())
    throw std::invalid_argument("backward and communication times must cover the same layers");
  for (std::size_t i = 0; i < in.bwd_ps.size(); ++i)
    if (in.bwd_ps[i] < 0 || in.comm_ps[i] < 0) throw std::invalid_argument("times must be >= 0");
  if (in.tail_ps < 0) throw std::invalid_argument("times must be >= 0");
}

// Result of the search from (layer j, iterations left): total wait and where each iteration ends.
struct Best {
  std::int64_t wait = 0;
  std::vector<int> ends;  // exclusive end position of each iteration, `left` of them
};

class Search {
 public:
  Search(const ScheduleInput& in, const Timeline& t) : in_(in), t_(t), L_(static_cast<int>(in.bwd_ps.size())) {}

  Best best(int j, int left) {
    auto key = std::make_pair(j, left);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    Best b = solve(j, left);
    memo_.emplace(key, b);
    return b;
  }

 private:
  Best solve(int j, int left) {
    if (j == L_) return {0, std::vector<int>(static_cast<std::size_t>(left), L_)};
    if (left == 1) return {run_wait_ps(in_, j, L_), {L_}};
    std::int64_t f = 0;
    for (int i = j; i < L_; ++i) {
      const std::int64_t fin =
          std::max(f, t_.ready[static_cast<std::size_t>(i)]) + in_.comm_ps[static_cast<std::size_t>(i)];
      if (fin <= t_.end) {  // optimal hiding
        f = fin;
        continue;
      }
      // Assign layer i here, paying its wait, and close the iteration.
      Best a = best(i + 1, left - 1);
      a.wait += fin - t_.end;
      a.ends.insert(a.ends.begin(), i + 1);
      if (i == j) return a;  // at least one
      // Delayed assignment: close before layer i.
      Best d = best(i, left - 1);
      d.ends.insert(d.ends.begin(), i);
      return a.wait <= d.wait ? a : d;
    }
    // Everything left hides in this iteration; the others have nothing to do.
    std::vector<int> ends(static_cast<std::size_t>(left), L_);
    return {0, ends};
  }

  const ScheduleInput& in_;
  const Timeline& t_;
  int L_;
  std::map<std::pair<int, int>, Best> memo_;
};

Schedule from_ends(const ScheduleInput& in, const std::vector<int>& ends) {
  Schedule s;
  int start = 0;
  for (int e : ends) {
    std::vector<int> set;
    for (int i = start; i < e; ++i) set.push_back(i);
    s.wait_ps.push_back(run_wait_ps(in, start, e));
    s.total_wait_ps += s.wait_ps.back();
    s.sets.push_back(std::move(set));
    s.fill_in.emplace_back();
    start = e;
  }
  return s;
}

}  // namespace

std::int64_t chain_end_ps(const ScheduleInput& in, const std::vector<int>& positions) {
  Timeline t = timeline(in);
  std::int64_t f = 0;
  for (int i : positions)
    f = std::max(f, t.ready[static_cast<std::size_t>(i)]) + in.comm_ps[static_cast<std::size_t>(i)];
  return f;
}

std::int64_t run_wait_ps(const ScheduleInput& in, int first, int last) {
  if (first >= last) return 0;
  Timeline t = timeline(in);
  std::int64_t f = 0;
  for (int i = first; i < last; ++i)
    f = std::max(f, t.ready[static_cast<std::size_t>(i)]) + in.comm_ps[static_cast<std::size_t>(i)];
  return std::max<std::int64_t>(0, f - t.end);
}

Schedule dreamddp_schedule(const ScheduleInput& in, int H, bool fill_in) {
  check(in, H);
  Timeline t = timeline(in);
  Search search(in, t);
  Schedule s = from_ends(in, search.best(0, H).ends);
  if (!fill_in) return s;
  for (std::size_t h = 0; h < s.sets.size(); ++h) {
    if (s.sets[h].empty() || s.sets[h].front() == 0) continue;
    const int first = s.sets[h].front();
    const std::int64_t deadline = t.ready[static_cast<std::size_t>(first)];
    std::int64_t f = 0;
    for (int i = 0; i < first; ++i) {
      const std::int64_t fin =
          std::max(f, t.ready[static_cast<std::size_t>(i)]) + in.comm_ps[static_cast<std::size_t>(i)];
      if (fin > deadline) break;
      f = fin;
      s.fill_in[h].push_back(i);
    }
  }
  return s;
}

Schedule even_schedule(const ScheduleInput& in, int H) {
  check(in, H);
  std::vector<int> ends;
  for (auto& set : even_sets(static_cast<int>(in.bwd_ps.size()), H))
    ends.push_back(set.empty() ? (ends.empty() ? 0 : ends.back()) : set.back() + 1);
  return from_ends(in, ends);
}

}  // namespace trainvp
