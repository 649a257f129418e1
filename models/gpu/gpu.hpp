#pragma once
// One GPU: executes a training iteration as a schedule of phases timed by roofline, publishes
// "gradient ready" per layer, and consults a gate (the synchronization strategy) before each
// phase. Its traffic goes through TLM-2.0 AT sockets: `dma` (initiator: the copy engines that
// collectives drive) and `mem` (target: its HBM as seen by peers, NICs and devices).
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <nlohmann/json.hpp>

#include "models/gpu/gpu_params.hpp"
#include "models/gpu/iteration_boundary.hpp"
#include "models/gpu/phase.hpp"
#include "models/gpu/phase_gate.hpp"
#include "models/gpu/rank_iterations.hpp"
#include "models/gpu/roofline.hpp"
#include "models/link/endpoint.hpp"
#include "models/workload/workload.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/trace_source.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/tlm/at_initiator.hpp"
#include "platform/core/tlm/at_memory_target.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

class Gpu : public sc_core::sc_module, public ChunkEndpoint, private EventCalendar::Client {
 public:
  tlm_utils::multi_passthrough_initiator_socket_optional<Gpu> dma;
  tlm_utils::multi_passthrough_target_socket_optional<Gpu> mem;

  // `schedule`: the iteration's phases; empty: data_parallel_schedule(workload).
  Gpu(sc_core::sc_module_name name, const GpuParams& params, int rank, const Workload& workload, int iterations,
      RunContext& ctx, int trace_track = -1, PhaseSchedule schedule = {});

  // The gate consulted before each phase; null means "never wait".
  void set_gate(const PhaseGate* gate) { gate_ = gate; }
  // The first iteration starts at `t_ps` instead of 0 (a job that starts later); before the run.
  void set_start(std::int64_t t_ps) { delay_ps_ = t_ps, rec_.start_ps = t_ps; }
  // Consulted at the end of every iteration (fast-forward); null means "never skip".
  void set_boundary(IterationBoundary* b) { boundary_ = b; }
  // Its trace sources (platform/core/trace_source.hpp), by name in trace_sources(): a layer's
  // gradient is complete on this rank (its last micro-batch's dW ended), and any phase ended, with
  // rank, iteration and phase (Local SGD starts its parameter average after the optimizer step).
  TraceSource<const GradientReady&> gradient_ready{"gradient_ready"};
  TraceSource<int, int, const Phase&> phase_end{"phase_end"};
  const TraceSources& trace_sources() const { return trace_sources_; }
  const sc_core::sc_event& gradient_ready_event() const { return grad_event_; }
  std::size_t phases_per_iteration() const { return schedule_.size(); }
  const PhaseSchedule& schedule() const { return schedule_; }
  int iterations_planned() const { return iterations_; }
  const Workload& workload() const { return workload_; }
  // Work a synchronization strategy adds to a phase of an iteration (gradient compression
  // kernels). It is timed by roofline on this GPU, runs right after the phase's own work, and is
  // reported as RankIteration::extra_ps (and as an `extra` slice in the trace).
  using ExtraWork = std::function<PhaseWork(int iteration, const Phase& phase)>;
  void set_extra_work(ExtraWork f) { extra_work_ = std::move(f); }

  // A validation probe (the fail-slow detector's GEMM check), run as real work: `work` in `dtype`,
  // timed by roofline at the GPU's current speed and launch overhead, starts when no phase is
  // running (at once when the GPU waits at its gate or has finished, else when the running phase
  // ends) and delays the training behind it. `done` gets its start and end. Probes run in order.
  // The same queue runs the kernels of an imported trace (Chakra): `slice` then names the trace
  // slice (an id from RunContext::trace.name) under `category`; -1 is a "probe" slice.
  using ProbeDone = std::function<void(std::int64_t start_ps, std::int64_t end_ps)>;
  void queue_probe(PhaseWork work, DType dtype, ProbeDone done, int slice = -1, const char* category = "probe");

  // Speed factor and launch-overhead multiplier can change during a run (faults).
  void set_speed(double s) { speed_ = s; }
  double speed() const { return speed_; }
  void set_launch_scale(double s) { launch_scale_ = s; }
  // Share of its nominal forward and backward work this GPU does (a mitigation that moves
  // micro-batches between data-parallel replicas): those phases take `s` times as long.
  void set_work_scale(double s) { work_scale_ = s; }
  double work_scale() const { return work_scale_; }

