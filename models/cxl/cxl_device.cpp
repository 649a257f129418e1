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
  if (cxl_mem_of(p)) {  // a host load or store to device memory
    device_.mem_request(p);
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
      waves_to_ps_(waves_to_ps),
      mem_tails_("mem_tails"),
      mem_ready_("mem_ready") {
  engine_ = make_rtl_engine(p.engine_lanes, waves.format);
  if (!waves.path.empty()) engine_->trace_to(waves, 1e12 / p.rtl_clock_hz);
  for (int i = 0; i < nports; ++i) {
    ports.push_back(std::make_unique<CxlPort>(("p" + std::to_string(i)).c_str(), *this));
    ports.back()->index = i;
  }
  port_mem_bytes_.assign(static_cast<std::size_t>(nports), 0);
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
  driver_->on_readback = [this](std::uint64_t base, std::uint64_t addr, const std::vector<unsigned char>& bytes) {
    check_readback(base, addr, bytes);
  };
  SC_HAS_PROCESS(CxlDevice);
  SC_THREAD(run);
  SC_METHOD(on_mem_tail);
  sensitive << mem_tails_.get_event();
  dont_initialize();
  SC_METHOD(on_mem_ready);
  sensitive << mem_ready_.get_event();
  dont_initialize();
}

void CxlDevice::set_mem_paths(std::vector<const Route*> to_ports, std::vector<const Route*> to_host,
                              std::uint32_t flow) {
  driver_->set_mem_paths(std::move(to_ports), flow);
  mem_to_host_ = std::move(to_host);
  mem_flow_ = flow;
}

void CxlDevice::mem_request(tlm::tlm_generic_payload& p) {
  const CxlMemExt* m = cxl_mem_of(p);
  if (m->op != CxlMemExt::MemRd && m->op != CxlMemExt::MemWr)
    throw RunError(std::string(name()) + ": a CXL.mem answer addressed to the device");
  mem_tails_.notify(p, ps_time(std::max<std::int64_t>(0, chunk_of(p)->tail_ps - now_ps())));
}

// The request is in: a store's bytes go to memory at once (a later load sees them); device memory
// serves the lines at mem_bw, one request after another, and the answer leaves mem_latency after
// its lines are through.
void CxlDevice::on_mem_tail() {
  while (tlm::tlm_generic_payload* p = mem_tails_.get_next_transaction()) {
    const CxlMemExt* m = cxl_mem_of(*p);
    ++ctx_.events;
    const std::uint64_t bytes = static_cast<std::uint64_t>(m->lines) * kCacheLine;
    if (m->op == CxlMemExt::MemWr && !m->data.empty()) hdm_write(m->addr, m->data.data(), bytes);
    const std::int64_t now = now_ps();
    const std::int64_t start = std::max(now, mem_free_ps_);
    mem_free_ps_ = start + round_ps(static_cast<double>(bytes) * 8.0 / p_.mem_bw * 1e12);
    port_mem_bytes_.at(static_cast<std::size_t>(m->port)) += bytes;
    mem_ready_.notify(*p, ps_time(mem_free_ps_ + p_.mem_latency_ps - now));
  }
}

void CxlDevice::on_mem_ready() {
  while (tlm::tlm_generic_payload* p = mem_ready_.get_next_transaction()) {
    const CxlMemExt* m = cxl_mem_of(*p);
    const auto port = static_cast<std::size_t>(m->port);
    if (port >= mem_to_host_.size()) throw RunError(std::string(name()) + ": no CXL.mem path to the host");
    std::vector<unsigned char> data;
    if (m->op == CxlMemExt::MemRd && m->carry) {
      data.resize(static_cast<std::size_t>(m->lines) * kCacheLine);
      hdm_read(m->addr, data.data(), data.size());
    }
    tlm::tlm_generic_payload* r = make_mem_message(mem_pool_, *mem_to_host_[port], mem_flow_,
                                                   m->op == CxlMemExt::MemRd ? CxlMemExt::MemData : CxlMemExt::Cmp,
                                                   m->addr, m->lines, m->access, m->port, std::move(data));
    p->release();  // the sender's reference
    ports[port]->send_chunk(r);
  }
}

namespace {
constexpr std::uint64_t kHdmPage = 4096;
}

void CxlDevice::hdm_write(std::uint64_t addr, const unsigned char* in, std::uint64_t n) {
  for (std::uint64_t o = addr - kHdmBase, end = o + n; o < end;) {
    const std::uint64_t page = o / kHdmPage, at = o % kHdmPage, take = std::min(kHdmPage - at, end - o);
    std::vector<unsigned char>& v = hdm_[page];
    if (v.empty()) v.assign(kHdmPage, 0);
    std::copy(in, in + take, v.begin() + static_cast<std::ptrdiff_t>(at));
    in += take, o += take;
  }
}

void CxlDevice::hdm_read(std::uint64_t addr, unsigned char* out, std::uint64_t n) const {
  for (std::uint64_t o = addr - kHdmBase, end = o + n; o < end;) {
    const std::uint64_t page = o / kHdmPage, at = o % kHdmPage, take = std::min(kHdmPage - at, end - o);
    auto it = hdm_.find(page);
    if (it == hdm_.end()) std::fill(out, out + take, 0);
    else
      std::copy(it->second.begin() + static_cast<std::ptrdiff_t>(at),
                it->second.begin() + static_cast<std::ptrdiff_t>(at + take), out);
    out += take, o += take;
  }
}

void CxlDevice::keep_result(int n, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                            const std::vector<std::uint32_t>& result) {
  const std::size_t lanes = static_cast<std::size_t>(engine_->lanes()), esize = bf16_ ? 2 : 4;
  std::vector<std::uint32_t> expected(lines * lanes);
  for (std::uint64_t l = 0; l < lines; ++l) {
    std::vector<const std::uint32_t*> in;
    for (int c = 0; c < n; ++c) in.push_back(&data[(static_cast<std::size_t>(c) * lines + l) * lanes]);
    reduce_line(bf16_ ? DType::BF16 : DType::FP32, in, lanes, &expected[l * lanes], p_.ftz);
  }
  job_result_.assign(lines * lanes * esize, 0);
  job_expected_.assign(lines * lanes * esize, 0);
  for (std::size_t i = 0; i < lines * lanes; ++i) {
    std::memcpy(&job_result_[i * esize], &result[i], esize);
    std::memcpy(&job_expected_[i * esize], &expected[i], esize);
  }
}

void CxlDevice::check_readback(std::uint64_t base, std::uint64_t addr, const std::vector<unsigned char>& bytes) {
  auto it = expected_.find(base);
  if (it == expected_.end()) return;
  const std::vector<unsigned char>& want = it->second;
  const std::uint64_t skip = base - addr;
  if (keep_readbacks_)
    readbacks_.emplace_back(bytes.begin() + static_cast<std::ptrdiff_t>(skip),
                            bytes.begin() + static_cast<std::ptrdiff_t>(skip + want.size()));
  for (std::size_t i = 0; i < want.size() && failure_.empty(); ++i)
    if (bytes[skip + i] != want[i]) {
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "%s: CXL.mem read-back of the result at 0x%llx differs from the reference sums at byte %zu "
                    "(line %zu): read 0x%02x, reference 0x%02x",
                    name(), static_cast<unsigned long long>(base), i, static_cast<std::size_t>((skip + i) / kCacheLine),
                    bytes[skip + i], want[i]);
      failure_ = buf;
      sc_core::sc_stop();
    }
  if (failure_.empty()) mem_lines_checked_ += bytes.size() / kCacheLine;
  expected_.erase(it);
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
std::uint32_t cxl_synthetic(std::uint64_t seed, std::uint64_t job, std::uint64_t contributor, std::uint64_t i,
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
  if (p_.readback) keep_result(n, lines, data, result);
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
            cxl_synthetic(seed_, stats_.jobs, static_cast<std::uint64_t>(c), i, bf16_);
    const std::uint64_t cycles = reduce_lines(contributors, lines, data, result);
    check_functional(contributors, lines, data, result);
    if (p_.readback) keep_result(contributors, lines, data, result);
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
  const bool with_data = p_.readback && (data.collective >= 0 || functional_);
  submitted_.push_back({bytes, contributors, std::move(data)});
  driver_->submit({lines, contributors,
                   [this, bytes, contributors, done = std::move(done)] {
                     stats_.bytes += bytes * static_cast<std::uint64_t>(contributors);
                     done();
                   },
                   with_data});
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
    if (!job_result_.empty()) {  // read-back in functional mode: the result goes to device memory at BASE
      const std::uint64_t base = csr_->read(csr::base_lo(0)) | static_cast<std::uint64_t>(csr_->read(csr::base_hi(0)))
                                                                   << 32;
      hdm_write(base, job_result_.data(), job_result_.size());
      expected_[base] = std::move(job_expected_);
      job_result_.clear(), job_expected_.clear();
    }
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
