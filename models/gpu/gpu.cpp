#include "models/gpu/gpu.hpp"

#include <cmath>

#include "models/gpu/roofline.hpp"
#include "models/link/chunk.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

using sc_core::SC_PS;
using sc_core::sc_time;

Gpu::Gpu(sc_core::sc_module_name name, const GpuParams& params, int rank, const Workload& workload, int iterations,
         RunContext& ctx, int trace_track, PhaseSchedule schedule)
    : sc_module(name),
      dma("dma"),
      mem("mem"),
      params_(params),
      rank_(rank),
      workload_(workload),
      iterations_(iterations),
      ctx_(ctx),
      track_(trace_track),
      speed_(params.speed),
      dma_engine_("dma_peq", pool_,
                  [this](int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time& t) {
                    return dma[i]->nb_transport_fw(p, ph, t);
                  }),
      hbm_("hbm_peq", params.mem_bytes_per_s(), params.mem_latency_ps,
           [this](int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time& t) {
             return mem[i]->nb_transport_bw(p, ph, t);
           }) {
  dma.register_nb_transport_bw(this, &Gpu::nb_transport_bw);
  mem.register_nb_transport_fw(this, &Gpu::nb_transport_fw);
  schedule_ = schedule.empty() ? data_parallel_schedule(workload) : std::move(schedule);
  // Phase times depend only on the GPU and the workload: compute them once, not per iteration.
  for (std::size_t slot = 0; slot < schedule_.slots(); ++slot) {
    const Phase& ph = schedule_.slot_phase(slot);
    DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : workload.shape.dtype;
    nominal_ps_.push_back(phase_time_ps(params_, dt, phase_work(workload, ph), 1.0));
    std::string label = phase_label(ph.kind);
    slice_names_.push_back(
        ctx.trace.name(ph.layer >= 0 ? label + " " + workload.layers[static_cast<std::size_t>(ph.layer)].name : label));
  }
  finished_ = iterations <= 0 || schedule_.empty();
  ctx.calendar();  // made now: it spawns its process, which elaboration must do
  SC_HAS_PROCESS(Gpu);
  SC_METHOD(step);
  sensitive << probe_event_;  // what wakes a finished GPU (a waiting one adds it to its trigger)
}

void Gpu::queue_probe(PhaseWork work, DType dtype, ProbeDone done, int slice, const char* category) {
  probes_.push_back({work, dtype, std::move(done), slice, category});
  probes_used_ = true;
  probe_event_.notify(sc_core::SC_ZERO_TIME);
}

void Gpu::sleep_for(std::int64_t delay_ps) {
  ctx_.calendar().at(now_ps() + delay_ps, this, 0);
  next_trigger(wake_);
}

void Gpu::start_probe() {
  Probe& p = probes_.front();
  in_probe_ = true;
  probe_start_ = now_ps();
  sleep_for(phase_time_ps(params_, p.dtype, p.work, speed_, launch_scale_));
}

void Gpu::end_probe() {
  in_probe_ = false;
  const std::int64_t now = now_ps();
  Probe p = std::move(probes_.front());
  probes_.pop_front();
  rec_.probe_ps += now - probe_start_;
  if (blocked_) blocked_since_ += now - probe_start_;  // probing is not waiting at the gate
  ++ctx_.events;
  if (track_ >= 0)
    ctx_.trace.slice(track_, p.slice >= 0 ? p.slice : ctx_.trace.name("probe"), p.category, probe_start_, now,
                     current_iteration_);
  if (p.done) p.done(probe_start_, now);
}

const Phase& Gpu::current() {
  if (cur_at_ != next_) cur_ = schedule_.at(next_), cur_slot_ = schedule_.slot(next_), cur_at_ = next_;
  return cur_;
}

std::int64_t Gpu::phase_duration_ps(std::size_t slot) const {
  if (speed_ == 1.0 && launch_scale_ == 1.0 && work_scale_ == 1.0) return nominal_ps_[slot];  // the common case
  const Phase& ph = schedule_.slot_phase(slot);
  std::int64_t t = nominal_ps_[slot];
  if (speed_ != 1.0 || launch_scale_ != 1.0) {
    DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : workload_.shape.dtype;
    t = phase_time_ps(params_, dt, phase_work(workload_, ph), speed_, launch_scale_);
  }
  if (work_scale_ != 1.0 && ph.kind != PhaseKind::Optimizer) t = std::llround(static_cast<double>(t) * work_scale_);
  return t;
}

void Gpu::step() {
  if (in_probe_) end_probe();
  else if (in_phase_ && !finished_) end_phase();
  if (!probes_.empty() && !in_phase_) return start_probe();
  if (finished_) return;
  if (delay_ps_ > 0) {  // skipped iterations: the next one starts a whole number of periods later
    sleep_for(delay_ps_);
    delay_ps_ = 0;
    return;
  }
  const Phase ph = current();
  const std::int64_t now = now_ps();
  if (gate_ && !gate_->may_start(rank_, current_iteration_, ph)) {
    if (!blocked_) blocked_ = true, blocked_since_ = now;
    if (probes_used_) next_trigger(gate_->changed(rank_) | probe_event_);
    else next_trigger(gate_->changed(rank_));
    return;
  }
  if (blocked_) {
    blocked_ = false;
    rec_.blocked_ps += now - blocked_since_;
    if (track_ >= 0 && now > blocked_since_) {
      int& name = wait_names_[static_cast<std::size_t>(ph.kind)];
      if (name < 0) name = ctx_.trace.name(std::string("wait ") + phase_label(ph.kind));
      ctx_.trace.slice(track_, name, "wait", blocked_since_, now, current_iteration_);
    }
  }
  start_phase();
}

