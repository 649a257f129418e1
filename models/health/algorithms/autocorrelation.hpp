#pragma once
// The iteration period of a timing series (GREYHOUND, DOMAIN.md section 3): the first lag whose
// autocorrelation reaches a threshold (the paper's 0.95).
#include <vector>

namespace trainvp {

// Pearson correlation between x[0, n-lag) and x[lag, n) (1 for a sequence that repeats exactly
// with that lag; 0 when either part has zero variance, unless both parts are equal sequences: 1).
// lag >= n leaves nothing to compare: 0. lag < 1 throws std::invalid_argument.
double autocorrelation(const std::vector<double>& x, int lag);

// The first lag in [1, max_lag] (and at most n/2) whose autocorrelation is >= threshold; 0 if
// none. Prefix sums give each lag's means and variances in O(1), so a lag costs one dot product:
// O(n * max_lag) at worst, with an early exit at the first hit.
int first_period(const std::vector<double>& x, double threshold, int max_lag);

}  // namespace trainvp
