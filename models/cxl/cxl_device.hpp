#pragma once
// A CXL Type-2 device hosting the Verilated gradient-aggregation engine. Its ports are fabric
// endpoints (AT sockets like a GPU's: `dma` sends reduced chunks back and CXL.io TLPs to the host,
// `mem` takes GPUs' writes into the reduction window and, at port 0, the host's MMIO). A reduce
// job is handed to the host's driver (cxl_driver.hpp), which programs the CSRs over CXL.io through
// the fabric (cxl_csr.hpp); the doorbell starts the engine, whose cycles at rtl_clock (simulated
// line by line in "rtl" fidelity, from a start-up calibration of the same RTL in "calibrated"
// fidelity) overlap the result's write to device memory; then DONE, an MSI if enabled, and the
// driver's completion (interrupt or poll) calls the job's `done`.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>

#include <nlohmann/json.hpp>

#include "models/cxl/cxl_csr.hpp"
#include "models/cxl/cxl_driver.hpp"
#include "models/cxl/cxl_mem.hpp"
#include "models/cxl/cxl_params.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "models/link/chunk.hpp"
#include "models/link/endpoint.hpp"
#include "models/workload/dtype.hpp"
#include "platform/core/model_info.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/tlm/at_initiator.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

class CxlDevice;

// Functional collective benchmarks: element i of contributor c's input to job `job` (the device's
// job count), an fp32 pattern (bf16: its upper half) spread over a few binades around 1e-3.
std::uint32_t cxl_synthetic(std::uint64_t seed, std::uint64_t job, std::uint64_t contributor, std::uint64_t i,
                            bool bf16);

class CxlPort : public sc_core::sc_module, public ChunkEndpoint {
 public:
  tlm_utils::multi_passthrough_initiator_socket_optional<CxlPort> dma;
  tlm_utils::multi_passthrough_target_socket_optional<CxlPort> mem;

  CxlPort(sc_core::sc_module_name name, CxlDevice& device);
  void send_chunk(tlm::tlm_generic_payload* chunk) override;
  const char* endpoint_name() const override { return name(); }
  void end_of_elaboration() override { dma_engine_.reserve_ports(dma.size()); }
  std::uint64_t bytes_in() const { return bytes_in_; }
  int index = 0;               // among the device's ports
  CxlCsrTarget* io = nullptr;  // the CXL.io function, at port 0

 private:
  tlm::tlm_sync_enum nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_fw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  CxlDevice& device_;
  PayloadPool pool_;
  AtInitiator dma_engine_;
  std::uint64_t bytes_in_ = 0;
};

struct CxlStats {
  std::uint64_t jobs = 0, lines = 0, bytes = 0, engine_cycles = 0;
  std::int64_t busy_ps = 0;
};

class CxlDevice : public sc_core::sc_module, public ReduceDevice {
 public:
  // `dtype` is the gradients' (fp32 or bf16); waves: the file (path "" for none), its format and
  // size cap, and the window of simulated time whose jobs it records.
  CxlDevice(sc_core::sc_module_name name, const CxlParams& p, int ports, DType dtype, RunContext& ctx,
            const WaveOptions& waves = {}, std::int64_t waves_from_ps = 0, std::int64_t waves_to_ps = -1);
  // Whether the waveform file reached its size cap, and when.
  const WaveStatus& wave_status() const { return engine_->wave_status(); }

  std::vector<std::unique_ptr<CxlPort>> ports;

