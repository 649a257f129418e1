#include "platform/report/build_record.hpp"

#include <systemc>

#include "models/cxl/rtl_engine.hpp"
#include "platform/core/build_info.hpp"

namespace trainvp {

nlohmann::ordered_json build_record() {
  return {{"version", TRAINVP_VERSION},
          {"git_revision", build_git_revision()},
          {"build_type", build_type()},
          // The library this process runs with, not the headers it was compiled against.
          {"systemc", sc_core::sc_release()},
          {"verilator", rtl_verilator_version()},
          {"rtl_lanes", rtl_lanes_available()}};
}

}  // namespace trainvp
