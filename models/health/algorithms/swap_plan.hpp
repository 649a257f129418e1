#pragma once
// GREYHOUND's S3 (DOMAIN.md section 3), its communication half: swap which parallel dimension
// crosses a congested link. The job's traffic between its node slots (measured) is fixed; where
// the slots sit decides which physical paths it takes. The planner re-places whole slots on the
// physical nodes so that the fewest bytes take paths through the suspect link directions: on a
// leaf-spine with a slow uplink that moves the heavy data-parallel rings inside a leaf and lets
// the light pipeline traffic cross instead.
#include <utility>
#include <vector>

namespace trainvp {

struct RoleSwapInput {
  // traffic[a][b]: bytes per iteration from slot a's ranks to slot b's (a != b), as measured.
  std::vector<std::vector<double>> traffic;
  // crossing[p][q]: the share of the paths from physical node p to physical node q that pass a
  // suspect link direction (0: none, 1: every path), p != q.
  std::vector<std::vector<double>> crossing;
  std::vector<int> at;  // per slot: the physical node it sits on now (a permutation)
};

// Bytes per iteration over suspect paths: sum over slot pairs of traffic x crossing where they sit.
// Throws std::invalid_argument on inputs that do not fit together.
double crossing_bytes(const RoleSwapInput& in, const std::vector<int>& at);

struct RoleSwap {
  std::vector<std::pair<int, int>> swaps;  // slots that exchange their physical nodes, in order
  std::vector<int> at;                     // per slot: its physical node after the swaps
  double before = 0, after = 0;            // crossing_bytes before and after
};

// Greedy: while some exchange of two slots' nodes lowers the crossing bytes by more than
// `min_gain` of what crossed before the plan, take the one that lowers them most (ties: the
// lowest slots).
RoleSwap plan_role_swap(const RoleSwapInput& in, double min_gain = 0.01);

}  // namespace trainvp
