#pragma once
// Parameters of the fail-slow monitor and detector (GREYHOUND, DOMAIN.md section 3; docs/health.md),
// read from /health/detector. Defaults are the paper's.
#include <cstdint>

#include "platform/core/params.hpp"

namespace trainvp {

struct DetectorParams {
  double tracking_overhead = 0.0039;  // fraction of compute time the call interposer costs
  double period_threshold = 0.95;     // first autocorrelation lag at or above it is the period
  int period_iterations = 3;          // iterations of rank 0's calls the period estimate reads
  double hazard_lambda = 250;         // BOCPD: expected run length, in iterations
  double noise = 0.02;                // BOCPD: relative spread of a steady iteration time
  int reset_window = 3;               // BOCPD: "reset" = a change within this many iterations
  double reset_threshold = 0.9;       // BOCPD: reset probability that flags a change
  double verify_threshold = 0.10;     // sustained change of the mean iteration time
  int verify_iterations = 2;          // iterations after the change point the check averages
  int baseline_iterations = 10;       // iterations before it (at most; since the last change)
  double group_threshold = 0.10;      // a group this far over its class's median is suspect
  int max_suspects = 8;               // GPUs (and groups) validated per change, worst first
  // Late ranks (docs/health.md#late-ranks): a rank whose lateness over the median, averaged over
  // lateness_windows windows, reaches this fraction of the iteration time is late.
  double lateness_threshold = 0.10;
  int lateness_windows = 3;
  double probe_threshold = 0.10;               // a probe this much slower than its reference fails
  int gemm_size = 8192;                        // GEMM probe: n x n x n
  std::uint64_t link_probe_min = 16ull << 20;  // link probe messages: min, 2 x min, 4 x min
  int link_probe_repeats = 3;
};

const ParamSet<DetectorParams>& detector_schema();

}  // namespace trainvp
