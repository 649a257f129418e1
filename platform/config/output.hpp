#pragma once
// /output: where a run's files go and which are written.
#include <cstdint>
#include <string>

#include "models/cxl/cxl_params.hpp"
#include "models/cxl/rtl_engine.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

// The caps' defaults (docs/reliability.md, "Bounded outputs", says why these values).
constexpr std::uint64_t kDefaultWavesMaxBytes = 1ull << 30;   // 1 GiB
constexpr std::uint64_t kDefaultTraceMaxEvents = 10'000'000;  // about 1.3 GB of trace.json

struct OutputConfig {
  std::string dir;
  bool trace = true;
  bool waves = false;  // the CXL engine's waveforms (rtl fidelity) in DIR/waves.vcd or .fst
  std::int64_t waves_from_ps = 0, waves_to_ps = -1;
  WaveFormat waves_format = WaveFormat::Vcd;
  std::uint64_t waves_max_bytes = kDefaultWavesMaxBytes;
  std::uint64_t trace_max_events = kDefaultTraceMaxEvents;
  bool collectives = true;  // list every collective in results.json; false: totals by kind only
  // "waves.vcd" or "waves.fst".
  std::string waves_file() const { return waves_format == WaveFormat::Fst ? "waves.fst" : "waves.vcd"; }
};

// The keys of /output as given.
struct OutputRaw {
  std::string dir;
  bool trace = true, waves = false;
  std::int64_t waves_from = 0, waves_to = -1;
  WaveFormat waves_format = WaveFormat::Vcd;
  std::uint64_t waves_max_bytes = kDefaultWavesMaxBytes, trace_max_events = kDefaultTraceMaxEvents;
  bool collectives = true;
};
const ParamSet<OutputRaw>& output_schema();

// Reads /output (`value`, null when absent) into `out`: the directory defaults to out/<run_name>,
// and waves need the nodes' CXL device `cxl` in rtl fidelity. Returns the resolved object.
json load_output(OutputConfig& out, const json& value, const std::string& run_name, const CxlParams& cxl);

}  // namespace trainvp
