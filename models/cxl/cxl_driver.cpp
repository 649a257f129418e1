#include "models/cxl/cxl_driver.hpp"

#include <algorithm>

#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

using sc_core::SC_PS;
using sc_core::sc_time;

namespace {
sc_time ps(std::int64_t v) { return ps_time(v); }
// Result buffers in device memory: a ring the driver hands out job by job (the address is
// programmed into BASE; it does not change timing).
constexpr std::uint64_t kResultBase = kHdmBase, kResultRing = 1ull << 30;  // at the start of the HDM range
}  // namespace

CxlDriver::CxlDriver(sc_core::sc_module_name name, const CxlParams& p, std::uint32_t line_bytes,
                     std::uint32_t config_bits, RunContext& ctx, int track)
    : sc_module(name),
      mmio("mmio"),
      host("host"),
      p_(p),
      line_bytes_(line_bytes),
      config_bits_(config_bits),
      ctx_(ctx),
      track_(track),
      out_("mmio_peq", pool_,
           [this](int i, tlm::tlm_generic_payload& q, tlm::tlm_phase& ph, sc_time& t) {
             return mmio[i]->nb_transport_fw(q, ph, t);
           }),
      arrivals_("arrivals") {
  mmio.register_nb_transport_bw(this, &CxlDriver::nb_transport_bw);
  host.register_nb_transport_fw(this, &CxlDriver::nb_transport_fw);
  SC_HAS_PROCESS(CxlDriver);
  SC_THREAD(run);
  SC_METHOD(on_arrival);
  sensitive << arrivals_.get_event();
  dont_initialize();
  SC_THREAD(mem_run);  // started by the first access only: runs without CXL.mem see no new process run
  sensitive << mem_wake_;
  dont_initialize();
}

void CxlDriver::set_path(const Route* to_device, std::uint32_t flow, std::int64_t rc_latency_ps) {
  to_device_ = to_device, flow_ = flow, rc_latency_ps_ = rc_latency_ps;
}

