// Autocorrelation and the iteration period (autocorrelation.hpp).
#include "models/health/algorithms/autocorrelation.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

namespace trainvp {
namespace {

// Pearson from centred sums; a part whose variance rounding wiped out correlates with nothing.
double pearson(double sab, double sa, double sb, double saa, double sbb, double m) {
  const double va = saa - sa * sa / m, vb = sbb - sb * sb / m;
  if (va <= 0 || vb <= 0) return 0;
  // sqrt(va * vb), not sqrt(va) * sqrt(vb): for equal parts it is exactly va, so r is exactly 1.
  return std::clamp((sab - sa * sb / m) / std::sqrt(va * vb), -1.0, 1.0);
}

// Four partial sums: the loop is bound by additions, not by one chain of them.
double dot(const double* a, const double* b, std::size_t m) {
  double s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= m; i += 4)
    for (int k = 0; k < 4; ++k) s[k] += a[i + k] * b[i + k];
  for (; i < m; ++i) s[0] += a[i] * b[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

}  // namespace

double autocorrelation(const std::vector<double>& x, int lag) {
  if (lag < 1) throw std::invalid_argument("autocorrelation: lag must be >= 1");
  const std::size_t n = x.size(), l = static_cast<std::size_t>(lag);
  if (l >= n) return 0;
  const std::size_t m = n - l;
  const double* a = x.data();
  const double* b = x.data() + l;
  // Exact tests, not a variance against a tolerance: a constant part is constant.
  const bool a_const = std::all_of(a, a + m, [&](double v) { return v == a[0]; });
  const bool b_const = std::all_of(b, b + m, [&](double v) { return v == b[0]; });
  if (a_const || b_const) return a_const && b_const && a[0] == b[0] ? 1 : 0;
  // Two passes (means, then centred sums): no cancellation against large means.
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < m; ++i) ma += a[i], mb += b[i];
  ma /= static_cast<double>(m), mb /= static_cast<double>(m);
  double sab = 0, saa = 0, sbb = 0, sa = 0, sb = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double da = a[i] - ma, db = b[i] - mb;
    sa += da, sb += db, sab += da * db, saa += da * da, sbb += db * db;
  }
  return pearson(sab, sa, sb, saa, sbb, static_cast<double>(m));
}

int first_period(const std::vector<double>& x, double threshold, int max_lag) {
  const std::size_t n = x.size();
  const int last = static_cast<int>(std::min<std::size_t>(n / 2, static_cast<std::size_t>(std::max(max_lag, 0))));
  if (last < 1) return 0;
  // Centred on the overall mean, so the prefix sums do not cancel against it.
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(n);
  std::vector<double> y(n), p1(n + 1, 0), p2(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    y[i] = x[i] - mean;
    p1[i + 1] = p1[i] + y[i];
    p2[i + 1] = p2[i] + y[i] * y[i];
  }
  // Lengths of the constant runs at each end: part x[0, m) is constant iff m <= head, x[lag, n)
  // iff m <= tail.
  std::size_t head = 1, tail = 1;
  while (head < n && x[head] == x[0]) ++head;
  while (tail < n && x[n - 1 - tail] == x[n - 1]) ++tail;
  for (int lag = 1; lag <= last; ++lag) {
    const std::size_t l = static_cast<std::size_t>(lag), m = n - l;
    double r;
    if (m <= head || m <= tail) {
      r = m <= head && m <= tail && x[0] == x[n - 1] ? 1 : 0;
    } else {
      r = pearson(dot(y.data(), y.data() + l, m), p1[m], p1[n] - p1[l], p2[m], p2[n] - p2[l], static_cast<double>(m));
      // Near the threshold the exact two-pass value decides, so the answer is that of autocorrelation().
      if (std::abs(r - threshold) < 1e-9) r = autocorrelation(x, lag);
    }
    if (r >= threshold) return lag;
  }
  return 0;
}

}  // namespace trainvp
