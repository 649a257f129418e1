#pragma once
// GREYHOUND's group comparison (DOMAIN.md section 3): groups doing equal communication volume
// should take equal time, so one more than 10% over their median is a suspect.
#include <vector>

namespace trainvp {

// Indices of values more than `threshold` (0.10 = 10%) above the median of `values`, that is
// v > median + threshold * median; the median of an even count is the mean of the middle two.
// Empty input -> empty.
std::vector<int> above_median(const std::vector<double>& values, double threshold);
// Empty input: std::invalid_argument (no median to speak of).
double median(std::vector<double> values);

}  // namespace trainvp
