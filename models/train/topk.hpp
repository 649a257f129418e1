#pragma once
// Top-k sparsification of one rank's values, as the timing model's `topk` sends them: the
// k = ceil(ratio x n) values of largest magnitude (ties: the lower index), the rest zero. With error
// feedback, what was not sent stays in the rank's residual and is added to its next values.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp {

// Values kept of n at `ratio` (at least 1 of a non-empty slice, as the timing model counts them).
std::size_t topk_count(std::size_t n, double ratio);

// Replaces values[0, n) by their top-k (the others set to 0). With `residual` (n values, or null):
// first values += residual, then residual = what was dropped.
void topk_in_place(float* values, std::size_t n, std::size_t k, float* residual);

}  // namespace trainvp
