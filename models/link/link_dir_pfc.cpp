// PFC on a link direction (pfc.hpp): the far end's ingress accounting and the pause of this
// direction's transmitter.
#include <limits>

#include "models/link/chunk.hpp"
#include "models/link/link_dir.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

void LinkDir::set_pfc(const PfcPortParams& p, bool unbounded_queue) {
  pfc_ = std::make_unique<PfcPort>(p, stats_.pfc, resume_ev_);
  // The ingress thresholds are now the only back-pressure on this direction: its transmitter
  // no longer stops after `headroom` chunks the far end has not taken.
  headroom_ = std::numeric_limits<int>::max();
  headroom_bytes_ = std::numeric_limits<std::uint64_t>::max();
  if (unbounded_queue) p_.buffer = std::numeric_limits<std::uint64_t>::max();
}

// A chunk's head has reached the far end: it counts there until it starts on its next link.
void LinkDir::pfc_arrived(tlm::tlm_generic_payload* p) {
  if (!pfc_) return;
  ChunkExt* c = chunk_of(*p);
  pfc_->arrive(p->get_data_length(), now_ps());
  c->pfc = pfc_.get();
}

}  // namespace trainvp
