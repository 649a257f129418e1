#pragma once
// /output: where a run's files go and which are written.
#include <cstdint>
#include <string>

#include "models/cxl/cxl_params.hpp"
#include "platform/core/params.hpp"

namespace trainvp {

struct OutputConfig {
  std::string dir;
  bool trace = true;
  bool waves = false;             // VCD of the CXL engine (rtl fidelity) in DIR/waves.vcd
  std::int64_t waves_from_ps = 0, waves_to_ps = -1;
};

// The keys of /output as given.
struct OutputRaw {
  std::string dir;
  bool trace = true, waves = false;
  std::int64_t waves_from = 0, waves_to = -1;
};
const ParamSet<OutputRaw>& output_schema();

// Reads /output (`value`, null when absent) into `out`: the directory defaults to out/<run_name>,
// and waves need the nodes' CXL device `cxl` in rtl fidelity. Returns the resolved object.
json load_output(OutputConfig& out, const json& value, const std::string& run_name, const CxlParams& cxl);

}  // namespace trainvp
