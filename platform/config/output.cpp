#include "platform/config/output.hpp"

#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<OutputRaw>& output_schema() {
  static const ParamSet<OutputRaw> s = [] {
    ParamSet<OutputRaw> p("output", "/output", "Where results go; `trainvp run -o DIR` overrides `dir`.");
    p.text("dir", &OutputRaw::dir, nullptr, "Output directory; default out/<name>")
        .flag("trace", &OutputRaw::trace, true, "Write trace.json (Chrome/Perfetto trace events)")
        .integer64("trace_max_events", &OutputRaw::trace_max_events, kDefaultTraceMaxEvents,
                   "Most events trace.json records; later ones are dropped, with a warning in the summary and "
                   "results.json `warnings`",
                   Range::at_least(1))
        .flag("collectives", &OutputRaw::collectives, true,
              "List every collective in results.json `collectives`; false: only their totals by kind "
              "(`collective_totals`), and fast-forward keeps no copies of the skipped iterations' collectives "
              "(long campaigns: millions of entries)")
        .flag("waves", &OutputRaw::waves, false,
              "Write waves.vcd (or waves.fst): the CXL engine's signals, cycle by cycle, for jobs that start in "
              "the window (fidelity rtl)")
        .choice("waves_format", &OutputRaw::waves_format, "vcd", {{"vcd", WaveFormat::Vcd}, {"fst", WaveFormat::Fst}},
                "Waveform format: vcd (text) or fst (GTKWave's compressed binary format, much smaller)")
        .size("waves_max_bytes", &OutputRaw::waves_max_bytes, "1GiB",
              "Size at which waveform recording stops (the file is closed, stays readable, and a warning goes "
              "to the summary and results.json `warnings`)",
              Range::positive())
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
  o = {out.dir,        out.trace,        out.waves,           out.waves_from,
       out.waves_to,   out.waves_format, out.waves_max_bytes, out.trace_max_events,
       out.collectives};
  return resolved;
}

}  // namespace trainvp