void CxlDriver::submit(Job job) {
  queue_.push_back(std::move(job));
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void CxlDriver::set_mem_paths(std::vector<const Route*> to_ports, std::uint32_t flow) {
  mem_to_ = std::move(to_ports), mem_flow_ = flow;
}

void CxlDriver::mem_access(MemAccess a) {
  mem_queue_.push_back(std::move(a));
  mem_wake_.notify(sc_core::SC_ZERO_TIME);
}

void CxlDriver::mem_run() {
  for (;;) {
    while (mem_queue_.empty()) wait(mem_wake_);
    MemAccess a = std::move(mem_queue_.front());
    mem_queue_.pop_front();
    if (a.at_ps > now_ps()) wait(ps(a.at_ps - now_ps()));
    std::vector<unsigned char> buf = std::move(a.data);
    const bool bytes = a.write ? !buf.empty() : a.carry;
    transfer(a.write, a.addr, a.bytes, bytes ? &buf : nullptr);
    if (a.write) buf.clear();  // a store answers with no data
    if (a.done) a.done(now_ps(), buf);
  }
}

// Requests leave back to back, a message per run of up to kMemGroupLines lines in one interleave
// stripe, each to the port the HDM decoder names, while the lines in flight fit mem_outstanding.
void CxlDriver::transfer(bool write, std::uint64_t addr, std::uint64_t bytes, std::vector<unsigned char>* buf) {
  if (mem_to_.empty()) throw RunError(std::string(name()) + ": no CXL.mem path to the device");
  if (addr < kHdmBase || addr % kCacheLine || bytes % kCacheLine || bytes == 0)
    throw RunError(std::string(name()) + ": a CXL.mem access must be whole 64-byte lines of the HDM range");
  if (buf && buf->size() < bytes) buf->resize(bytes);
  const std::uint64_t id = ++next_access_;
  transfers_[id] = {addr, bytes / kCacheLine, buf};
  const std::int64_t t0 = now_ps();
  const std::uint64_t group =
      std::min<std::uint64_t>(kMemGroupLines, static_cast<std::uint64_t>(p_.mem_outstanding)) * kCacheLine;
  const int ways = static_cast<int>(mem_to_.size());
  for (std::uint64_t a = addr; a < addr + bytes;) {
    const std::uint64_t end =
        std::min({addr + bytes, a + group, (a / (kMemGroupLines * kCacheLine) + 1) * (kMemGroupLines * kCacheLine)});
    const auto lines = static_cast<std::uint32_t>((end - a) / kCacheLine);
    while (inflight_lines_ + lines > static_cast<std::uint64_t>(p_.mem_outstanding)) wait(mem_ev_);
    const int port = hdm_port(a, p_.interleave_granularity, ways);
    std::vector<unsigned char> data;
    if (write && buf)
      data.assign(buf->begin() + static_cast<std::ptrdiff_t>(a - addr),
                  buf->begin() + static_cast<std::ptrdiff_t>(end - addr));
    tlm::tlm_generic_payload* p =
        make_mem_message(mem_pool_, *mem_to_[static_cast<std::size_t>(port)], mem_flow_,
                         write ? CxlMemExt::MemWr : CxlMemExt::MemRd, a, lines, id, port, std::move(data));
    cxl_mem_of(*p)->carry = !write && buf;
    inflight_lines_ += lines;
    out_.send(mem_to_[static_cast<std::size_t>(port)]->ports[0], p, nullptr);  // the device releases it
    a = end;
  }
  while (transfers_.at(id).lines_left > 0) wait(mem_ev_);
  transfers_.erase(id);
  (write ? stats_.mem_writes : stats_.mem_reads) += bytes / kCacheLine;
  stats_.mem_bytes += bytes;
  stats_.mem_ps += now_ps() - t0;
}

void CxlDriver::on_mem_answer(const CxlMemExt& m) {
  Transfer& t = transfers_.at(m.access);
  if (t.buf && m.op == CxlMemExt::MemData && !m.data.empty())
    std::copy(m.data.begin(), m.data.end(), t.buf->begin() + static_cast<std::ptrdiff_t>(m.addr - t.addr));
  t.lines_left -= m.lines;
  inflight_lines_ -= m.lines;
  mem_ev_.notify();
}

tlm::tlm_sync_enum CxlDriver::nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time& t) {
  return out_.nb_transport_bw(i, p, ph, t);
}

// A TLP from the device reached the root complex; the CPU has it one root-complex forwarding
// latency after its tail did.
tlm::tlm_sync_enum CxlDriver::nb_transport_fw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_time&) {
  if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
  if (!cxl_io_of(p) && !cxl_mem_of(p))
    throw RunError(std::string(name()) + ": only CXL.io TLPs and CXL.mem answers are addressed to the host");
  const std::int64_t at = std::max(chunk_of(p)->tail_ps, now_ps()) + rc_latency_ps_;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  arrivals_.notify(p, ps(at - now_ps()));
  return tlm::TLM_COMPLETED;
}

void CxlDriver::on_arrival() {
  while (tlm::tlm_generic_payload* p = arrivals_.get_next_transaction()) {
    ++ctx_.events;
    if (const CxlMemExt* m = cxl_mem_of(*p)) {
      if (m->op != CxlMemExt::MemData && m->op != CxlMemExt::Cmp)
        throw RunError(std::string(name()) + ": a CXL.mem request addressed to the host");
      on_mem_answer(*m);
      p->release();  // the sender's reference
      continue;
    }
    CxlIoExt* io = cxl_io_of(*p);
    if (io->kind == CxlIoExt::Msi) {
      ++stats_.msis;
      ++msis_pending_;
      msi_ev_.notify();
    } else if (io->kind == CxlIoExt::Completion) {
      completion_pending_ = true;
      completion_value_ = io->value;
      completion_ev_.notify();
    } else {
      throw RunError(std::string(name()) + ": a request TLP addressed to the host");
    }
    p->release();  // the sender's reference
  }
}

