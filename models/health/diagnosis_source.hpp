#pragma once
// What a mitigation reads of the fail-slow monitor (platform/system/health/mitigation.hpp): its
// findings, its windows as they close (trace sources), and the services it lends (a GEMM
// re-check, a pause note, a relayout note). FailSlowMonitor is the one in runs; a unit test drives the mitigation
// with a fake.
#include <cstdint>
#include <functional>
#include <vector>

#include "models/health/detector_params.hpp"
#include "models/health/diagnosis.hpp"
#include "models/health/window.hpp"
#include "platform/core/trace_source.hpp"

namespace trainvp {

class DiagnosisSource {
 public:
  virtual ~DiagnosisSource() = default;

  // Its trace sources: a diagnosis made, a change point verified, a window closed.
  TraceSource<const Diagnosis&> diagnosed{"diagnosis"};
  TraceSource<const ChangeEvent&> changed{"change"};
  TraceSource<const MonitorWindow&> window_closed{"window"};
  const TraceSources& trace_sources() const { return trace_sources_; }

  virtual const DetectorParams& params() const = 0;
  virtual const std::vector<ChangeEvent>& changes() const = 0;
  virtual const std::vector<Diagnosis>& diagnoses() const = 0;
  virtual const std::vector<GemmProbeResult>& gemm_probes() const = 0;
  virtual const std::vector<LinkProbeResult>& link_probes() const = 0;
  // The last window read (its time without pauses), and windows per lead-rank iteration so far.
  virtual double last_window_s() const = 0;
  virtual double windows_per_iteration() const = 0;

  // One FP16 GEMM probe on `rank`; `done` gets measured / datasheet time.
  virtual void gemm_check(int rank, std::function<void(double ratio)> done) = 0;
  // The lead rank was paused for `ps` (a mitigation's cost, not the job's pace).
  virtual void note_pause(std::int64_t ps) = 0;
  // The mitigation moved work or ranks (a split, a move, a restart on spares): which ranks arrive
  // late is the new layout's from here on, not a change to validate (docs/health.md#late-ranks).
  virtual void note_relayout() {}

 private:
  TraceSources trace_sources_{{&diagnosed, &changed, &window_closed}};
};

}  // namespace trainvp
