// CXL.mem's messages alone: their length in 16-byte flit slots, the whole flits a CXL link sends
// them in (68-byte CXL 2.0 flits of four slots, 256-byte CXL 3.0 flits of fifteen), and the HDM
// decoder's choice of port (docs/cxl.md#cxlmem).
#include <gtest/gtest.h>

#include "models/cxl/cxl_mem.hpp"
#include "models/cxl/cxl_params.hpp"
#include "models/link/link_dir.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {
namespace test_cxl_mem_alone {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::uint64_t flits(const CxlParams& p, std::uint32_t bytes) {
  const auto mtu = static_cast<std::uint32_t>(p.flit_payload()),
             overhead = static_cast<std::uint32_t>(p.flit_overhead());
  return framed_bytes(bytes, mtu, overhead, true) / (mtu + overhead);
}

TEST(CxlMemAlone, AHeaderIsASlotALinesDataFourSlots) {
  EXPECT_EQ(mem_message_bytes(CxlMemExt::MemRd, 1), 16u);
  EXPECT_EQ(mem_message_bytes(CxlMemExt::Cmp, 4), 64u);
  EXPECT_EQ(mem_message_bytes(CxlMemExt::MemWr, 1), 80u);
  EXPECT_EQ(mem_message_bytes(CxlMemExt::MemData, 4), 320u);
}

TEST(CxlMemAlone, CxlLinksSendWholeFlits) {
  CxlParams two, three;
  three.generation = CxlGeneration::Cxl3;
  // CXL 2.0: four slots per 68-byte flit.
  EXPECT_EQ(flits(two, mem_message_bytes(CxlMemExt::MemRd, 1)), 1u);
  EXPECT_EQ(flits(two, mem_message_bytes(CxlMemExt::MemRd, 4)), 1u);
  EXPECT_EQ(flits(two, mem_message_bytes(CxlMemExt::MemData, 1)), 2u);  // header + 4 data slots
  EXPECT_EQ(flits(two, mem_message_bytes(CxlMemExt::MemData, 2)), 3u);
  EXPECT_EQ(flits(two, mem_message_bytes(CxlMemExt::MemData, 4)), 5u);  // 1.25 flits per line
  EXPECT_EQ(framed_bytes(mem_message_bytes(CxlMemExt::MemData, 4), 64, 4, true), 340u);
  // CXL 3.0: fifteen slots (240 B) per 256-byte flit.
  EXPECT_EQ(flits(three, mem_message_bytes(CxlMemExt::MemData, 1)), 1u);
  EXPECT_EQ(flits(three, mem_message_bytes(CxlMemExt::MemData, 3)), 1u);
  EXPECT_EQ(flits(three, mem_message_bytes(CxlMemExt::MemData, 4)), 2u);
}

TEST(CxlMemAlone, TheHdmDecoderInterleavesStripesOverThePorts) {
  EXPECT_EQ(hdm_port(kHdmBase, 256, 4), 0);
  EXPECT_EQ(hdm_port(kHdmBase + 255, 256, 4), 0);
  EXPECT_EQ(hdm_port(kHdmBase + 256, 256, 4), 1);
  EXPECT_EQ(hdm_port(kHdmBase + 3 * 256 + 64, 256, 4), 3);
  EXPECT_EQ(hdm_port(kHdmBase + 4 * 256, 256, 4), 0);
  EXPECT_EQ(hdm_port(kHdmBase + 4096, 4096, 2), 1);
  EXPECT_EQ(hdm_port(kHdmBase + (1ull << 31), 256, 3), static_cast<int>(((1ull << 31) / 256) % 3));
}

TEST(CxlMemAlone, AMessageCarriesItsLinesAndIsExpress) {
  PayloadPool pool;
  Route r;
  r.ports = {0};
  std::vector<unsigned char> line(64, 7);
  tlm::tlm_generic_payload* p = make_mem_message(pool, r, 5, CxlMemExt::MemWr, kHdmBase + 128, 1, 42, 1, line);
  const CxlMemExt* m = cxl_mem_of(*p);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->op, CxlMemExt::MemWr);
  EXPECT_EQ(m->addr, kHdmBase + 128);
  EXPECT_EQ(m->access, 42u);
  EXPECT_EQ(m->port, 1);
  EXPECT_EQ(m->data, line);
  EXPECT_EQ(p->get_data_length(), 80u);
  EXPECT_TRUE(chunk_of(*p)->express);
  EXPECT_EQ(chunk_of(*p)->flow, 5u);
  p->release();
}

}  // namespace test_cxl_mem_alone
}  // namespace trainvp
