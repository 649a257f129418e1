// The CXL link's rate per direction against the PCIe base specifications: CXL 2.0 rides PCIe 5.0
// (32 GT/s per lane, 128b/130b line coding), CXL 3.x rides PCIe 6.0 in flit mode (64 GT/s, no line
// coding: the 256-byte flit's CRC and FEC are its overhead, counted in the flit framing).
#include <gtest/gtest.h>

#include "models/cxl/cxl_params.hpp"

namespace trainvp {
namespace test_cxl_params {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(CxlParams, Cxl2LinkRunsAtPcie5RateAfter128b130bCoding) {
  CxlParams cx;
  cx.generation = CxlGeneration::Cxl2;
  cx.link_lanes = 16;
  EXPECT_DOUBLE_EQ(cx.link_bps(), 16 * 32e9 * 128.0 / 130.0);  // 504.1 Gbit/s, not 512
  cx.link_lanes = 4;
  EXPECT_DOUBLE_EQ(cx.link_bps(), 4 * 32e9 * 128.0 / 130.0);
}

TEST(CxlParams, Cxl3LinkRunsAtPcie6FlitModeRateWithoutLineCoding) {
  CxlParams cx;
  cx.generation = CxlGeneration::Cxl3;
  cx.link_lanes = 16;
  EXPECT_DOUBLE_EQ(cx.link_bps(), 16 * 64e9);
  EXPECT_EQ(cx.flit_payload() + cx.flit_overhead(), 256);
}

}  // namespace test_cxl_params
}  // namespace trainvp
