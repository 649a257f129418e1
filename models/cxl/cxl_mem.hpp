#pragma once
// CXL.mem between the host and the device's host-managed device memory (HDM): the host's loads
// and stores to the HDM range and the device's answers, as messages that travel the fabric like
// CXL.io TLPs (a fabric chunk, ChunkExt, express) with this extension saying what they mean.
//
// A message covers 1 to kMemGroupLines 64-byte lines at consecutive addresses of one HDM
// interleave stripe: the lines' M2S requests (MemRd), M2S requests with data (MemWr), S2M data
// responses (MemData, S2M DRS) or S2M completions (Cmp, S2M NDR). Its length on the wire is its
// 16-byte slots of a 68-byte CXL 2.0 flit (CXL 2.0 section 4.2.2: a flit is four 16-byte slots
// between a 2-byte protocol id and a 2-byte CRC): one slot per line's header, four per line's
// data; a CXL link sends them in whole flits (models/link: a partial last flit is padded), so a
// lone line read costs one request flit and two data flits' worth of response (header slot and
// four data slots), and four lines' responses together five flits. See docs/cxl.md#cxlmem.
#include <cstdint>
#include <vector>

#include <tlm>

#include "models/link/chunk.hpp"
#include "platform/core/tlm/payload_pool.hpp"

namespace trainvp {

constexpr std::uint64_t kCacheLine = 64;               // CXL.mem moves whole 64-byte lines
constexpr std::uint32_t kMemSlot = 16;                 // a flit slot: one message header or 16 B of data
constexpr std::uint32_t kMemGroupLines = 4;            // lines per message: one flit of headers
constexpr std::uint64_t kHdmBase = 0x10'0000'0000ull;  // HPA of the device's HDM range (64 GiB)

struct CxlMemExt : tlm::tlm_extension<CxlMemExt> {
  enum Op { MemRd, MemWr, MemData, Cmp };
  Op op = MemRd;
  std::uint64_t addr = 0;    // HPA of the first line
  std::uint32_t lines = 0;   // 1 .. kMemGroupLines
  std::uint64_t access = 0;  // the host's access this message belongs to (echoed in the answer)
  int port = 0;              // the device port that serves it (the HDM decoder's choice)
  bool carry = false;        // MemRd: answer with the lines' bytes (functional mode, tests)
  // The lines' bytes (MemWr, MemData) when the message carries data; empty in timing-only runs.
  std::vector<unsigned char> data;

  tlm::tlm_extension_base* clone() const override { return new CxlMemExt(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const CxlMemExt&>(e); }
};

inline CxlMemExt* cxl_mem_of(tlm::tlm_generic_payload& p) {
  CxlMemExt* e = nullptr;
  p.get_extension(e);
  return e;
}

// Bytes a message of `lines` lines occupies in flit slots: a header slot per line, and four data
// slots per line for MemWr and MemData.
inline std::uint32_t mem_message_bytes(CxlMemExt::Op op, std::uint32_t lines) {
  const bool data = op == CxlMemExt::MemWr || op == CxlMemExt::MemData;
  return lines * (kMemSlot + (data ? static_cast<std::uint32_t>(kCacheLine) : 0));
}

// A message ready to send along `route` (its creator holds the one reference; the receiver
// releases it). `data` is moved into it (empty: no bytes carried).
tlm::tlm_generic_payload* make_mem_message(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlMemExt::Op op,
                                           std::uint64_t addr, std::uint32_t lines, std::uint64_t access, int port,
                                           std::vector<unsigned char> data);

// The HDM decoder: the port that holds HPA `addr` (interleaved over `ways` ports in stripes of
// `granularity` bytes from kHdmBase, as the reduction window is).
inline int hdm_port(std::uint64_t addr, std::uint64_t granularity, int ways) {
  return static_cast<int>(((addr - kHdmBase) / granularity) % static_cast<std::uint64_t>(ways));
}

}  // namespace trainvp