  void reduce(std::uint64_t bytes, int contributors, std::function<void()> done, ReduceData data = {}) override;
  void release(int collective) override;
  // The reduction window (functional training mode): chunks write their bytes into it as they
  // arrive at a port and read them from it as a port sends them; slots as in DataRange.
  void window_write(const ChunkExt& c, std::uint64_t o, const unsigned char* in);
  void window_read(const ChunkExt& c, std::uint64_t o, unsigned char* out);
  // Test hook: flips `bit` of element `element` of the first result written to the window, as a
  // fault in the device's data path would.
  void flip_result_bit(std::uint64_t element, int bit) { flip_element_ = element, flip_bit_ = bit; }
  const CxlStats& stats() const { return stats_; }
  // results.json `cxl` entry (cxl_device_report.cpp).
  void report(nlohmann::ordered_json& out) const;
  static const ModelInfo& info();
  // Functional mode: every job reduces deterministic synthetic gradient values, and the engine's
  // output (the RTL's in rtl fidelity) is compared bit for bit with the reference model's sum of
  // the same inputs; the first mismatch stops the run (see failure()).
  void set_functional(bool on, std::uint64_t seed) { functional_ = on, seed_ = seed; }
  const std::string& failure() const { return failure_; }
  std::uint64_t lines_checked() const { return lines_checked_; }
  const CxlParams& params() const { return p_; }
  // Engine cycles of a job of `lines` lines from `contributors` contributors: measured on the RTL
  // (rtl fidelity: the job itself; calibrated: a fit of two start-up runs, exact for this engine,
  // whose cycles are affine in the line count).
  std::uint64_t calibrated_cycles(int contributors, std::uint64_t lines);
  std::uint64_t line_bytes() const { return static_cast<std::uint64_t>(engine_->lanes()) * (bf16_ ? 2 : 4); }
  // The fabric's routes between the host's driver (on the root complex) and port 0.
  void set_host_paths(const Route* to_device, const Route* to_host, std::uint32_t flow, std::int64_t rc_latency_ps);
  CxlDriver& driver() { return *driver_; }
  const CxlDriver& driver() const { return *driver_; }
  const CxlCsrTarget& csr() const { return *csr_; }
  // CXL.mem (docs/cxl.md#cxlmem): the routes between the host and every port, and their flow.
  void set_mem_paths(std::vector<const Route*> to_ports, std::vector<const Route*> to_host, std::uint32_t flow);
  // A CXL.mem request's head has reached a port: served from device memory when its tail has.
  void mem_request(tlm::tlm_generic_payload& p);
  // Device memory as CXL.mem sees it (HPA from kHdmBase): bytes never written read as zeros.
  void hdm_write(std::uint64_t addr, const unsigned char* in, std::uint64_t n);
  void hdm_read(std::uint64_t addr, unsigned char* out, std::uint64_t n) const;
  // Bytes of lines each port's CXL.mem served, and lines of read-backs checked (functional mode).
  const std::vector<std::uint64_t>& port_mem_bytes() const { return port_mem_bytes_; }
  std::uint64_t mem_lines_checked() const { return mem_lines_checked_; }
  // Test hook: keep every read-back's bytes (the job's result, from its address).
  void keep_readbacks() { keep_readbacks_ = true; }
  const std::vector<std::vector<unsigned char>>& readbacks() const { return readbacks_; }
  // A CSR as the device holds it (rtl fidelity: read over the engine's APB port).
  std::uint32_t read_csr(std::uint32_t offset) { return csr_->read(offset); }

 private:
  // A submitted job's size and data, in submission order: the driver programs jobs one at a time
  // in that order, so the job a doorbell starts is the front.
  struct Job {
    std::uint64_t bytes;
    int contributors;
    ReduceData data;
  };
  void run();
  std::uint64_t engine_cycles(const Job& job, std::uint64_t lines);
  std::uint64_t reduce_window(const Job& job, std::uint64_t lines);
  std::uint64_t run_rtl(const RtlJob& job);  // on the Verilated engine, with waves in their window
  std::uint64_t reduce_lines(int n, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                             std::vector<std::uint32_t>& result);
  std::vector<unsigned char>& slot(int collective, int slot, std::uint64_t end);
  void check_functional(int contributors, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                        const std::vector<std::uint32_t>& result);
  // Read-back: the job's result goes to device memory at its BASE, the reference sums of its
  // inputs are kept for the host's read-back to be checked against.
  void keep_result(int n, std::uint64_t lines, const std::vector<std::uint32_t>& data,
                   const std::vector<std::uint32_t>& result);
  void check_readback(std::uint64_t base, std::uint64_t addr, const std::vector<unsigned char>& bytes);
  void on_mem_tail();
  void on_mem_ready();

  CxlParams p_;
  bool bf16_;
  RunContext& ctx_;
  std::unique_ptr<RtlEngine> engine_;
  std::unique_ptr<CxlCsrTarget> csr_;
  std::unique_ptr<CxlDriver> driver_;
  bool start_pending_ = false;  // the doorbell rang for a job of these contributors and lines
  int start_contributors_ = 0;
  std::uint64_t start_lines_ = 0;
  sc_core::sc_event doorbell_;
  std::deque<Job> submitted_;
  std::map<int, std::pair<double, double>> fit_;  // contributors -> (cycles per line, fixed cycles)
  CxlStats stats_;
  int track_ = -1;
  std::int64_t waves_from_ps_, waves_to_ps_;
  bool functional_ = false;
  std::uint64_t seed_ = 1, lines_checked_ = 0;
  std::string failure_;
  std::map<std::pair<int, int>, std::vector<unsigned char>> window_;  // (collective, slot) -> bytes
  std::uint64_t flip_element_ = 0;
  int flip_bit_ = -1;
  // CXL.mem
  PayloadPool mem_pool_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> mem_tails_, mem_ready_;
  std::int64_t mem_free_ps_ = 0;  // device memory is busy with CXL.mem lines until then
  std::vector<const Route*> mem_to_host_;
  std::uint32_t mem_flow_ = 0;
  std::vector<std::uint64_t> port_mem_bytes_;
  std::unordered_map<std::uint64_t, std::vector<unsigned char>> hdm_;  // 4 KiB pages by (HPA - kHdmBase) / 4 KiB
  std::vector<unsigned char> job_result_, job_expected_;               // of the job that just ran (read-back)
  std::map<std::uint64_t, std::vector<unsigned char>> expected_;       // reference result by BASE, until read back
  std::uint64_t mem_lines_checked_ = 0;
  bool keep_readbacks_ = false;
  std::vector<std::vector<unsigned char>> readbacks_;
};

}  // namespace trainvp
