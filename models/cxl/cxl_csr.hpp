#pragma once
// The device's CXL.io function: the target of the driver's MMIO (posted CSR writes, STATUS reads)
// at the device's port 0, and the source of read completions and MSIs back to the host. In `rtl`
// fidelity the registers are the Verilated engine's CSR block (every write and read is an APB
// access); in `calibrated` fidelity this class holds the same registers, with the RTL's write masks
// and START checks. CTRL.START with a valid configuration hands the job to the device (`on_start`);
// while the job runs in simulated time STATUS reads RUNNING, since the RTL itself ran the job
// ahead, at the doorbell.
#include <cstdint>
#include <functional>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_get.h>

#include "models/cxl/cxl_io.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/link/endpoint.hpp"
#include "platform/core/run_context.hpp"

namespace trainvp {

struct CxlCsrStats {
  std::uint64_t writes = 0, reads = 0, msis = 0;
};

class CxlCsrTarget : public sc_core::sc_module {
 public:
  using Start = std::function<void(int contributors, std::uint64_t lines)>;
  // `rtl`: the engine whose CSR block holds the registers, or null (calibrated fidelity).
  CxlCsrTarget(sc_core::sc_module_name name, RtlEngine* rtl, int max_contributors, Start on_start, RunContext& ctx);

  // Where completions and MSIs leave (port 0) and their route to the host's driver.
  void set_host_path(ChunkEndpoint* port, const Route* to_host, std::uint32_t flow);
  // A TLP's head has reached the port; it is acted on when its tail has.
  void receive(tlm::tlm_generic_payload& p);
  // Register access as the CXL.io function sees it (also for tests and reports).
  std::uint32_t read(std::uint32_t offset);
  void write(std::uint32_t offset, std::uint32_t value);
  // The device's engine finished the job: DONE, and an MSI if IRQ_EN.DONE.
  void job_done();
  const CxlCsrStats& stats() const { return stats_; }

 private:
  void on_tail();
  void send(CxlIoExt::Kind kind, std::uint32_t offset, std::uint32_t value);
  void start();

  RtlEngine* rtl_;
  int max_contributors_;
  Start on_start_;
  RunContext& ctx_;
  bool running_ = false, done_ = false;
  std::map<std::uint32_t, std::uint32_t> regs_;  // calibrated fidelity
  ChunkEndpoint* port_ = nullptr;
  const Route* to_host_ = nullptr;
  std::uint32_t flow_ = 0;
  PayloadPool pool_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> tails_;
  CxlCsrStats stats_;
};

}  // namespace trainvp
