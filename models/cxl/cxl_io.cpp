#include "models/cxl/cxl_io.hpp"

#include <systemc>

#include "models/cxl/cxl_message.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

tlm::tlm_generic_payload* make_tlp(PayloadPool& pool, const Route& route, std::uint32_t flow, CxlIoExt::Kind kind,
                                   std::uint32_t offset, std::uint32_t value) {
  // A read request is a header only; writes, completions and MSIs carry one 32-bit word.
  const std::uint32_t bytes = kind == CxlIoExt::Read ? 0 : 4;
  tlm::tlm_generic_payload* p = nullptr;
  CxlIoExt* io = &express_message<CxlIoExt>(pool, p, route, flow, bytes, 0);
  io->kind = kind;
  io->offset = offset;
  io->value = value;
  p->set_command(kind == CxlIoExt::Read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
  p->set_address(offset);
  p->set_data_ptr(reinterpret_cast<unsigned char*>(&io->value));
  p->set_data_length(bytes);
  p->set_streaming_width(bytes);
  p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return p;
}

}  // namespace trainvp
