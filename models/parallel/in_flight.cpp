// Peak micro-batches in flight per model chunk of a stage (in_flight.hpp): the executed schedule's
// own blocks, walked in order, so the memory check and the run cannot disagree.
#include "models/parallel/in_flight.hpp"

#include "models/parallel/pipeline.hpp"

namespace trainvp {

std::vector<int> peak_in_flight(const ParallelConfig& cfg, int stage) {
  return peak_in_flight(pipeline_blocks(cfg.schedule, cfg.pp, cfg.micro_batches, cfg.virtual_stages, stage),
                        cfg.virtual_stages);
}

}  // namespace trainvp
