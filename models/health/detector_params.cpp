#include "models/health/detector_params.hpp"

namespace trainvp {

const ParamSet<DetectorParams>& detector_schema() {
  static const ParamSet<DetectorParams> s = [] {
    ParamSet<DetectorParams> p("health_detector", "/health/detector",
                               "GREYHOUND's fail-slow detector (docs/health.md): what it tracks, how it finds and "
                               "verifies a change, and how it validates suspects with probes run on the platform.");
    p.number("tracking_overhead", &DetectorParams::tracking_overhead, 0.0039,
             "Cost of intercepting collective calls, as a fraction of compute time (paper: 0.39%, at most 1.1%)",
             Range::unit_closed())
        .number("period_threshold", &DetectorParams::period_threshold, 0.95,
                "Autocorrelation of rank 0's call gaps at which the first lag is the iteration period",
                Range::unit_open_closed())
        .integer("period_iterations", &DetectorParams::period_iterations, 3,
                 "Iterations of calls read for the period estimate (after the first)", Range::at_least(2))
        .number("hazard_lambda", &DetectorParams::hazard_lambda, 250,
                "Bayesian online change-point detection: expected run length between changes, iterations",
                Range::at_least(2))
        .number("noise", &DetectorParams::noise, 0.02,
                "Relative standard deviation of a steady iteration time the change-point model expects",
                Range::positive())
        .integer("reset_window", &DetectorParams::reset_window, 3,
                 "A change is a run length shorter than this many iterations", Range::at_least(1))
        .number("reset_threshold", &DetectorParams::reset_threshold, 0.9,
                "Posterior probability of a reset that flags a change (paper: 0.9)", Range::unit_open_closed())
        .number("verify_threshold", &DetectorParams::verify_threshold, 0.10,
                "Relative change of the mean iteration time a flagged change must sustain (paper: 10%)",
                Range::positive())
        .integer("verify_iterations", &DetectorParams::verify_iterations, 2,
                 "Iterations after the change point whose mean is compared", Range::at_least(1))
        .integer("baseline_iterations", &DetectorParams::baseline_iterations, 10,
                 "Iterations before the change point (since the previous change) whose mean is compared",
                 Range::at_least(1))
        .number("group_threshold", &DetectorParams::group_threshold, 0.10,
                "A group (or GPU) this far above the median of its equal-volume peers is suspect (paper: 10%)",
                Range::positive())
        .integer("max_suspects", &DetectorParams::max_suspects, 8, "Suspect GPUs and groups validated per change",
                 Range::at_least(1))
        .number("lateness_threshold", &DetectorParams::lateness_threshold, 0.10,
                "A rank whose lateness over the median of its peers, averaged over lateness_windows windows, is "
                "this fraction of the iteration time is late; a rank newly late while the iteration time stays "
                "within verify_threshold is validated like a change (paper: 10% is its fail-slow bar; it gives no "
                "per-rank figure)",
                Range::positive())
        .integer("lateness_windows", &DetectorParams::lateness_windows, 3,
                 "Windows the per-rank lateness is averaged over (ours: reset_window's default; the paper gives "
                 "none)",
                 Range::at_least(1))
        .number("probe_threshold", &DetectorParams::probe_threshold, 0.10,
                "A GEMM probe this much slower than the GPU's datasheet roofline, or a link probe this much below "
                "the median probed bandwidth, confirms the suspect",
                Range::positive())
        .integer("gemm_size", &DetectorParams::gemm_size, 8192, "GEMM probe size n (n x n x n, in FP8, FP16, FP32)",
                 Range::at_least(64))
        .size("link_probe_min", &DetectorParams::link_probe_min, "16MiB",
              "Smallest link-probe message; the others are 2x and 4x (paper: 16/32/64 MB)", Range::positive())
        .integer("link_probe_repeats", &DetectorParams::link_probe_repeats, 3, "Repeats of each link-probe size",
                 Range::at_least(1));
    return p;
  }();
  return s;
}

}  // namespace trainvp
