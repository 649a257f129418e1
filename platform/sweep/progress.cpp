#include "platform/sweep/progress.hpp"

#include <cmath>
#include <cstdio>

namespace trainvp::sweep {

std::string format_duration(double seconds) {
  long s = static_cast<long>(std::llround(seconds < 0 ? 0 : seconds));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

Progress::Progress(std::ostream& out, std::size_t total, bool enabled)
    : out_(out), total_(total), enabled_(enabled && total > 0), start_(std::chrono::steady_clock::now()) {
  if (enabled_) draw();
}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::done(bool ok) {
  ++finished_;
  if (!ok) ++failed_;
  if (enabled_) draw();
}

void Progress::tick() {
  // Only the clock moved: redraw at most every 200 ms.
  if (enabled_ && std::chrono::steady_clock::now() - last_draw_ >= std::chrono::milliseconds(200)) draw();
}

void Progress::note(const std::string& line) {
  if (enabled_ && drawn_) out_ << "\r\033[K";
  out_ << line << "\n";
  if (enabled_) draw();
  else out_.flush();
}

void Progress::finish() {
  if (enabled_ && drawn_) out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

void Progress::draw() {
  constexpr int kWidth = 24;
  int filled = total_ ? static_cast<int>(kWidth * finished_ / total_) : kWidth;
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.append(static_cast<std::size_t>(kWidth - filled), '.');
  double el = elapsed_s();
  std::string line = "\r[" + bar + "] " + std::to_string(finished_) + "/" + std::to_string(total_) + " points";
  if (failed_) line += "  " + std::to_string(failed_) + " failed";
  line += "  " + format_duration(el) + " elapsed";
  if (finished_ > 0 && finished_ < total_)
    line += "  ETA " + format_duration(el / static_cast<double>(finished_) * static_cast<double>(total_ - finished_));
  out_ << line << "\033[K" << std::flush;
  drawn_ = true;
  last_draw_ = std::chrono::steady_clock::now();
}

}  // namespace trainvp::sweep
