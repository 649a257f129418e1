#include "models/gpu/gpu.hpp"

#include "models/gpu/roofline.hpp"

namespace trainvp {

using sc_core::sc_time;
using sc_core::SC_PS;

Gpu::Gpu(sc_core::sc_module_name name, const GpuParams& params, int rank, const Workload& workload, int iterations,
         RunContext& ctx, int trace_track)
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
  schedule_ = data_parallel_schedule(workload);
  // Phase times depend only on the GPU and the workload: compute them once, not per iteration.
  for (const Phase& ph : schedule_) {
    DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : workload.shape.dtype;
    nominal_ps_.push_back(phase_time_ps(params_, dt, phase_work(workload, ph), 1.0));
    std::string label = phase_label(ph.kind);
    slice_names_.push_back(
        ctx.trace.name(ph.layer >= 0 ? label + " " + workload.layers[static_cast<std::size_t>(ph.layer)].name : label));
  }
  records_.reserve(static_cast<std::size_t>(iterations));
  SC_HAS_PROCESS(Gpu);
  SC_THREAD(run);
}

std::int64_t Gpu::execute(const Phase& ph, int iteration) {
  std::size_t idx = static_cast<std::size_t>(&ph - schedule_.data());
  std::int64_t ps = nominal_ps_[idx];
  if (speed_ != 1.0 || launch_scale_ != 1.0) {
    DType dt = ph.kind == PhaseKind::Optimizer ? DType::FP32 : workload_.shape.dtype;
    ps = phase_time_ps(params_, dt, phase_work(workload_, ph), speed_, launch_scale_);
  }
  std::int64_t start = sc_core::sc_time_stamp().value();
  wait(sc_time(static_cast<double>(ps), SC_PS));
  ++ctx_.events;
  if (track_ >= 0)
    ctx_.trace.slice(track_, slice_names_[idx], "compute", start, start + ps, iteration,
                     workload_.micro_batches > 1 ? ph.micro_batch : -1);
  return ps;
}

void Gpu::run() {
  const int last_mb = workload_.micro_batches - 1;
  for (int it = 0; it < iterations_; ++it) {
    current_iteration_ = it;
    RankIteration rec;
    rec.start_ps = sc_core::sc_time_stamp().value();
    for (const Phase& ph : schedule_) {
      current_phase_ = &ph;
      if (gate_ && !gate_->may_start(rank_, it, ph)) {
        std::int64_t t0 = sc_core::sc_time_stamp().value();
        blocked_ = true;
        while (!gate_->may_start(rank_, it, ph)) wait(gate_->changed(rank_));
        blocked_ = false;
        std::int64_t t1 = sc_core::sc_time_stamp().value();
        rec.blocked_ps += t1 - t0;
        if (track_ >= 0 && t1 > t0) ctx_.trace.slice(track_, ctx_.trace.name(std::string("wait ") + phase_label(ph.kind)), "wait", t0, t1, it);
      }
      rec.compute_ps += execute(ph, it);
      if (ph.kind == PhaseKind::BackwardWeight && ph.micro_batch == last_mb) {
        GradientReady g{rank_, it, ph.layer};
        for (auto& cb : grad_listeners_) cb(g);
        grad_event_.notify(sc_core::SC_ZERO_TIME);
      }
    }
    current_phase_ = nullptr;
    rec.end_ps = sc_core::sc_time_stamp().value();
    records_.push_back(rec);
    if (ctx_.on_iteration_end) ctx_.on_iteration_end(it);
  }
  finished_ = true;
}

std::string Gpu::state() const {
  if (finished_) return "finished";
  std::string s = "iteration " + std::to_string(current_iteration_);
  if (!current_phase_) return s + ", not started";
  s += std::string(blocked_ ? ", blocked before " : ", in ") + phase_label(current_phase_->kind);
  if (current_phase_->layer >= 0) s += " of layer " + workload_.layers[static_cast<std::size_t>(current_phase_->layer)].name;
  if (blocked_ && gate_) s += ": waiting for " + gate_->waiting_for(rank_, current_iteration_, *current_phase_);
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

tlm::tlm_sync_enum Gpu::nb_transport_fw(int index, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase, sc_time& t) {
  return hbm_.nb_transport_fw(index, p, phase, t);
}

}  // namespace trainvp
