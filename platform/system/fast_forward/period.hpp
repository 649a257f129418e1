#pragma once
// The repeating-period test of steady-state fast-forward (docs/performance.md): have the last
// `repeats` periods of L iterations repeated, per rank, within a tolerance? Plain data in, so it is
// tested on its own (platform/system/test/test_period.cpp).
#include <cstdint>
#include <functional>
#include <vector>

#include "models/gpu/gpu.hpp"

namespace trainvp {

struct PeriodQuery {
  int boundary = 0;            // the iteration the arriving rank has just ended
  int arrived = 0;             // that rank: the first to end `boundary`; the others have ended boundary - 1
  int repeats = 3;             // periods that must repeat
  double tolerance = 1e-5;     // of the period
  int first = 0;               // no compared iteration before this one (warm-up, the last skip)
  std::int64_t after_ps = -1;  // nor one that starts at or before this time (the last fault change)
  // The arriving rank's communication time of `boundary` is final (false: its sends may still
  // travel, as a pipeline stage's do; compared up to boundary - 1 like the others').
  bool arrived_comm_final = true;
};

struct Period {
  int iterations = 0;  // 0: no repeating period
  std::int64_t ps = 0;
};

// Per rank and iteration, the communication time its strategy counts (may be empty: none).
using CommOf = std::function<std::int64_t(int rank, int iteration)>;

// Whether the last q.repeats periods of `length` iterations ending at q.boundary repeat: for every
// rank and every compared iteration i (up to boundary for the arriving rank, boundary - 1 for the
// others), iteration i and i - length agree within tolerance x period in start spacing (= the
// period), duration, compute, blocked, extra and communication time. The period is the arriving
// rank's end(boundary) - end(boundary - length).
Period check_period(const std::vector<const RankIterations*>& ranks, const CommOf& comm, const PeriodQuery& q,
                    int length);

}  // namespace trainvp
