#include "models/cxl/cxl_csr.hpp"

#include <algorithm>

#include "platform/core/errors.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {
constexpr std::uint32_t kSlots = 4;                             // SLOTS of the compiled variants
constexpr std::uint32_t kErrCfg = 1u << 4, kErrBusy = 1u << 5;  // ERROR bits
// Calibrated fidelity: the RTL's write mask of a register (0: not writable here).
std::uint32_t write_mask(std::uint32_t offset) {
  if (offset == csr::kConfig) return 0x3FF;  // NUM_CONTRIB, DTYPE, FTZ
  if (offset == csr::kIrqEn) return 0x3;
  for (std::uint32_t s = 0; s < kSlots; ++s) {
    if (offset == csr::len(s)) return 0x1FFFFFF;  // IDX_W + 1 bits
    if (offset == csr::base_lo(s) || offset == csr::base_hi(s)) return 0xFFFFFFFF;
  }
  return 0;
}
bool locked_while_running(std::uint32_t offset) { return offset != csr::kIrqEn && offset != csr::kError; }
}  // namespace

CxlCsrTarget::CxlCsrTarget(sc_core::sc_module_name name, RtlEngine* rtl, int max_contributors, Start on_start,
                           RunContext& ctx)
    : sc_module(name),
      rtl_(rtl),
      max_contributors_(max_contributors),
      on_start_(std::move(on_start)),
      ctx_(ctx),
      tails_("tails") {
  regs_[csr::kConfig] = static_cast<std::uint32_t>(max_contributors);  // reset: NUM_CONTRIB = MAX_CONTRIBUTORS
  SC_HAS_PROCESS(CxlCsrTarget);
  SC_METHOD(on_tail);
  sensitive << tails_.get_event();
  dont_initialize();
}

void CxlCsrTarget::set_host_path(ChunkEndpoint* port, const Route* to_host, std::uint32_t flow) {
  port_ = port, to_host_ = to_host, flow_ = flow;
}

void CxlCsrTarget::receive(tlm::tlm_generic_payload& p) {
  const std::int64_t now = now_ps();
  const std::int64_t wait = std::max<std::int64_t>(0, chunk_of(p)->tail_ps - now);
  tails_.notify(p, ps_time(wait));
}

void CxlCsrTarget::on_tail() {
  while (tlm::tlm_generic_payload* p = tails_.get_next_transaction()) {
    CxlIoExt* io = cxl_io_of(*p);
    ++ctx_.events;
    if (io->kind == CxlIoExt::Write) {
      ++stats_.writes;
      write(io->offset, io->value);
    } else if (io->kind == CxlIoExt::Read) {
      ++stats_.reads;
      send(CxlIoExt::Completion, io->offset, read(io->offset));
    } else {
      throw RunError(std::string(name()) + ": a completion or MSI addressed to the device");
    }
    p->release();  // the sender's reference
  }
}

void CxlCsrTarget::send(CxlIoExt::Kind kind, std::uint32_t offset, std::uint32_t value) {
  if (!port_ || !to_host_) throw RunError(std::string(name()) + ": no path to the host");
  port_->send_chunk(make_tlp(pool_, *to_host_, flow_, kind, offset, value));
}

std::uint32_t CxlCsrTarget::read(std::uint32_t offset) {
  // The RTL ran the job at the doorbell; in simulated time it is still running.
  if (offset == csr::kStatus && running_) return csr::kRunning;
  if (rtl_) return rtl_->read_csr(offset);
  if (offset == csr::kStatus) return (done_ ? csr::kDone : 0) | csr::kIdle;
  if (offset == csr::kId) return csr::kIdValue;
  auto it = regs_.find(offset);
  return it == regs_.end() ? 0 : it->second;
}

void CxlCsrTarget::write(std::uint32_t offset, std::uint32_t value) {
  if (offset == csr::kCtrl) {
    if (value & csr::kDoneClr) {
      done_ = false;
      if (rtl_ && !running_) rtl_->write_csr(csr::kCtrl, csr::kDoneClr);
    }
    if (value & csr::kStart) start();
    return;  // ABORT is not modelled: a job, once started, runs to its end
  }
  if (running_ && locked_while_running(offset)) {  // the RTL ignores it and flags BUSY
    if (!rtl_ && write_mask(offset)) regs_[csr::kError] |= kErrBusy;
    return;
  }
  if (rtl_) {
    rtl_->write_csr(offset, value);
  } else if (offset == csr::kError) {
    regs_[csr::kError] &= ~value;  // write ones to clear
  } else if (std::uint32_t mask = write_mask(offset)) {
    regs_[offset] = value & mask;
  }
}

void CxlCsrTarget::start() {
  if (running_) {
    if (!rtl_) regs_[csr::kError] |= kErrBusy;
    return;
  }
  const int contributors = static_cast<int>(read(csr::kConfig) & 0xFF);
  const std::uint64_t lines = read(csr::len(0));
  std::uint64_t others = 0;
  for (std::uint32_t s = 1; s < kSlots; ++s) others += read(csr::len(s));
  if (contributors < 1 || contributors > max_contributors_ || lines + others == 0) {
    // Not started: ERROR.CFG, as the RTL does.
    if (rtl_) rtl_->write_csr(csr::kCtrl, csr::kStart);
    else regs_[csr::kError] |= kErrCfg;
    return;
  }
  if (others) throw RunError(std::string(name()) + ": a job on slots other than 0 (the device feeds slot 0 only)");
  running_ = true;
  done_ = false;
  on_start_(contributors, lines);
}

void CxlCsrTarget::job_done() {
  running_ = false;
  done_ = true;
  const bool irq = rtl_ ? rtl_->irq() : (read(csr::kIrqEn) & csr::kIrqDone) != 0;
  if (irq) {
    ++stats_.msis;
    send(CxlIoExt::Msi, 0, 0);
  }
}

}  // namespace trainvp
