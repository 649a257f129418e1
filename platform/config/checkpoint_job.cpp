#include "platform/config/checkpoint_job.hpp"

namespace trainvp {

const ParamSet<CheckpointParams>& checkpoint_schema() {
  static const ParamSet<CheckpointParams> s = [] {
    ParamSet<CheckpointParams> p("checkpoint", "/jobs/*/checkpoint",
                                 "A checkpoint job's bursts (kind checkpoint; docs/jobs.md#checkpoint-jobs): each node "
                                 "it holds writes `bytes` to a storage node every `period`, through the fabric.");
    p.size("bytes", &CheckpointParams::bytes, nullptr, "Bytes each writer node sends per burst, e.g. \"25GiB\"",
           Range::positive())
        .time("period", &CheckpointParams::period_ps, nullptr,
              "From one burst's start to the next, e.g. \"30s\" (a burst still running delays the next)",
              Range::positive())
        .integer("bursts", &CheckpointParams::bursts, 0,
                 "How many bursts; 0: one every period while any training job still runs", Range{0, 1e6, false, false})
        .nested("storage", "array", nullptr,
                "The storage nodes' indices: free nodes the job holds besides its placement; writers take them "
                "round-robin")
        .required("bytes")
        .required("period")
        .required("storage");
    return p;
  }();
  return s;
}

}  // namespace trainvp
