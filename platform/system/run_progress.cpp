#include "platform/system/run_progress.hpp"

#include <algorithm>
#include <cmath>

#include "platform/core/sim_time.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

namespace {
constexpr double kRedrawS = 0.25;        // at most four lines a second
constexpr double kFirstDrawS = 0.5;      // short runs draw only their final line
constexpr std::size_t kCheckEvery = 16;  // rank 0 phases between wall-clock reads
constexpr double kSmoothing = 0.3;       // weight of the newest rate in the running average
}  // namespace

std::string format_wall_duration(double seconds) {
  long s = static_cast<long>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

RunProgress::RunProgress(std::FILE* out, int planned, int gpus, std::size_t phases)
    : out_(out),
      planned_(planned),
      gpus_(std::max(1, gpus)),
      phases_(std::max<std::size_t>(1, phases)),
      start_(std::chrono::steady_clock::now()) {}

double RunProgress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void RunProgress::iteration_end(int iteration) {
  // Each GPU finishes its iterations in order, so the last one all have finished counts them all.
  if (++finishing_[iteration] == gpus_) finishing_.erase(iteration), done_ = std::max(done_, iteration + 1);
  maybe_draw();
}

void RunProgress::phase_end(int iteration) {
  if (iteration != rank0_iteration_) rank0_iteration_ = iteration, rank0_phases_ = 0;
  ++rank0_phases_;
  if (++since_check_ >= kCheckEvery) since_check_ = 0, maybe_draw();
}

void RunProgress::maybe_draw() {
  const double t = elapsed_s();
  if (t < kFirstDrawS || t - last_draw_s_ < kRedrawS) return;
  draw(false);
}

void RunProgress::finish() {
  done_ = planned_;
  draw(true);
  std::fputc('\n', out_);
  std::fflush(out_);
}

void RunProgress::stop() {
  if (last_len_ > 0) std::fputc('\n', out_), std::fflush(out_);
  last_len_ = 0;
}

void RunProgress::draw(bool final) {
  const double t = elapsed_s(), sim_s = sec(now_ps());
  // Work done in iterations, with rank 0's share of the iteration it is in.
  const double work =
      final ? planned_
            : std::max<double>(
                  done_, std::min<double>(planned_, rank0_iteration_ + static_cast<double>(rank0_phases_) / phases_));
  const double dt = t - last_draw_s_;
  if (dt > 0) {
    const double r = (work - last_work_) / dt, sr = (sim_s - last_sim_s_) / dt;
    rate_ = rate_ < 0 ? r : kSmoothing * r + (1 - kSmoothing) * rate_;
    sim_rate_ = sim_rate_ < 0 ? sr : kSmoothing * sr + (1 - kSmoothing) * sim_rate_;
  }
  if (final) rate_ = t > 0 ? planned_ / t : 0, sim_rate_ = t > 0 ? sim_s / t : 0;  // the whole run's
  last_draw_s_ = t, last_work_ = work, last_sim_s_ = sim_s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "trainvp: %s simulated | iterations %d/%d | %.3g it/s, %.3g simulated s/s | ",
                format_time_s(sim_s).c_str(), done_, planned_, std::max(0.0, rate_), std::max(0.0, sim_rate_));
  std::string line = buf;
  if (final) line += "done in " + format_wall_duration(t);
  else if (rate_ > 0) line += format_wall_duration((planned_ - work) / rate_) + " left";
  else line += "-:-- left";
  const std::size_t len = line.size();
  if (len < last_len_) line.append(last_len_ - len, ' ');  // blank what the longer line left
  last_len_ = len;
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
}

}  // namespace trainvp
