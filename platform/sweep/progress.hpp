#pragma once
// The sweep's progress bar on stderr (only when stderr is a terminal):
//   [##########..........]  12/40 points  1 failed  0:07 elapsed  ETA 0:23
// ETA = elapsed / finished x remaining, over the points this run executes (resumed points
// are not counted). Lines printed through note() appear above the bar.
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace trainvp::sweep {

class Progress {
 public:
  Progress(std::ostream& out, std::size_t total, bool enabled);
  void done(bool ok);                  // one point finished
  void tick();                         // redraw (elapsed time moves)
  void note(const std::string& line);  // a message line; the bar is redrawn below it
  void finish();                       // clear the bar
  double elapsed_s() const;

 private:
  void draw();
  std::ostream& out_;
  std::size_t total_, finished_ = 0, failed_ = 0;
  bool enabled_, drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// "1:05", "2:03:04".
std::string format_duration(double seconds);

}  // namespace trainvp::sweep