// Posted: the TLP leaves now; ordering behind the earlier ones is kept by their common flow.
void CxlDriver::post(CxlIoExt::Kind kind, std::uint32_t offset, std::uint32_t value) {
  if (!to_device_) throw RunError(std::string(name()) + ": no path to the device");
  tlm::tlm_generic_payload* p = make_tlp(pool_, *to_device_, flow_, kind, offset, value);
  out_.send(to_device_->ports[0], p, nullptr);  // our reference goes with it: the device releases it
}

std::uint32_t CxlDriver::read(std::uint32_t offset) {
  wait(ps(p_.mmio_latency_ps));
  ++stats_.mmio_reads;
  completion_pending_ = false;
  post(CxlIoExt::Read, offset, 0);
  while (!completion_pending_) wait(completion_ev_);
  completion_pending_ = false;
  return completion_value_;
}

void CxlDriver::run() {
  auto write = [this](std::uint32_t offset, std::uint32_t value) {
    wait(ps(p_.mmio_latency_ps));
    ++stats_.mmio_writes;
    written_[offset] = value;
    post(CxlIoExt::Write, offset, value);
  };
  // Probe: interrupts on completion, once.
  if (p_.completion == CxlCompletion::Interrupt) write(csr::kIrqEn, csr::kIrqDone);
  for (;;) {
    while (queue_.empty()) wait(wake_);
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const std::int64_t t0 = now_ps();
    const std::uint64_t base = kResultBase + next_base_;
    next_base_ = (next_base_ + job.lines * line_bytes_) % kResultRing;
    write(csr::kConfig, static_cast<std::uint32_t>(job.contributors) | config_bits_);
    write(csr::len(0), static_cast<std::uint32_t>(job.lines));
    write(csr::base_lo(0), static_cast<std::uint32_t>(base));
    write(csr::base_hi(0), static_cast<std::uint32_t>(base >> 32));
    write(csr::kCtrl, csr::kStart);  // the doorbell
    const std::int64_t t_db = now_ps();
    std::int64_t t_seen_by = t_db;  // when the completion reached the CPU
    if (p_.completion == CxlCompletion::Interrupt) {
      while (msis_pending_ == 0) wait(msi_ev_);
      --msis_pending_;
      t_seen_by = now_ps();
      wait(ps(p_.completion_latency_ps));  // interrupt handling
    } else {
      // A read at every tick of the poll period after the doorbell; ticks that pass while a read
      // is outstanding (the CPU waits on it) are skipped.
      const std::int64_t period = p_.completion_latency_ps;
      std::int64_t k = 1;
      for (;;) {
        if (period > 0) {
          k = std::max(k, (now_ps() - t_db + period - 1) / period);
          const std::int64_t tick = t_db + k * period;
          ++k;
          if (tick > now_ps()) wait(ps(tick - now_ps()));
        }
        if (read(csr::kStatus) & csr::kDone) break;
      }
      t_seen_by = now_ps();
    }
    const std::int64_t t1 = now_ps();
    ++stats_.jobs;
    stats_.busy_ps += t1 - t0;
    if (track_ >= 0) {
      ctx_.trace.slice(track_, "program", "cxl", t0, t_db, {{"lines", job.lines}, {"contributors", job.contributors}});
      ctx_.trace.slice(track_, p_.completion == CxlCompletion::Interrupt ? "wait msi" : "poll", "cxl", t_db, t_seen_by,
                       {});
      if (t1 > t_seen_by) ctx_.trace.slice(track_, "irq handler", "cxl", t_seen_by, t1, {});
    }
    if (p_.readback) {  // the result's lines, loaded over CXL.mem
      const std::uint64_t from = base / kCacheLine * kCacheLine,
                          to = (base + job.lines * line_bytes_ + kCacheLine - 1) / kCacheLine * kCacheLine;
      std::vector<unsigned char> bytes;
      transfer(false, from, to - from, job.readback_data ? &bytes : nullptr);
      if (track_ >= 0) ctx_.trace.slice(track_, "readback", "cxl", t1, now_ps(), {{"bytes", to - from}});
      if (job.readback_data && on_readback) on_readback(base, from, bytes);
    }
    job.done();
  }
}

}  // namespace trainvp
