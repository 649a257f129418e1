#pragma once
// The host's driver of a node's CXL device: a module on the node's root complex (its sockets are
// bound to the root complex's forwarder, so its TLPs take the fabric's real path: root complex ->
// PCIe switch -> CXL port). Jobs run one at a time (the engine's CSRs are locked while it runs):
// the driver posts the MMIO writes of the job's CSRs (CONFIG, LEN[0], BASE_LO/HI[0]) and the
// doorbell (CTRL.START), each after the host's per-access overhead `mmio_latency`, then learns of
// completion by an MSI (`completion: interrupt`, handled `completion_latency` after it arrives)
// or by reading STATUS every `completion_latency` until DONE (`completion: poll`), and only then
// calls the job's `done`.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_get.h>

#include "models/cxl/cxl_io.hpp"
#include "models/cxl/cxl_mem.hpp"
#include "models/cxl/cxl_params.hpp"
#include "platform/core/run_context.hpp"
#include "platform/core/tlm/at_initiator.hpp"

namespace trainvp {

struct CxlDriverStats {
  std::uint64_t jobs = 0, mmio_writes = 0, mmio_reads = 0, msis = 0;
  std::int64_t busy_ps = 0;  // from taking a job to seeing it complete, summed
  // CXL.mem: lines loaded and stored, their bytes, and the time from each access's first request
  // leaving to its last answer reaching the CPU, summed.
  std::uint64_t mem_reads = 0, mem_writes = 0, mem_bytes = 0;
  std::int64_t mem_ps = 0;
};

class CxlDriver : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_initiator_socket_optional<CxlDriver> mmio;  // into the root complex
  tlm_utils::multi_passthrough_target_socket_optional<CxlDriver> host;     // from it: completions, MSIs

  struct Job {
    std::uint64_t lines;
    int contributors;
    std::function<void()> done;
    bool readback_data = false;  // the read-back carries the result's bytes (functional mode)
  };
  // A host load or store of [addr, addr + bytes) in the HDM range (64-byte aligned), issued at
  // `at_ps` (or when the access before it has ended); `done` gets the time its last answer reached
  // the CPU and, for a load with `carry`, the bytes read. `data`: a store's bytes (empty: timing only).
  struct MemAccess {
    bool write = false;
    std::uint64_t addr = 0, bytes = 0;
    std::vector<unsigned char> data;
    bool carry = false;
    std::int64_t at_ps = 0;
    std::function<void(std::int64_t done_ps, const std::vector<unsigned char>& data)> done;
  };
  // `config_bits`: CONFIG's DTYPE and FTZ bits; `track`: trace track or -1.
  CxlDriver(sc_core::sc_module_name name, const CxlParams& p, std::uint32_t line_bytes, std::uint32_t config_bits,
            RunContext& ctx, int track);

  // The route of its TLPs to the device's CXL.io function, their flow, and the root complex's
  // forwarding latency, which TLPs from the device pay on their way to the CPU.
  void set_path(const Route* to_device, std::uint32_t flow, std::int64_t rc_latency_ps);
  void submit(Job job);
  // CXL.mem: the routes of its requests to each device port (the HDM decoder interleaves over
  // them) and their flow.
  void set_mem_paths(std::vector<const Route*> to_ports, std::uint32_t flow);
  void mem_access(MemAccess a);
  // Called with each read-back's bytes when it carried data: the job's result address and the
  // bytes from `addr` (its 64-byte aligned start).
  std::function<void(std::uint64_t base, std::uint64_t addr, const std::vector<unsigned char>& bytes)> on_readback;
  const CxlDriverStats& stats() const { return stats_; }
  // The last value written to each CSR (tests compare it with the device's registers).
  const std::map<std::uint32_t, std::uint32_t>& written() const { return written_; }

 private:
  void end_of_elaboration() override { out_.reserve_ports(mmio.size()); }
  void run();
  void post(CxlIoExt::Kind kind, std::uint32_t offset, std::uint32_t value);
  std::uint32_t read(std::uint32_t offset);  // a STATUS read: request, then wait for the completion
  tlm::tlm_sync_enum nb_transport_bw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_fw(int i, tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void on_arrival();
  void on_mem_answer(const CxlMemExt& m);
  // Loads or stores [addr, addr + bytes) over CXL.mem from the calling thread; returns when every
  // answer is back. `buf`: a store's bytes, or where a load's go (null: timing only).
  void transfer(bool write, std::uint64_t addr, std::uint64_t bytes, std::vector<unsigned char>* buf);
  void mem_run();

  CxlParams p_;
  std::uint32_t line_bytes_, config_bits_;
  RunContext& ctx_;
  int track_;
  PayloadPool pool_, mem_pool_;  // apart: a pooled payload keeps the extensions it was made with
  AtInitiator out_;
  const Route* to_device_ = nullptr;
  std::uint32_t flow_ = 0;
  std::int64_t rc_latency_ps_ = 0;
  std::deque<Job> queue_;
  sc_core::sc_event wake_, msi_ev_, completion_ev_;
  int msis_pending_ = 0;
  bool completion_pending_ = false;
  std::uint32_t completion_value_ = 0;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> arrivals_;
  std::uint64_t next_base_ = 0;
  std::map<std::uint32_t, std::uint32_t> written_;
  std::vector<const Route*> mem_to_;
  std::uint32_t mem_flow_ = 0;
  struct Transfer {
    std::uint64_t addr, lines_left;
    std::vector<unsigned char>* buf;
  };
  std::map<std::uint64_t, Transfer> transfers_;  // by access id
  std::uint64_t next_access_ = 0, inflight_lines_ = 0;
  sc_core::sc_event mem_ev_, mem_wake_;
  std::deque<MemAccess> mem_queue_;
  CxlDriverStats stats_;
};

}  // namespace trainvp
