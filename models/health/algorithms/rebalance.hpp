#pragma once
// GREYHOUND's S2 (DOMAIN.md section 3): give slower data-parallel groups fewer micro-batches.
#include <vector>

namespace trainvp {

// Micro-batches per data-parallel group that minimize the slowest group's time, where group j
// needs time_per_micro_batch[j] (> 0) per micro-batch: every group gets at least one, the total
// is `total` (>= number of groups >= 1, else std::invalid_argument). Ties go to the lower index,
// so the answer is deterministic.
//
// Greedy: from one each, the next micro-batch goes to the group that would finish it soonest.
// It takes the total smallest of the times {c_j * m : m >= 1}, so the slowest group's time is
// the optimum, max(max_j c_j, the total-th smallest c_j * m), and no group has fewer than
// floor of the continuous share total / (c_j * sum 1/c); a fast group may hold more than one
// above its share (c = {4, 4, 1, 4, 4}, total 11: share 5.5, optimum 7).
std::vector<int> rebalance_micro_batches(const std::vector<double>& time_per_micro_batch, int total);

}  // namespace trainvp
