#pragma once
// GREYHOUND's detection steps on the monitor's windows (DOMAIN.md section 3): Bayesian online
// change-point detection on the iteration time, verification of a sustained change of the mean,
// then group comparison to name the suspects that validation probes check. Pure: no SystemC, so
// each step is tested on series of known shape (models/health/test).
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "models/health/detector_params.hpp"
#include "models/health/lateness.hpp"
#include "models/health/window.hpp"
#include "models/health/algorithms/bocpd.hpp"

namespace trainvp {

struct ChangeFinding {
  int change_window = 0;    // index of the first window of the new regime (where it was flagged)
  int verified_window = 0;  // the window whose arrival verified it
  bool slowdown = true;     // false: the iteration time dropped (a recovery)
  // A drop to a level still slower than the healthy one (one fault ending as another holds on):
  // reported as a slowdown against the healthy windows (the fastest stretch seen), before_s
  // being their mean.
  bool against_healthy = false;
  double before_s = 0, after_s = 0;  // mean iteration time on either side
  double reset_probability = 0;
  std::vector<int> compute_suspects;  // ranks, worst first
  std::vector<int> comm_suspects;     // communicator indices, worst first
  // Found by the late ranks, not the iteration time: a rank became late while the iteration time
  // stayed within verify_threshold (a fault under another of equal effect). before_s is the
  // healthy level, after_s the last lateness_windows windows' mean; compute_suspects the new late ranks.
  bool late_rank = false;
  // A slowdown with no suspect: no rank and no communicator slower than its peers (the whole group
  // or the whole fabric slowed).
  bool no_outlier = false;
  // The latest suspect's lateness growth over the iteration time's growth: near 1 when one slow
  // rank holds the job back (its peers wait for all of it), small when the late ranks only lead a
  // group that slowed as a whole (docs/health.md#no-healthy-peer).
  double late_share = 0;
  // Every slowdown's transfers against their own baseline (no peer needed): the communicators of
  // two ranks or more that moved data before (measured_comms), the median of their after / before
  // (transfer_ratio), and those that grew by group_threshold or more (grown_comms).
  double transfer_ratio = 1;
  std::vector<int> measured_comms;
  std::vector<int> grown_comms;
};

class Detector {
 public:
  // comm_size: per communicator (as they appear; the list may grow), the number of its ranks.
  explicit Detector(const DetectorParams& p);
  // Adds the next window; returns a change once it is verified. `comm_size[g]` gives group g's
  // size (groups of one size and equal bytes per window are compared with each other).
  std::optional<ChangeFinding> add(const MonitorWindow& w, const std::vector<int>& comm_size);
  int windows() const { return total_; }
  bool pending() const { return candidate_ >= 0; }  // a flagged change waits for its windows
  // The mitigation moved work or ranks: the late ranks are learnt again as a layout.
  void relayout() { lateness_.restart(), waiting_.clear(); }
  const MonitorWindow& window(int index) const;  // one still held
  std::int64_t window_start_ps(int index) const { return window(index).start_ps; }

 private:
  // Means of windows [from, to): iteration time, and per rank and communicator what a window holds
  // (entries a window lacks, a communicator seen later, count as 0).
  struct Means {
    double time_s = 0;
    std::vector<double> lateness_s, transfer_s, bytes;
  };
  Means means(int from, int to) const;
  // The suspects of a change from `before` to `after` (the windows of the new regime).
  void suspects(ChangeFinding& f, const Means& before, const Means& after, const std::vector<int>& comm_size) const;
  double mean_time(int from, int to) const;  // windows [from, to)
  // The late-rank signal after window k: a finding for ranks that became late while the iteration
  // time stayed flat, once no change point waits for its verification.
  std::optional<ChangeFinding> late_ranks(int k);

  DetectorParams p_;
  Bocpd bocpd_;
  std::deque<MonitorWindow> held_;  // the last windows, held_[0] is window `first_`
  int first_ = 0, total_ = 0;
  int regime_ = 0;      // first window since the last handled change
  int candidate_ = -1;  // a flagged change point waiting for its verification windows
  double candidate_p_ = 0;
  int rejected_ = -1;    // the last change point that failed verification
  int before_end_ = -1;  // the candidate's baseline ends here (its first flagged window)
  int shifts_ = 0;       // windows the candidate's "after" was moved on (a partial first window)
  // The healthy level: the lowest mean time seen over a stretch of baseline_iterations windows or
  // over a verified change's baseline (a weak fault under the verify threshold can hold the level
  // a slowdown is measured from).
  std::optional<Means> best_;
  LatenessTracker lateness_;
  std::vector<int> waiting_;  // ranks newly late, not yet judged (a change point was pending)
};

}  // namespace trainvp