  // DMA from this GPU: a transfer on `dma` socket index `port`; `done` runs when it completes.
  void dma_transfer(int port, tlm::tlm_command cmd, std::uint64_t address, std::uint32_t bytes,
                    std::function<void()> done);

  // Sends a fabric chunk (a payload with a ChunkExt) out of DMA port route->ports[0].
  void send_chunk(tlm::tlm_generic_payload* chunk) override;
  const char* endpoint_name() const override { return name(); }

  int rank() const { return rank_; }
  const GpuParams& params() const { return params_; }
  const RankIterations& iterations() const { return records_; }
  bool finished() const { return finished_; }
  // Where the rank is, for stall reports.
  std::string state() const;
  std::uint64_t hbm_bytes_served() const { return hbm_.bytes_served(); }
  // results.json `ranks` entry: identity and the means over iterations after `warmup` (gpu_report.cpp).
  void report(nlohmann::ordered_json& out, int warmup) const;
  static const ModelInfo& info();

 private:
  // The GPU is an SC_METHOD state machine rather than an SC_THREAD: thousands of GPUs then cost
  // no coroutine stacks and no context switches. step() runs at start, when a phase ends and
  // when the gate changes; it starts the next phase or waits on the gate.
  void end_of_elaboration() override {
    dma_engine_.reserve_ports(dma.size());
    hbm_.reserve_ports(mem.size());
  }
  void step();
  // Wakes step() `delay_ps` from now through the run's calendar, so that GPUs ending phases at the
  // same picosecond run in the order they started them (first come, first served) rather than in
  // the order of the SystemC kernel's timed-event heap, which IEEE 1666 leaves unspecified.
  void sleep_for(std::int64_t delay_ps);
  void on_due(std::uint32_t, std::uint32_t) override { wake_.notify(); }
  void start_probe();
  void end_probe();
  void start_phase();
  void end_phase();
  std::int64_t phase_duration_ps(std::size_t slot) const;
  // The phase at next_ (and cur_slot_ its slot): PhaseSchedule::at and slot search the blocks, so
  // a phase's step, start and end share one look-up.
  const Phase& current();
  tlm::tlm_sync_enum nb_transport_bw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_fw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& t);

  GpuParams params_;
  int rank_;
  const Workload& workload_;
  int iterations_;
  RunContext& ctx_;
  int track_;
  PhaseSchedule schedule_;
  std::vector<std::int64_t> nominal_ps_;           // per schedule slot at speed 1, launch scale 1
  std::vector<int> slice_names_;                   // per schedule slot: trace name ids
  std::array<int, 4> wait_names_{-1, -1, -1, -1};  // per PhaseKind: trace name id of its wait, once used
  const PhaseGate* gate_ = nullptr;
  IterationBoundary* boundary_ = nullptr;
  std::int64_t delay_ps_ = 0;  // a fast-forward or a late start: wait this long before the next iteration
  TraceSources trace_sources_{{&gradient_ready, &phase_end}};
  ExtraWork extra_work_;
  std::int64_t phase_extra_ps_ = 0;  // of the phase running now
  sc_core::sc_event grad_event_;
  double speed_;
  double launch_scale_ = 1.0;
  double work_scale_ = 1.0;
  PayloadPool pool_;
  AtInitiator dma_engine_;
  AtMemoryTarget hbm_;
  RankIterations records_;
  bool finished_ = false;
  int current_iteration_ = 0;
  std::uint64_t next_ = 0;                                            // schedule index of the phase to run (or running)
  std::uint64_t cur_at_ = std::numeric_limits<std::uint64_t>::max();  // the index cur_ holds
  Phase cur_{};
  std::size_t cur_slot_ = 0;
  bool in_phase_ = false;  // a phase is executing until phase_end_
  bool blocked_ = false;   // waiting at the gate since blocked_since_
  std::int64_t phase_start_ = 0, blocked_since_ = 0;
  RankIteration rec_;
  struct Probe {
    PhaseWork work;
    DType dtype;
    ProbeDone done;
    int slice;
    const char* category;
  };
  std::deque<Probe> probes_;
  bool in_probe_ = false;
  bool probes_used_ = false;  // a waiting GPU also wakes for a queued probe
  std::int64_t probe_start_ = 0;
  sc_core::sc_event probe_event_;
  sc_core::sc_event wake_;  // notified by the calendar (sleep_for)
};

}  // namespace trainvp
