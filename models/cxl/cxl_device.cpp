#include "models/cxl/cxl_device.hpp"

#include <cmath>
#include <climits>
#include <cstdio>
#include <cstring>

#include "models/cxl/reduce_ref.hpp"
#include "models/link/chunk.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

using sc_core::SC_PS;
using sc_core::sc_time;

CxlPort::CxlPort(sc_core::sc_module_name name, CxlDevice& device)
    : sc_module(name),
      dma("dma"),
      mem("mem"),
      device_(device),
      dma_engine_("dma_peq", pool_,
                  [this](int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
                    return dma[i]->nb_transport_fw(p, ph, t);
                  }) {
  dma.register_nb_transport_bw(this, &CxlPort::nb_transport_bw);
  mem.register_nb_transport_fw(this, &CxlPort::nb_transport_fw);
  dma_engine_.hold_until_response();  // its TLPs pass its chunks on the same sockets (send_chunk)
}

void CxlPort::send_chunk(tlm::tlm_generic_payload* chunk) {
  const ChunkExt* c = chunk_of(*chunk);
  const int out = c->route->ports[0];
  if (c->express) {  // a CXL.io TLP does not queue behind the port's bulk chunks
    tlm::tlm_phase ph = tlm::BEGIN_REQ;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    if (dma[out]->nb_transport_fw(*chunk, ph, t) != tlm::TLM_COMPLETED)
      throw RunError(std::string(name()) + ": a TLP was not taken");
    return;
  }
  if (c->data) device_.window_read(*c, chunk->get_address(), chunk->get_data_ptr());
  dma_engine_.send(out, chunk, nullptr);
}

tlm::tlm_sync_enum CxlPort::nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph,
                                            sc_core::sc_time& t) {
  return dma_engine_.nb_transport_bw(i, p, ph, t);
}

tlm::tlm_sync_enum CxlPort::nb_transport_fw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
  ChunkExt* c = chunk_of(p);
  if (!c) throw RunError(std::string(name()) + ": only reduction-window writes (fabric chunks) are modelled");
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  p.set_response_status(tlm::TLM_OK_RESPONSE);  // taken here, whatever it is
  if (cxl_io_of(p)) {                           // MMIO to the CSRs
    if (!io) throw RunError(std::string(name()) + ": CXL.io goes to port 0");
    io->receive(p);
    return tlm::TLM_COMPLETED;
  }
  // Writes into the reduction window stream into the engine's input buffer at link rate.
  bytes_in_ += p.get_data_length();
  if (c->data) device_.window_write(*c, p.get_address(), p.get_data_ptr());
  c->sink->chunk_delivered(p);
  return tlm::TLM_COMPLETED;
}

CxlDevice::CxlDevice(sc_core::sc_module_name name, const CxlParams& p, int nports, DType dtype, RunContext& ctx,
                     const WaveOptions& waves, std::int64_t waves_from_ps, std::int64_t waves_to_ps)
    : sc_module(name),
      p_(p),
      bf16_(dtype == DType::BF16),
      ctx_(ctx),
      waves_from_ps_(waves_from_ps),
      waves_to_ps_(waves_to_ps) {
  engine_ = make_rtl_engine(p.engine_lanes, waves.format);
  if (!waves.path.empty()) engine_->trace_to(waves, 1e12 / p.rtl_clock_hz);
  for (int i = 0; i < nports; ++i) ports.push_back(std::make_unique<CxlPort>(("p" + std::to_string(i)).c_str(), *this));
  std::string full = this->name();  // nodeN_cxl
  const std::string node = full.substr(0, full.find_first_of("._"));
  track_ = ctx.trace.enabled() ? ctx.trace.track(node, "cxl engine") : -1;
  csr_ = std::make_unique<CxlCsrTarget>(
      "csr", p.fidelity == CxlFidelity::Rtl ? engine_.get() : nullptr, engine_->max_contributors(),
      [this](int contributors, std::uint64_t lines) {
        start_pending_ = true, start_contributors_ = contributors, start_lines_ = lines;
        doorbell_.notify(sc_core::SC_ZERO_TIME);
      },
      ctx);
  if (!ports.empty()) ports[0]->io = csr_.get();
  const std::uint32_t config_bits = (bf16_ ? 1u << 8 : 0u) | (p.ftz ? 1u << 9 : 0u);
  driver_ = std::make_unique<CxlDriver>("driver", p, static_cast<std::uint32_t>(line_bytes()), config_bits, ctx,
                                        ctx.trace.enabled() ? ctx.trace.track(node, "cxl driver") : -1);
  SC_HAS_PROCESS(CxlDevice);
  SC_THREAD(run);
}

