#pragma once
// The one-line progress display of a single run on stderr (`trainvp run`: on when stderr is a
// terminal or with --progress, off with -q), redrawn in place with a carriage return:
//   trainvp: 1.234 ms simulated | iterations 3/10 | 2.41 it/s, 0.0028 simulated s/s | 0:03 left
// and, when the run ends, once more with every iteration and "done in M:SS", then a newline.
// It is driven from iteration ends and rank 0's phase ends (a wall-clock read every 16 phases,
// a redraw at most every 250 ms), never from a SystemC process of its own: the run's events, and
// so its results, are the same with or without it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace trainvp {

class RunProgress {
 public:
  // `planned`: iterations every GPU runs; `gpus`: how many GPUs finish each; `phases`: phases in
  // one of rank 0's iterations (the fraction of an iteration between iteration ends).
  RunProgress(std::FILE* out, int planned, int gpus, std::size_t phases);
  void iteration_end(int iteration);  // one GPU finished `iteration`
  void phase_end(int iteration);      // rank 0 finished a phase of `iteration`
  void finish();                      // the final line, then a newline
  void stop();                        // a failed run: a newline after the line drawn, if any

 private:
  double elapsed_s() const;
  void maybe_draw();
  void draw(bool final);

  std::FILE* out_;
  const int planned_, gpus_;
  const std::size_t phases_;
  int done_ = 0;                  // iterations every GPU has finished
  std::map<int, int> finishing_;  // iteration -> GPUs that finished it (for those not done)
  int rank0_iteration_ = 0;
  std::size_t rank0_phases_ = 0, since_check_ = 0;
  std::chrono::steady_clock::time_point start_;
  double last_draw_s_ = 0, last_work_ = 0, last_sim_s_ = 0;
  double rate_ = -1, sim_rate_ = -1;  // smoothed iterations and simulated seconds per wall second
  std::size_t last_len_ = 0;          // 0: nothing drawn yet
};

// "0:07", "1:05:09".
std::string format_wall_duration(double seconds);

}  // namespace trainvp
