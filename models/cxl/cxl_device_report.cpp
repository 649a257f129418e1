// What a CXL device reports in results.json, and its sockets and statistics for `trainvp describe`.
#include "models/cxl/cxl_device.hpp"

#include "platform/core/sim_time.hpp"

namespace trainvp {

const ModelInfo& CxlDevice::info() {
  static const ModelInfo i{
      "cxl_device",
      "A CXL gradient-aggregation device per node: ports on the node's fabric, a reduction engine (calibrated or "
      "the Verilated RTL), CSRs and MSIs over CXL.io, host loads and stores to its memory over CXL.mem, and the host "
      "driver that programs it.",
      {"cxl"},
      "cxl[*]",
      {{"ports[i].dma", "initiator, TLM-2.0 AT (multi-passthrough)",
        "the port's link directions: reduced chunks back to GPUs; port 0 also CXL.io TLPs to the host"},
       {"ports[i].mem", "target, TLM-2.0 AT (multi-passthrough)",
        "link directions arriving at the port: GPUs' chunks and the host's CXL.mem loads and stores; port 0 also "
        "the driver's MMIO"}},
      {{"jobs", "count", "reductions run"},
       {"lines", "count", "cache lines reduced"},
       {"bytes_reduced", "bytes", "bytes of reduction results"},
       {"engine_cycles", "cycles", "engine clock cycles spent reducing"},
       {"functional_lines_checked", "count", "lines whose values were checked against the reference (functional mode)"},
       {"port_bytes_in", "bytes", "per port: bytes received"},
       {"busy_s", "s", "time the engine was reducing"},
       {"mmio_writes", "count", "driver MMIO writes to the CSRs"},
       {"mmio_reads", "count", "driver MMIO reads of the CSRs"},
       {"msis", "count", "MSIs the device raised"},
       {"driver_s", "s", "time the host driver was busy"},
       {"mem_reads", "count", "64-byte lines the host loaded over CXL.mem",
        "cluster.node.cxl.readback, or host CXL.mem accesses"},
       {"mem_writes", "count", "64-byte lines the host stored over CXL.mem",
        "cluster.node.cxl.readback, or host CXL.mem accesses"},
       {"mem_bytes", "bytes", "bytes the host loaded and stored over CXL.mem",
        "cluster.node.cxl.readback, or host CXL.mem accesses"},
       {"mem_s", "s", "time from each CXL.mem access's first request leaving to its last answer back, summed",
        "cluster.node.cxl.readback, or host CXL.mem accesses"},
       {"mem_lines_checked", "count", "lines read back over CXL.mem checked against the reference sums",
        "cluster.node.cxl.readback, or host CXL.mem accesses"},
       {"port_mem_bytes", "bytes", "per port: bytes of lines its CXL.mem served (the HDM decoder's split)",
        "cluster.node.cxl.readback, or host CXL.mem accesses"}}};
  return i;
}

void CxlDevice::report(nlohmann::ordered_json& out) const {
  std::vector<std::uint64_t> port_bytes;
  for (auto& p : ports) port_bytes.push_back(p->bytes_in());
  out["name"] = name();
  out["fidelity"] = cxl_fidelity_name(params().fidelity);
  out["engine_lanes"] = params().engine_lanes;
  out["jobs"] = stats_.jobs;
  out["lines"] = stats_.lines;
  out["bytes_reduced"] = stats_.bytes;
  out["engine_cycles"] = stats_.engine_cycles;
  out["functional_lines_checked"] = lines_checked();
  out["port_bytes_in"] = port_bytes;
  out["busy_s"] = sec(stats_.busy_ps);
  out["mmio_writes"] = driver().stats().mmio_writes;
  out["mmio_reads"] = driver().stats().mmio_reads;
  out["msis"] = csr().stats().msis;
  out["driver_s"] = sec(driver().stats().busy_ps);
  // CXL.mem: reported where it is used, so runs without it keep their results.
  const CxlDriverStats& d = driver().stats();
  if (params().readback || d.mem_reads || d.mem_writes) {
    out["mem_reads"] = d.mem_reads;
    out["mem_writes"] = d.mem_writes;
    out["mem_bytes"] = d.mem_bytes;
    out["mem_s"] = sec(d.mem_ps);
    out["mem_lines_checked"] = mem_lines_checked();
    out["port_mem_bytes"] = port_mem_bytes();
  }
}

}  // namespace trainvp