void CxlDevice::set_host_paths(const Route* to_device, const Route* to_host, std::uint32_t flow,
                               std::int64_t rc_latency_ps) {
  driver_->set_path(to_device, flow, rc_latency_ps);
  csr_->set_host_path(ports.at(0).get(), to_host, flow);
}

std::uint64_t CxlDevice::calibrated_cycles(int contributors, std::uint64_t lines) {
  auto it = fit_.find(contributors);
  if (it == fit_.end()) {
    // Two runs of the real RTL; the engine's cycles are affine in the line count.
    const std::uint64_t l1 = 16, l2 = 80;
    RtlJob a{contributors, l1, bf16_, p_.ftz}, b{contributors, l2, bf16_, p_.ftz};
    double c1 = static_cast<double>(engine_->run(a).cycles), c2 = static_cast<double>(engine_->run(b).cycles);
    double slope = (c2 - c1) / static_cast<double>(l2 - l1);
    it = fit_.emplace(contributors, std::make_pair(slope, c1 - slope * static_cast<double>(l1))).first;
  }
  return static_cast<std::uint64_t>(std::llround(it->second.first * static_cast<double>(lines) + it->second.second));
}

// Synthetic gradient values: deterministic in (seed, job, contributor, element), spread over a few
// binades around 1e-3 with both signs, as gradients are; bf16 takes the upper half of the fp32.
static std::uint32_t synthetic(std::uint64_t seed, std::uint64_t job, std::uint64_t contributor, std::uint64_t i,
                               bool bf16) {
  const std::uint64_t z = splitmix64_mix(seed * kGoldenGamma ^ (job << 40) ^ (contributor << 32) ^ i);
  std::uint32_t sign = static_cast<std::uint32_t>(z >> 63) << 31;
  std::uint32_t exponent = 117 + static_cast<std::uint32_t>((z >> 40) % 8);  // 2^-10 .. 2^-3
  std::uint32_t bits = sign | (exponent << 23) | static_cast<std::uint32_t>(z & 0x7FFFFF);
  return bf16 ? bits >> 16 : bits;
}

void CxlDevice::check_functional(int contributors, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                                 const std::vector<std::uint32_t>& result) {
  const std::size_t lanes = static_cast<std::size_t>(engine_->lanes());
  std::vector<std::uint32_t> expected(lanes);
  for (std::uint64_t l = 0; l < lines && failure_.empty(); ++l) {
    std::vector<const std::uint32_t*> in;
    for (int c = 0; c < contributors; ++c) in.push_back(&data[(static_cast<std::size_t>(c) * lines + l) * lanes]);
    reduce_line(bf16_ ? DType::BF16 : DType::FP32, in, lanes, expected.data(), p_.ftz);
    for (std::size_t w = 0; w < lanes; ++w)
      if (result[l * lanes + w] != expected[w]) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "%s: functional check failed in job %llu, line %llu, lane %zu: engine 0x%08x, reference 0x%08x",
                      name(), static_cast<unsigned long long>(stats_.jobs), static_cast<unsigned long long>(l), w,
                      result[l * lanes + w], expected[w]);
        failure_ = buf;
        return;
      }
    ++lines_checked_;
  }
}

std::vector<unsigned char>& CxlDevice::slot(int collective, int slot, std::uint64_t end) {
  std::vector<unsigned char>& v = window_[{collective, slot}];
  if (v.size() < end) v.resize(end);
  return v;
}

