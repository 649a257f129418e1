#pragma once
// CXL.io between the host's driver and the device's CSRs: the TLPs that carry MMIO writes, STATUS
// reads, their completions and MSIs through the fabric. Each TLP is a fabric chunk (ChunkExt: route, flow, timing)
// whose data length is what it carries on the wire (4 B for a write, a completion or an MSI; 0 for a read request, a
// header only); this extension says what it means.
#include <cstdint>

#include <tlm>

#include "models/cxl/csr_map.hpp"
#include "models/link/chunk.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

struct CxlIoExt : tlm::tlm_extension<CxlIoExt> {
  enum Kind { Write, Read, Completion, Msi };
  Kind kind = Write;
  std::uint32_t offset = 0;  // CSR byte offset (Write, Read, Completion)
  std::uint32_t value = 0;   // written or read data; the MSI's vector

  tlm::tlm_extension_base* clone() const override { return new CxlIoExt(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const CxlIoExt&>(e); }
};

inline CxlIoExt* cxl_io_of(tlm::tlm_generic_payload& p) {
  CxlIoExt* e = nullptr;
  p.get_extension(e);
  return e;
}

// A TLP ready to send along `route` (its creator holds the one reference; the receiver releases it).
tlm::tlm_generic_payload* make_tlp(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlIoExt::Kind kind,
                                   std::uint32_t offset, std::uint32_t value);

}  // namespace trainvp
