#pragma once
// The DCQCN paper's fluid model (Zhu et al., SIGCOMM 2015, section 5): N identical flows through one
// bottleneck of capacity C, the queue q, and each flow's current rate Rc, target rate Rt and alpha,
// with the marking probability p(q) fed back after the control loop's delay tau_star. Integrated here
// by forward Euler as an independent oracle for the chunk-level simulation (hyper increase is not in
// the model; the tests keep the byte counter from reaching it). Units: packets and seconds.
#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include "models/link/dcqcn.hpp"

namespace trainvp::test {

struct FluidResult {
  double mean_queue_bytes = 0;  // time average over the window
  double mean_rate_bps = 0;     // one flow's Rc, time average over the window
  double min_queue_bytes = 0, max_queue_bytes = 0;
};

// packet: wire bytes of one packet (the queue's unit); line_bps: each flow's line rate and C.
inline FluidResult dcqcn_fluid(const DcqcnParams& p, int n, double capacity_bps, double line_bps, double packet,
                               double tau_star_s, double end_s, double window_s, double dt = 1e-8) {
  const double C = capacity_bps / 8 / packet, line = line_bps / 8 / packet;  // packets/s
  const double rai = p.rate_ai_bps / 8 / packet, B = static_cast<double>(p.byte_counter) / packet;
  const double tau = static_cast<double>(p.cnp_interval_ps) * 1e-12,
               tau1 = static_cast<double>(p.alpha_timer_ps) * 1e-12;
  const double T = static_cast<double>(p.rate_timer_ps) * 1e-12, F = p.fast_recovery, g = p.g;
  const double kmin = static_cast<double>(p.kmin) / packet, kmax = static_cast<double>(p.kmax) / packet;
  auto mark = [&](double q) { return q <= kmin ? 0.0 : q > kmax ? 1.0 : p.pmax * (q - kmin) / (kmax - kmin); };
  const std::size_t lag = static_cast<std::size_t>(std::max(1.0, std::round(tau_star_s / dt)));
  std::deque<std::pair<double, double>> hist(lag, {0.0, line});  // (p, Rc) at t - tau_star
  double q = 0, rc = line, rt = line, alpha = 1;
  FluidResult r;
  r.min_queue_bytes = 1e300;
  double acc_q = 0, acc_r = 0, acc_t = 0;
  const long steps = static_cast<long>(end_s / dt);
  for (long k = 0; k < steps; ++k) {
    const auto [pd, rd] = hist.front();
    hist.pop_front();
    // Event rates given marks: a byte-counter (timer) period passes without a mark.
    const double byte_rate = pd > 0 ? rd * pd / (std::pow(1 - pd, -B) - 1) : rd / B;
    const double timer_rate = pd > 0 ? rd * pd / (std::pow(1 - pd, -T * rd) - 1) : 1 / T;
    const double cut = 1 - std::pow(1 - pd, tau * rd);  // a CNP in an interval
    const double da = g / tau1 * ((1 - std::pow(1 - pd, tau1 * rd)) - alpha);
    const double drt = -(rt - rc) / tau * cut + rai * byte_rate * std::pow(1 - pd, F * B) +
                       rai * timer_rate * std::pow(1 - pd, F * T * rd);
    const double drc = -rc * alpha / (2 * tau) * cut + (rt - rc) / 2 * (byte_rate + timer_rate);
    const double dq = n * rc - C;
    alpha = std::clamp(alpha + da * dt, 0.0, 1.0);
    rt = std::min(line, rt + drt * dt);
    rc = std::clamp(rc + drc * dt, static_cast<double>(p.min_rate_bps) / 8 / packet, line);
    q = std::max(0.0, q + dq * dt);
    hist.push_back({mark(q), rc});
    const double t = (static_cast<double>(k) + 1) * dt;
    if (t > end_s - window_s) {
      acc_q += q * dt, acc_r += rc * dt, acc_t += dt;
      r.min_queue_bytes = std::min(r.min_queue_bytes, q * packet);
      r.max_queue_bytes = std::max(r.max_queue_bytes, q * packet);
    }
  }
  r.mean_queue_bytes = acc_q / acc_t * packet;
  r.mean_rate_bps = acc_r / acc_t * packet * 8;
  return r;
}

}  // namespace trainvp::test
