#pragma once
// GREYHOUND's escalation rule (DOMAIN.md section 3), ski rental: keep paying the slowdown of the
// current mitigation step until the loss paid equals the cost of buying the next one.
#include <vector>

namespace trainvp {

// Steps S1..S4 (index 0..3; any count >= 1) with a cost each (seconds of lost training time;
// S1's, the first, is 0). The loss is the sum over slow iterations of (slow time - healthy time),
// an iteration no slower than healthy adding nothing. Escalates to step k+1 exactly when the loss
// accumulated since entering step k reaches step k+1's cost: one step per call at most, and the
// loss restarts from 0 on each move (what paid for the move is spent).
class SkiRental {
 public:
  // Throws std::invalid_argument on no steps, a first cost other than 0, or a negative cost.
  explicit SkiRental(std::vector<double> step_costs_s);
  // Adds one slow iteration; returns the step to be in after it.
  int add(double slow_s, double healthy_s);
  int step() const { return step_; }
  double loss() const { return loss_; }  // accumulated since the current step was entered
  void reset();                          // back to S1 (the fault ended or was removed)
  // The step just entered found nothing to do and cost nothing: the loss that paid for it counts
  // toward the next step instead.
  void refund(double loss_s) { loss_ += loss_s; }

 private:
  std::vector<double> cost_;
  int step_ = 0;
  double loss_ = 0;
};

}  // namespace trainvp