void Gpu::start_phase() {
  phase_start_ = now_ps();
  in_phase_ = true;
  phase_extra_ps_ = 0;
  const Phase ph = current();
  if (extra_work_) {
    PhaseWork extra = extra_work_(current_iteration_, ph);
    if (extra.flops > 0 || extra.bytes > 0 || extra.kernels > 0 || extra.measured_ps > 0) {
      DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : workload_.shape.dtype;
      phase_extra_ps_ = phase_time_ps(params_, dt, extra, speed_, launch_scale_);
    }
  }
  sleep_for(phase_duration_ps(cur_slot_) + phase_extra_ps_);
}

void Gpu::end_phase() {
  in_phase_ = false;
  const Phase ph = current();
  const std::int64_t now = now_ps();
  ++ctx_.events;
  rec_.compute_ps += now - phase_start_;
  rec_.extra_ps += phase_extra_ps_;
  if (track_ >= 0) {
    const std::int64_t own_end = now - phase_extra_ps_;
    ctx_.trace.slice(track_, slice_names_[cur_slot_], "compute", phase_start_, own_end, current_iteration_,
                     workload_.micro_batches > 1 ? ph.micro_batch : -1);
    if (phase_extra_ps_ > 0)
      ctx_.trace.slice(
          track_,
          ctx_.trace.name(std::string("extra ") + phase_label(ph.kind) +
                          (ph.layer >= 0 ? " " + workload_.layers[static_cast<std::size_t>(ph.layer)].name : "")),
          "compute", own_end, now, current_iteration_);
  }
  phase_end(rank_, current_iteration_, ph);
  if (ph.kind == PhaseKind::BackwardWeight && ph.micro_batch == workload_.micro_batches - 1) {
    GradientReady g{rank_, current_iteration_, ph.layer};
    gradient_ready(g);
    grad_event_.notify(sc_core::SC_ZERO_TIME);
  }
  if (++next_ < schedule_.size()) return;
  // Iteration complete.
  rec_.end_ps = now;
  records_.push_back(rec_);
  // The next iteration starts now: time blocked before its first phase belongs to it.
  rec_ = RankIteration{now, 0, 0, 0};
  next_ = 0;
  if (ctx_.on_iteration_end) ctx_.on_iteration_end(current_iteration_);
  const IterationSkip skip = boundary_ ? boundary_->at_boundary(rank_, current_iteration_) : IterationSkip{};
  if (++current_iteration_ >= iterations_) {
    finished_ = true;
  } else if (skip.iterations > 0 && current_iteration_ + skip.iterations < iterations_) {
    records_.skip(skip);
    current_iteration_ += skip.iterations;
    delay_ps_ = skip.delay_ps();
    rec_.start_ps = now + delay_ps_;
  } else if (skip.pause_ps > 0) {  // a mitigation's pause belongs to the iteration it delays
    delay_ps_ = skip.pause_ps;
    rec_.paused_ps = skip.pause_ps;
  }
}

std::string Gpu::state() const {
  if (finished_) return "finished";
  std::string s = "iteration " + std::to_string(current_iteration_);
  if (in_probe_) return s + ", running a validation probe";
  if (!in_phase_ && !blocked_) return s + ", not started";
  const Phase ph = schedule_.at(next_);
  s += std::string(blocked_ ? ", blocked before " : ", in ") + phase_label(ph.kind);
  if (ph.layer >= 0) s += " of layer " + workload_.layers[static_cast<std::size_t>(ph.layer)].name;
  if (blocked_ && gate_) s += ": waiting for " + gate_->waiting_for(rank_, current_iteration_, ph);
  return s;
}

void Gpu::dma_transfer(int port, tlm::tlm_command cmd, std::uint64_t address, std::uint32_t bytes,
                       std::function<void()> done) {
  dma_engine_.transfer(port, cmd, address, bytes, nullptr, [this, done = std::move(done)](tlm::tlm_generic_payload&) {
    ++ctx_.events;
    if (done) done();
  });
}

tlm::tlm_sync_enum Gpu::nb_transport_bw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_time& t) {
  return dma_engine_.nb_transport_bw(index, p, phase, t);
}

void Gpu::send_chunk(tlm::tlm_generic_payload* chunk) {
  dma_engine_.send(chunk_of(*chunk)->route->ports[0], chunk, nullptr);
}

tlm::tlm_sync_enum Gpu::nb_transport_fw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_time& t) {
  // Fabric chunks land in HBM at its full rate, an order of magnitude above any link feeding
  // it, so they are accepted at once and their owner is told they arrived.
  if (ChunkExt* c = chunk_of(p)) {
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    p.set_response_status(tlm::TLM_OK_RESPONSE);  // before its owner, who may reuse it, hears of it
    c->sink->chunk_delivered(p);
    return tlm::TLM_COMPLETED;
  }
  return hbm_.nb_transport_fw(index, p, phase, t);
}

}  // namespace trainvp
