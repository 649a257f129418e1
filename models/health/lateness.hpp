#pragma once
// Per-rank lateness, the detector's second signal (docs/health.md#late-ranks): which ranks arrive
// late at their collectives, window by window. The iteration time hides a fault that begins while
// another of equal effect holds the job back (the job already waits for the first); the late ranks
// show it, since the new slow rank then arrives late too. Pure: fed windows' per-rank lateness, so
// it is tested on synthetic arrivals (models/health/test/test_lateness.cpp).
#include <deque>
#include <vector>

namespace trainvp {

struct LatenessParams {
  // A rank is late when its lateness over the group's median, averaged over `windows` windows, is
  // at least this fraction of the window (the iteration time); it stops being late below half of it.
  double threshold = 0.10;
  int windows = 3;
};

class LatenessTracker {
 public:
  explicit LatenessTracker(LatenessParams p) : p_(p) {}
  // Adds the next window: per rank its lateness summed over the window's collectives (seconds), and
  // the window's length (seconds). Returns the ranks that became late with it, latest first. While
  // the first `windows` windows fill, nothing is returned: the ranks late then are the layout's
  // (a pipeline's stages arrive in turn), not a change.
  std::vector<int> add(const std::vector<double>& lateness_s, double window_s);
  bool late(int rank) const;
  std::vector<int> late_ranks() const;
  // A rank's lateness over the median, as a fraction of the window, averaged over the last windows.
  double excess(int rank) const;
  // The first window (counted from 0, the first added) of the rank's current run of windows at or
  // above half the threshold: where its lateness began. -1 when it has none.
  int late_since(int rank) const;
  int windows() const { return added_; }
  // The ranks' work or places changed (a mitigation's split or move): forget the recent windows;
  // the ranks late over the next `windows` + 1 windows (the first straddles the change) are the
  // new layout's, not a change.
  void restart();

 private:
  LatenessParams p_;
  int added_ = 0;
  int layout_until_ = -1;                   // windows added up to which the late ranks are a layout (-1: `windows`)
  std::deque<std::vector<double>> recent_;  // per window: per rank (lateness - median) / window
  std::vector<char> late_;
  std::vector<int> since_;
};

}  // namespace trainvp
