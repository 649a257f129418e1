#pragma once
// Bayesian online change-point detection (Adams & MacKay 2007, arXiv 0710.3742), as GREYHOUND
// runs it on iteration times (DOMAIN.md section 3: a change when the reset probability > 0.9).
//
// Model: Gaussian observations with unknown mean and precision under a Normal-Gamma prior
// (mu0, kappa0, alpha0, beta0); a run's predictive is Student-t. The prior is set from the first
// observation x1: mu0 = x1, and the variance (noise * x1)^2 held as alpha0 = max_run / 2 (as many
// pseudo-observations, 2 alpha0, as the longest run keeps), beta0 = alpha0 (noise * x1)^2. Why: a
// deterministic simulator's steady iterations are identical, and a light variance prior would
// collapse towards zero and make a 1% wobble look like a change; with this weight a perfectly
// steady run at most halves the expected variance (runs are capped at max_run, and the capped run
// keeps the statistics of the last max_run observations), while a truly noisier series still
// raises it. kappa0 = 0.01 leaves the mean of a new run free (prior sd 10 noise widths), so a
// step of >= 10% (5 noise widths at the default) gives a reset probability > 0.9 at once.
//
// Run length r = observations in the current run; r = 0 (a change right after the latest
// observation) always holds the hazard 1/lambda, as in the paper's recursion. Log-space
// throughout: no underflow however long the series.
#include <vector>

namespace trainvp {

struct BocpdParams {
  double hazard_lambda = 250;  // expected run length (constant hazard 1/lambda)
  double noise = 0.02;         // relative standard deviation the model expects of a steady series
  int window = 3;              // "reset": a change within the last `window` observations
  int max_run = 1000;          // run lengths kept (mass beyond is merged into the last)
};

class Bocpd {
 public:
  // Throws std::invalid_argument unless hazard_lambda > 1, noise > 0, 1 <= window <= max_run.
  explicit Bocpd(BocpdParams p);
  // Adds one observation (> 0, e.g. an iteration time in seconds, else std::invalid_argument);
  // returns the reset probability: the posterior probability that the run length is < window.
  // Before `window` observations every run is that short, so it is 1: callers wait for
  // observations() >= window.
  double update(double x);
  double reset_probability() const;  // that of the last update (1 before any)
  int observations() const { return n_; }
  int most_likely_run() const;  // argmax of the run-length posterior (lowest on ties)
  void reset();                 // forget everything (after a handled change)

 private:
  BocpdParams p_;
  double alpha0_, log_h_, log_1mh_;
  double mu0_ = 0, beta0_ = 0;
  int n_ = 0;
  std::vector<double> log_p_;      // log posterior of run length r (index r)
  std::vector<double> mu_, beta_;  // run r's Normal-Gamma mean and beta (kappa, alpha follow from r)
  std::vector<double> next_p_, next_mu_, next_beta_, joint_;
  std::vector<double> lgamma_ratio_;  // lgamma(alpha_r + 1/2) - lgamma(alpha_r)
};

}  // namespace trainvp
