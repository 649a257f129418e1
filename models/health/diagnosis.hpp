#pragma once
// What the fail-slow detector concludes (docs/health.md): every verified change of the iteration
// time, and for each slowdown a diagnosis after its validation probes.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "platform/core/name_table.hpp"

namespace trainvp {

// What a diagnosis blames: a GPU computing slowly, its host launching late, the network, or
// nothing the probes confirmed. GroupWide and FabricWide: a slowdown with no healthy peer to
// compare with (docs/health.md#no-healthy-peer): every rank equally slow (GPUs or hosts), or every
// communicator's transfers equally longer (the network as a whole); there is no one part to name.
// Results and traces write the names of cause_names().
enum class FailCause { Compute, Cpu, Communication, Unknown, GroupWide, FabricWide };
inline const NameTable<FailCause>& cause_names() {
  static const NameTable<FailCause> t{{"compute", FailCause::Compute},
                                      {"cpu", FailCause::Cpu},
                                      {"communication", FailCause::Communication},
                                      {"unknown", FailCause::Unknown},
                                      {"group_wide", FailCause::GroupWide},
                                      {"fabric_wide", FailCause::FabricWide}};
  return t;
}
inline const char* cause_name(FailCause c) { return name_in(cause_names(), c); }

struct ChangeEvent {
  std::int64_t change_ps = 0;    // start of the first window of the new regime
  std::int64_t detected_ps = 0;  // when verification passed
  bool slowdown = true;
  bool against_healthy = false;      // a drop to a level still slow against the healthy one
  bool late_rank = false;            // a rank became late with the iteration time flat (no change point)
  double before_s = 0, after_s = 0;  // mean iteration time on either side (before: the healthy level)
};

struct GemmProbeResult {
  int rank = 0;
  std::string dtype;
  double expected_s = 0, measured_s = 0;  // datasheet roofline at the GPU's configured speed; measured
  bool slow = false;
};

struct LinkProbeResult {
  int src = 0, dst = 0;      // ranks
  double bandwidth_Bps = 0;  // from the slope between the smallest and largest message
  bool slow = false;
  std::int64_t at_ps = 0;  // when its validation ended
};

struct Diagnosis {
  int change = 0;  // index into the changes
  std::int64_t change_ps = 0, detected_ps = 0, diagnosed_ps = 0;
  FailCause cause = FailCause::Unknown;
  std::vector<int> gpus;                   // ranks (compute, cpu)
  std::vector<std::pair<int, int>> links;  // slow edges: source and destination rank
  std::vector<std::vector<int>> groups;    // suspect communicators (communication)
  double confidence = 0;
  double slowdown = 1;  // after / before
};

}  // namespace trainvp
