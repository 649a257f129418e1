#include "models/cxl/cxl_params.hpp"

namespace trainvp {

const NameTable<CxlFidelity>& cxl_fidelity_names() {
  static const NameTable<CxlFidelity> t = {{"rtl", CxlFidelity::Rtl}, {"calibrated", CxlFidelity::Calibrated}};
  return t;
}

const char* cxl_fidelity_name(CxlFidelity f) { return name_in(cxl_fidelity_names(), f); }

const ParamSet<CxlParams>& cxl_schema() {
  static const ParamSet<CxlParams> s = [] {
    ParamSet<CxlParams> p("cxl", "/cluster/node/cxl",
                          "A CXL Type-2 device in each node hosting the Verilated grad_reduce engine: GPUs write "
                          "gradient chunks into its reduction window over CXL/PCIe, it reduces them, they read the "
                          "result back (algorithm cxl_allreduce). See docs/cxl.md.");
    p.flag("present", &CxlParams::present, false, "Whether each node has the device")
        .choice("generation", &CxlParams::generation, "2.0",
                {{"2.0", CxlGeneration::Cxl2}, {"3.0", CxlGeneration::Cxl3}},
                "2.0: PCIe 5.0 (32 GT/s), 68-byte flits; 3.0: PCIe 6.0 (64 GT/s), 256-byte flits")
        .integer("link_lanes", &CxlParams::link_lanes, 16, "Lanes per CXL link", {1, 16})
        .time("link_latency", &CxlParams::link_latency_ps, "100ns", "CXL port-to-port link latency (our default)")
        .integer("ports", &CxlParams::ports, 0,
                 "Device ports, one link each to a PCIe switch; 0: one per PCIe switch. The HDM decoder "
                 "interleaves the reduction window across them",
                 {0, 1024})
        .size("interleave_granularity", &CxlParams::interleave_granularity, "256B",
              "HDM interleave granularity (256 B << k, up to 16 KiB, at most the chunk): the reduction window is "
              "interleaved over the ports in stripes of this size, so each chunk is split over the ports")
        .integer("engine_lanes", &CxlParams::engine_lanes, 16, "grad_reduce LANES variant (compiled: 8, 16, 32)",
                 {1, 1024})
        .frequency("rtl_clock", &CxlParams::rtl_clock_hz, "1GHz", "Clock of the engine's domain")
        .choice("fidelity", &CxlParams::fidelity, "calibrated", cxl_fidelity_names(),
                "rtl: every line goes through the Verilated engine; calibrated: the engine's cycles per "
                "line and latency are measured on the RTL at start-up and applied per job")
        .time("mem_latency", &CxlParams::mem_latency_ps, "250ns",
              "Device memory latency (real CXL memory: 140-410 ns, Melody ASPLOS 2025)")
        .bandwidth("mem_bw", &CxlParams::mem_bw, "64GB/s", "Device memory bandwidth")
        .time("mmio_latency", &CxlParams::mmio_latency_ps, "200ns",
              "Host overhead per MMIO access (software and uncore) before its TLP leaves the root complex; "
              "a job takes 5 posted writes (CONFIG, LEN, BASE_LO, BASE_HI, CTRL.START), each then travelling "
              "root complex -> PCIe switch -> CXL port, and every STATUS poll one read")
        .choice("completion", &CxlParams::completion, "interrupt",
                {{"interrupt", CxlCompletion::Interrupt}, {"poll", CxlCompletion::Poll}},
                "How the host learns a job is done: interrupt, an MSI from the device through the fabric; poll, "
                "MMIO reads of STATUS until DONE")
        .time("completion_latency", &CxlParams::completion_latency_ps, "1us",
              "Interrupt handling time after the MSI reaches the CPU, or the poll period (a STATUS read at each "
              "tick after the doorbell; ticks while a read is outstanding are skipped)")
        .flag("ftz", &CxlParams::ftz, false, "Flush subnormals to zero in the engine")
        .flag("readback", &CxlParams::readback, nullptr,
              "Default false. true: after each job the host driver reads the job's result back from device memory "
              "over CXL.mem (a load of every 64-byte line of the HDM range, interleaved over the ports) before the "
              "collective goes on; in functional mode the bytes read are checked against the reference sums. "
              "docs/cxl.md#cxlmem")
        .integer("mem_outstanding", &CxlParams::mem_outstanding, nullptr,
                 "Default 1024. Most 64-byte lines the host's CXL.mem requests keep in flight (a request is sent "
                 "when its lines fit); 65536 is the 16-bit tag space",
                 {1, 65536});
    return p;
  }();
  return s;
}

}  // namespace trainvp
