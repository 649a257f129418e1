#pragma once
// Where a job's ranks take what the mitigation decided: a pause (a step's cost) and a work scale
// (S2's split). Every rank stops at the same boundary, after the iteration that follows the latest
// one any rank has ended: a pipeline's stages end an iteration at different times, and stopping
// each at its own next boundary would stall the job once per stage.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp {

class CommonBoundary {
 public:
  CommonBoundary(std::size_t world, std::vector<int> ranks);
  const std::vector<int>& ranks() const { return ranks_; }  // the job's, ascending
  void ended(int rank, int iteration) { ended_[static_cast<std::size_t>(rank)] = iteration; }
  int boundary() const { return after_; }  // the iteration at whose end the ranks stop (-1: none yet)
  bool all_ended() const;                  // every rank of the job has ended that iteration
  // Every rank of the job pauses `pause_ps` more at the next common boundary; returns that
  // boundary's iteration.
  int pause_all(std::int64_t pause_ps);
  void scale(int rank, double s) { scale_[static_cast<std::size_t>(rank)] = s; }
  void scale_all(double s);
  std::int64_t take_pause(int rank);  // this rank's pause, now taken (0: none)
  double take_scale(int rank);        // this rank's work scale, now taken (< 0: none)
  bool pending() const;               // a pause or a scale not yet taken

 private:
  std::vector<int> ranks_;
  std::vector<int> ended_;           // per rank: the last iteration it ended
  std::vector<std::int64_t> pause_;  // per rank, taken at the boundary after after_
  std::vector<double> scale_;        // per rank (< 0: none), taken with it
  int after_ = -1;
};

}  // namespace trainvp
