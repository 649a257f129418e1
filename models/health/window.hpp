#pragma once
// One observation window of the fail-slow monitor: one iteration period of rank 0's calls, and
// what every rank and communicator did in it, as a call interposer can measure it.
#include <cstdint>
#include <vector>

namespace trainvp {

struct MonitorWindow {
  std::int64_t start_ps = 0, end_ps = 0;
  // Per rank: how late it called, summed over the collectives of the window (its start minus the
  // communicator's first start). A slow GPU is the last to arrive: its lateness grows.
  std::vector<double> lateness_s;
  // Per communicator: time from its last member's call to its last member's return (the
  // transfer, with nobody left to wait for), and the bytes its calls moved.
  std::vector<double> transfer_s;
  std::vector<double> bytes;
  double paused_s = 0;          // rank 0 paused by a mitigation (not the job's pace: excluded)
  bool disturbed = false;       // the monitor's own probes ran in it: the detector does not read it
  bool fast_forwarded = false;  // a copy of the last window, standing for a skipped iteration
  double seconds() const { return static_cast<double>(end_ps - start_ps) * 1e-12 - paused_s; }
};

}  // namespace trainvp
