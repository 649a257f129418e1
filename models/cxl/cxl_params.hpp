#pragma once
// A node's CXL device hosting the gradient-aggregation engine (cluster.node.cxl).
#include <cstdint>
#include <string>

#include "platform/core/name_table.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

enum class CxlGeneration { Cxl2, Cxl3 };
enum class CxlFidelity { Rtl, Calibrated };
enum class CxlCompletion { Interrupt, Poll };

// The names cluster.node.cxl.fidelity takes and results.json reports.
const NameTable<CxlFidelity>& cxl_fidelity_names();
const char* cxl_fidelity_name(CxlFidelity f);

struct CxlParams {
  bool present = false;
  CxlGeneration generation = CxlGeneration::Cxl2;
  int link_lanes = 16;
  std::int64_t link_latency_ps = 100000;
  int ports = 0;  // 0: one per PCIe switch
  std::uint64_t interleave_granularity = 256;
  int engine_lanes = 16;  // the compiled grad_reduce variant
  double rtl_clock_hz = 1e9;
  CxlFidelity fidelity = CxlFidelity::Calibrated;
  std::int64_t mem_latency_ps = 250000;
  double mem_bw = 64e9 * 8;               // bits/s
  std::int64_t mmio_latency_ps = 200000;  // host overhead per MMIO access
  CxlCompletion completion = CxlCompletion::Interrupt;
  std::int64_t completion_latency_ps = 1000000;  // interrupt handling, or the poll period
  bool ftz = false;
  // CXL.mem (docs/cxl.md#cxlmem): the driver reads each job's result back over CXL.mem before the
  // collective goes on; the host keeps at most mem_outstanding lines' requests in flight.
  bool readback = false;
  int mem_outstanding = 1024;

  // Flit framing: 68-byte flits (64 B of data) in CXL 1.1/2.0 over PCIe 5.0, 256-byte flits
  // (240 B of data) in CXL 3.x over PCIe 6.0.
  int flit_payload() const { return generation == CxlGeneration::Cxl2 ? 64 : 240; }
  int flit_overhead() const { return generation == CxlGeneration::Cxl2 ? 4 : 16; }
  // Link rate per direction before flit framing. CXL 2.0 runs on PCIe 5.0's 32 GT/s per lane with
  // its 128b/130b line coding (as PcieConfig does); CXL 3.x runs PCIe 6.0's 64 GT/s in flit mode,
  // where the 256-byte flit's CRC and FEC (in flit_overhead) replace the line coding.
  double link_bps() const {
    return generation == CxlGeneration::Cxl2 ? 32e9 * link_lanes * 128.0 / 130.0 : 64e9 * link_lanes;
  }
};

const ParamSet<CxlParams>& cxl_schema();

}  // namespace trainvp