void CxlDevice::window_write(const ChunkExt& c, std::uint64_t o, const unsigned char* in) {
  c.data->pieces(o, c.payload_bytes, [&](std::uint64_t addr, std::uint64_t at, std::uint64_t n) {
    std::copy(in + (at - o), in + (at - o) + n,
              slot(c.collective, c.data->dst_slot, addr + n).begin() + static_cast<std::ptrdiff_t>(addr));
  });
}

void CxlDevice::window_read(const ChunkExt& c, std::uint64_t o, unsigned char* out) {
  c.data->pieces(o, c.payload_bytes, [&](std::uint64_t addr, std::uint64_t at, std::uint64_t n) {
    const auto& v = slot(c.collective, c.data->src_slot, addr + n);
    std::copy(v.begin() + static_cast<std::ptrdiff_t>(addr), v.begin() + static_cast<std::ptrdiff_t>(addr + n),
              out + (at - o));
  });
}

void CxlDevice::release(int collective) {
  for (auto it = window_.lower_bound({collective, INT32_MIN}); it != window_.end() && it->first.first == collective;)
    it = window_.erase(it);
}

// A job on window data: the contributions of [offset, offset + bytes) from the job's slots, in
// contributor order, go through the engine (the Verilated RTL in rtl fidelity, checked against the
// reference model there; the reference model in calibrated) and the sums go to slot kSlotAcc.
std::uint64_t CxlDevice::reduce_window(const Job& job, std::uint64_t lines) {
  const std::size_t lanes = static_cast<std::size_t>(engine_->lanes()), esize = bf16_ ? 2 : 4;
  const std::uint64_t elements = job.bytes / esize, off = job.data.offset;
  const int n = job.contributors;
  std::vector<std::uint32_t> data(static_cast<std::size_t>(n) * lines * lanes, 0), result;
  for (int c = 0; c < n; ++c) {
    const auto& v = slot(job.data.collective, job.data.slots[static_cast<std::size_t>(c)], off + job.bytes);
    for (std::uint64_t i = 0; i < elements; ++i)
      std::memcpy(&data[static_cast<std::size_t>(c) * lines * lanes + i], &v[off + i * esize], esize);
  }
  const std::uint64_t cycles = reduce_lines(n, lines, data, result);
  if (p_.fidelity == CxlFidelity::Rtl) check_functional(n, lines, data, result);
  if (flip_bit_ >= 0 && flip_element_ < elements) {
    result[flip_element_] ^= 1u << flip_bit_;
    flip_bit_ = -1;
  }
  auto& acc = slot(job.data.collective, kSlotAcc, off + job.bytes);
  for (std::uint64_t i = 0; i < elements; ++i) std::memcpy(&acc[off + i * esize], &result[i], esize);
  return cycles;
}

std::uint64_t CxlDevice::engine_cycles(const Job& j, std::uint64_t lines) {
  if (j.data.collective >= 0) return reduce_window(j, lines);
  const int contributors = j.contributors;
  if (functional_) {
    // Inputs of this job, contributor-major, one 32-bit word per lane.
    const std::size_t lanes = static_cast<std::size_t>(engine_->lanes());
    std::vector<std::uint32_t> data(static_cast<std::size_t>(contributors) * lines * lanes), result;
    for (int c = 0; c < contributors; ++c)
      for (std::size_t i = 0; i < lines * lanes; ++i)
        data[static_cast<std::size_t>(c) * lines * lanes + i] =
            synthetic(seed_, stats_.jobs, static_cast<std::uint64_t>(c), i, bf16_);
    const std::uint64_t cycles = reduce_lines(contributors, lines, data, result);
    check_functional(contributors, lines, data, result);
    return cycles;
  }
  if (p_.fidelity == CxlFidelity::Calibrated) return calibrated_cycles(contributors, lines);
  RtlJob job{contributors, lines, bf16_, p_.ftz};
  return run_rtl(job);
}

