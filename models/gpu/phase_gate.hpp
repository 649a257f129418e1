#pragma once
// A gate a GPU consults before starting each phase. Synchronization strategies implement it
// (the optimizer waits for the gradients' all-reduce; Local SGD's next forward waits for the
// averaged parameters; a pipeline stage waits for activations). Time spent blocked at a gate is
// reported as exposed communication.
#include <string>

#include <systemc>

#include "models/gpu/phase.hpp"

namespace trainvp {

class PhaseGate {
 public:
  virtual ~PhaseGate() = default;
  virtual bool may_start(int rank, int iteration, const Phase& phase) const = 0;
  // Notified whenever may_start may have turned true for `rank`.
  virtual const sc_core::sc_event& changed(int rank) const = 0;
  // What `rank` is waiting for, for stall reports: "all-reduce of bucket 3 (layers 40-47)".
  virtual std::string waiting_for(int rank, int iteration, const Phase& phase) const = 0;
};

// Published when a layer's gradient is complete on a rank (its last micro-batch's dW is done).
struct GradientReady {
  int rank;
  int iteration;
  int layer;
};

}  // namespace trainvp
