#include "platform/system/fast_forward/period.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace trainvp {

Period check_period(const std::vector<const RankIterations*>& ranks, const CommOf& comm, const PeriodQuery& q,
                    int length) {
  const int B = q.boundary, L = length;
  const int oldest = B - q.repeats * L + 1;
  if (L < 1 || oldest < q.first || oldest < 0 || ranks.empty()) return {};
  const auto& own = *ranks[static_cast<std::size_t>(q.arrived)];
  if (static_cast<int>(own.size()) <= B) return {};
  const std::int64_t P = own[static_cast<std::size_t>(B)].end_ps - own[static_cast<std::size_t>(B - L)].end_ps;
  if (P <= 0) return {};
  const double tol = q.tolerance * static_cast<double>(P);
  auto close = [tol](std::int64_t a, std::int64_t b) { return std::fabs(static_cast<double>(a - b)) <= tol; };
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto& rec = *ranks[r];
    const int last = static_cast<int>(r) == q.arrived ? B : B - 1;
    if (static_cast<int>(rec.size()) <= last) return {};
    // The others have ended only B - 1: with repeats 2 their window (B - L, B - 1] holds no pair,
    // so they compare their last iteration with the one a period before, reaching one period back.
    const int from = std::min(oldest + L, last);
    if (from - L < q.first || rec[static_cast<std::size_t>(from - L)].start_ps <= q.after_ps) return {};
    for (int i = from; i <= last; ++i) {
      const RankIteration &a = rec[static_cast<std::size_t>(i)], &b = rec[static_cast<std::size_t>(i - L)];
      if (!close(a.start_ps - b.start_ps, P) || !close(a.end_ps - a.start_ps, b.end_ps - b.start_ps) ||
          !close(a.compute_ps, b.compute_ps) || !close(a.blocked_ps, b.blocked_ps) || !close(a.extra_ps, b.extra_ps))
        return {};
      if (comm && (i < B || q.arrived_comm_final) &&
          !close(comm(static_cast<int>(r), i), comm(static_cast<int>(r), i - L)))
        return {};
    }
  }
  return {L, P};
}

}  // namespace trainvp
