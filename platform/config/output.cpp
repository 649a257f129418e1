#include "platform/config/output.hpp"

#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<OutputRaw>& output_schema() {
  static const ParamSet<OutputRaw> s = [] {
    ParamSet<OutputRaw> p("output", "/output", "Where results go; `trainvp run -o DIR` overrides `dir`.");
    p.text("dir", &OutputRaw::dir, nullptr, "Output directory; default out/<name>")
        .flag("trace", &OutputRaw::trace, true, "Write trace.json (Chrome/Perfetto trace events)")
        .flag("waves", &OutputRaw::waves, false,
              "Write waves.vcd: the CXL engine's signals, cycle by cycle, for jobs that start in the window "
              "(fidelity rtl)")
        .time("waves_from", &OutputRaw::waves_from, "0s", "Start of the waveform window (simulated time)")
        .time("waves_to", &OutputRaw::waves_to, nullptr, "End of the waveform window; default: the end of the run");
    return p;
  }();
  return s;
}

json load_output(OutputConfig& o, const json& value, const std::string& run_name, const CxlParams& cxl) {
  OutputRaw out;
  json resolved = output_schema().load(out, object_or_empty(value), "/output");
  if (out.dir.empty()) out.dir = "out/" + run_name;
  resolved["dir"] = out.dir;
  if (out.waves && (!cxl.present || cxl.fidelity != CxlFidelity::Rtl))
    fail_expected("/output/waves", "false unless cluster.node.cxl is present with fidelity \"rtl\"", json(true));
  o = {out.dir, out.trace, out.waves, out.waves_from, out.waves_to};
  return resolved;
}

}  // namespace trainvp