// The sums of `lines` lines of n contributions (contributor-major, a word per lane): the Verilated
// engine's in rtl fidelity, the reference model's in calibrated fidelity (with the fit's cycles).
std::uint64_t CxlDevice::reduce_lines(int n, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                                      std::vector<std::uint32_t>& result) {
  if (p_.fidelity == CxlFidelity::Rtl) return run_rtl(RtlJob{n, lines, bf16_, p_.ftz, &data, &result});
  const std::size_t lanes = static_cast<std::size_t>(engine_->lanes());
  result.resize(lines * lanes);
  for (std::uint64_t l = 0; l < lines; ++l) {
    std::vector<const std::uint32_t*> in;
    for (int c = 0; c < n; ++c) in.push_back(&data[(static_cast<std::size_t>(c) * lines + l) * lanes]);
    reduce_line(bf16_ ? DType::BF16 : DType::FP32, in, lanes, &result[l * lanes], p_.ftz);
  }
  return calibrated_cycles(n, lines);
}

std::uint64_t CxlDevice::run_rtl(const RtlJob& programmed) {
  // Waveforms cover the jobs that start in the window.
  const std::int64_t now = now_ps();
  const bool dump = waves_to_ps_ < 0 ? now >= waves_from_ps_ : (now >= waves_from_ps_ && now <= waves_to_ps_);
  engine_->trace_window(dump, static_cast<std::uint64_t>(now));
  RtlJob job = programmed;
  job.program = false;  // the driver's MMIO wrote CONFIG and LEN
  std::uint64_t cycles = engine_->run(job).cycles;
  engine_->trace_window(false, 0);
  return cycles;
}

void CxlDevice::reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData data) {
  if (contributors > engine_->max_contributors())
    throw RunError(std::string(name()) + ": " + std::to_string(contributors) +
                   " contributors, the engine takes at most " + std::to_string(engine_->max_contributors()));
  const std::uint64_t lines = (bytes + line_bytes() - 1) / line_bytes();
  submitted_.push_back({bytes, contributors, std::move(data)});
  driver_->submit({lines, contributors, [this, bytes, contributors, done = std::move(done)] {
                     stats_.bytes += bytes * static_cast<std::uint64_t>(contributors);
                     done();
                   }});
}

// A job starts when its doorbell (CTRL.START) has reached the CSRs, with what the driver wrote.
void CxlDevice::run() {
  for (;;) {
    while (!start_pending_) wait(doorbell_);
    start_pending_ = false;
    const int contributors = start_contributors_;
    const std::uint64_t lines = start_lines_;
    const std::int64_t t0 = now_ps();
    if (submitted_.empty()) throw RunError(std::string(name()) + ": a doorbell without a submitted job");
    const Job job = std::move(submitted_.front());
    submitted_.pop_front();
    if (contributors != job.contributors || lines != (job.bytes + line_bytes() - 1) / line_bytes())
      throw RunError(std::string(name()) + ": the CSRs the driver wrote do not describe the job it submitted");
    const std::uint64_t cycles = engine_cycles(job, lines);
    const double engine_ps = static_cast<double>(cycles) * 1e12 / p_.rtl_clock_hz;
    // Reduced lines stream into device memory as they leave the engine; the slower of the two sets the pace.
    const double mem_ps = static_cast<double>(lines * line_bytes()) * 8.0 / p_.mem_bw * 1e12;
    const double total = std::max(engine_ps, mem_ps) + static_cast<double>(p_.mem_latency_ps);
    if (!failure_.empty()) {  // the run cannot be trusted past a wrong sum: stop it
      sc_core::sc_stop();
      return;
    }
    wait(sc_time(std::round(total), SC_PS));
    ++stats_.jobs;
    stats_.lines += lines;
    stats_.engine_cycles += cycles;
    const std::int64_t t1 = now_ps();
    stats_.busy_ps += t1 - t0;
    ++ctx_.events;
    if (track_ >= 0)
      ctx_.trace.slice(track_, "reduce", "cxl", t0, t1,
                       {{"lines", lines}, {"contributors", contributors}, {"cycles", cycles}});
    csr_->job_done();
  }
}

}  // namespace trainvp
