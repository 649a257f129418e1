#include "models/parallel/comm_by_iteration.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

#include "models/parallel/running_union.hpp"

namespace trainvp {
namespace {

// The union of `list` (in end order), each interval's new time counted in the iteration it ended in.
std::vector<std::int64_t> sweep(const std::vector<CommInterval>& list, const std::vector<std::int64_t>& ends) {
  std::vector<std::int64_t> out(ends.size(), 0);
  if (ends.empty()) return out;
  RunningUnion u;
  std::size_t it = 0;
  for (const CommInterval& iv : list) {
    while (it + 1 < ends.size() && iv.end > ends[it]) ++it;
    out[it] += u.add(iv.start, iv.end);
  }
  return out;
}

// The intervals that began in the rank's own last period before the skip (its iteration ends bound
// it: pipeline stages end an iteration at different times).
std::vector<CommInterval> period_window(const std::vector<CommInterval>& real, std::int64_t from, std::int64_t to) {
  auto lo = std::lower_bound(real.begin(), real.end(), from,
                             [](const CommInterval& iv, std::int64_t t) { return iv.end < t; });
  std::vector<CommInterval> w;
  for (auto iv = lo; iv != real.end(); ++iv)
    if (iv->start >= from && iv->start < to) w.push_back(*iv);
  return w;
}

void sort_by_end(std::vector<CommInterval>& list) {  // stable: the engine's order among equal ends
  std::stable_sort(list.begin(), list.end(),
                   [](const CommInterval& a, const CommInterval& b) { return a.end < b.end; });
}

}  // namespace

std::vector<std::int64_t> comm_by_iteration_copied(const std::vector<CommInterval>& real,
                                                   const std::vector<std::int64_t>& ends,
                                                   const std::vector<PeriodSkip>& skips) {
  std::vector<CommInterval> merged = real;
  for (const PeriodSkip& k : skips) {
    const auto w = period_window(real, ends.at(static_cast<std::size_t>(k.first - 1 - k.period)),
                                 ends.at(static_cast<std::size_t>(k.first - 1)));
    for (int m = 1; m <= k.count / k.period; ++m)
      for (const CommInterval& iv : w) merged.push_back({iv.start + m * k.period_ps, iv.end + m * k.period_ps});
  }
  sort_by_end(merged);
  return sweep(merged, ends);
}

// A skipped period's sums depend only on the intervals ending within reach of it (an interval's
// contribution depends only on the union's segments that end after its start, which earlier
// intervals ending after its start made).
// Far enough from both ends of a skip (K periods, K covering the longest interval, the period's own
// length and any simulated interval still running past the skip) that reach holds only copies, the
// same shifted copies for every period: so the sweep runs over the first K + 1 and the last K
// periods, with the middle cut out of the timeline, and the middle periods take period K + 1's sums.
std::vector<std::int64_t> comm_by_iteration(const std::vector<CommInterval>& real,
                                            const std::vector<std::int64_t>& ends,
                                            const std::vector<PeriodSkip>& skips) {
  if (skips.empty()) return sweep(real, ends);
  std::vector<std::int64_t> cends;                 // iteration ends on the cut timeline
  std::vector<std::size_t> index_of(ends.size());  // iteration -> its cut-timeline iteration
  std::vector<CommInterval> list;
  std::vector<std::int64_t> resumes, removed_after;  // per skip: when the rank resumes, time cut so far
  std::int64_t removed = 0;
  std::size_t i = 0;
  for (const PeriodSkip& k : skips) {
    const std::int64_t from = ends.at(static_cast<std::size_t>(k.first - 1 - k.period));
    const std::int64_t to = ends.at(static_cast<std::size_t>(k.first - 1)), P = k.period_ps;
    const int M = k.count / k.period;
    const std::int64_t resume = to + M * P;
    const auto w = period_window(real, from, to);
    std::int64_t longest = 0, late = 0;  // the window's longest interval; how far past `to` a simulated one ran
    for (const CommInterval& iv : w) longest = std::max(longest, iv.end - iv.start);
    for (auto iv = std::lower_bound(real.begin(), real.end(), to,
                                    [](const CommInterval&x, std::int64_t t) { return x.end < t; });
         iv != real.end(); ++iv)
      if (iv->start < resume) late = std::max(late, iv->end - to);
    const int K = P > 0 ? static_cast<int>(std::min<std::int64_t>(2 + (longest + (to - from) + late) / P, M)) : M;
    const bool cut = M > 2 * K + 1;
    const std::int64_t middle_ps = cut ? static_cast<std::int64_t>(M - 2 * K - 1) * P : 0;
    for (; i < static_cast<std::size_t>(k.first); ++i) {
      index_of[i] = cends.size();
      cends.push_back(ends[i] - removed);
    }
    for (int m = 1; m <= M; ++m) {
      const bool middle = cut && m > K + 1 && m <= M - K;
      const std::int64_t shift = removed + (cut && m > M - K ? middle_ps : 0);
      if (!middle)
        for (const CommInterval& iv : w) list.push_back({iv.start + m * P - shift, iv.end + m * P - shift});
      for (int j = 0; j < k.period; ++j, ++i) {
        if (middle) {
          index_of[i] = index_of[static_cast<std::size_t>(k.first + K * k.period + j)];
        } else {
          index_of[i] = cends.size();
          cends.push_back(ends[i] - shift);
        }
      }
    }
    removed += middle_ps;
    resumes.push_back(resume);
    removed_after.push_back(removed);
  }
  for (; i < ends.size(); ++i) {
    index_of[i] = cends.size();
    cends.push_back(ends[i] - removed);
  }
  // The simulated intervals, each moved back by the time cut before it: the real ones first, as
  // in the definition, so that equal ends keep its order.
  std::vector<CommInterval> merged;
  merged.reserve(real.size() + list.size());
  for (const CommInterval& iv : real) {
    const std::size_t n =
        static_cast<std::size_t>(std::upper_bound(resumes.begin(), resumes.end(), iv.start) - resumes.begin());
    const std::int64_t shift = n ? removed_after[n - 1] : 0;
    merged.push_back({iv.start - shift, iv.end - shift});
  }
  merged.insert(merged.end(), list.begin(), list.end());
  sort_by_end(merged);
  const std::vector<std::int64_t> c = sweep(merged, cends);
  std::vector<std::int64_t> out(ends.size());
  for (std::size_t j = 0; j < ends.size(); ++j) out[j] = c[index_of[j]];
  return out;
}

std::size_t CommFolder::fold(const std::vector<CommInterval>& real, const std::vector<std::int64_t>& ends,
                             const std::vector<PeriodSkip>& skips, std::int64_t bound) {
  const std::size_t n = real.size();
  if (n == 0 || ends.empty()) return 0;
  // An interval ending after the last ended iteration counts in an iteration not ended yet.
  bound = std::min(bound, ends.back());
  // Per skip not folded: from its window's start to the end of its last copy and of any interval
  // that ran past its window (the resume plus how far a window interval ran past `to`).
  struct Span {
    std::int64_t from, until;
  };
  std::vector<Span> spans;
  for (std::size_t k = skips_folded_; k < skips.size(); ++k) {
    const PeriodSkip& s = skips[k];
    const std::int64_t from = ends.at(static_cast<std::size_t>(s.first - 1 - s.period));
    const std::int64_t to = ends.at(static_cast<std::size_t>(s.first - 1));
    const std::int64_t copies_ps = static_cast<std::int64_t>(s.count / s.period) * s.period_ps;
    std::int64_t until = to + copies_ps;  // the resume
    for (const CommInterval& iv : period_window(real, from, to)) until = std::max(until, iv.end + copies_ps);
    spans.push_back({from, until});
  }
  // min_start[i]: the earliest start among real[i..n).
  std::vector<std::int64_t> min_start(n + 1, std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = n; i-- > 0;) min_start[i] = std::min(min_start[i + 1], real[i].start);
  std::int64_t b = bound;
  for (;;) {
    std::size_t j = n;  // the last interval of the prefix: it ends at or before b, no later one starts before its end
    for (std::size_t i = n; i-- > 0;)
      if (real[i].end <= b && min_start[i + 1] >= real[i].end) {
        j = i;
        break;
      }
    if (j == n) return 0;
    const std::int64_t q = real[j].end;
    bool crossed = false;  // a skip not wholly on one side of q: the prefix ends before its window
    for (const Span& sp : spans)
      if (sp.from <= q && q < sp.until) b = std::min(b, sp.from - 1), crossed = true;
    if (crossed) continue;
    std::size_t k = skips_folded_;
    while (k < skips.size() && spans[k - skips_folded_].from <= q) ++k;
    const std::vector<CommInterval> prefix(real.begin(), real.begin() + static_cast<std::ptrdiff_t>(j + 1));
    const std::vector<PeriodSkip> inside(skips.begin() + static_cast<std::ptrdiff_t>(skips_folded_),
                                         skips.begin() + static_cast<std::ptrdiff_t>(k));
    const std::vector<std::int64_t> part = comm_by_iteration(prefix, ends, inside);
    if (folded_.size() < part.size()) folded_.resize(part.size(), 0);
    for (std::size_t i = 0; i < part.size(); ++i) folded_[i] += part[i];
    skips_folded_ = k;
    return j + 1;
  }
}

std::vector<std::int64_t> CommFolder::sums(const std::vector<CommInterval>& rest, const std::vector<std::int64_t>& ends,
                                           const std::vector<PeriodSkip>& skips) const {
  const std::vector<PeriodSkip> open(skips.begin() + static_cast<std::ptrdiff_t>(std::min(skips_folded_, skips.size())),
                                     skips.end());
  std::vector<std::int64_t> out = comm_by_iteration(rest, ends, open);
  for (std::size_t i = 0; i < out.size() && i < folded_.size(); ++i) out[i] += folded_[i];
  return out;
}

}  // namespace trainvp
