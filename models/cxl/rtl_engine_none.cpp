// Built when the RTL is off (-DTRAINVP_RTL=OFF): the CXL device then has no engine to run.
#include <stdexcept>

#include "models/cxl/rtl_engine.hpp"

namespace trainvp {

const std::vector<int>& rtl_lanes_available() {
  static const std::vector<int> none;
  return none;
}
bool rtl_available() { return false; }
const char* rtl_verilator_version() { return ""; }
std::unique_ptr<RtlEngine> make_rtl_engine(int, WaveFormat) {
  throw std::invalid_argument("this build has no Verilated grad_reduce (configured with -DTRAINVP_RTL=OFF)");
}

}  // namespace trainvp
