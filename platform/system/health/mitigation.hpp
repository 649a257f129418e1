#pragma once
// GREYHOUND's mitigation in the loop (docs/health.md#mitigation), answering the fail-slow
// monitor's diagnoses (or, for the `oracle` policy, the injected faults themselves):
//   S1 observe: nothing moves;
//   S2 rebalance: the replicas' work split around slow GPUs (split_step.hpp);
//   S3 move: whole nodes exchange places (move_step.hpp, role_swap.cpp);
//   S4 restart: checkpoint and restart with spares in place of nodes (restart_step.hpp).
// Each step pauses the job (every rank at the common boundary, common_boundary.hpp) for its cost.
// This class is the ladder: it opens an incident on a diagnosis and moves to the next step when
// the loss since entering the current one, summed over the monitor's windows as (window time -
// healthy time), reaches the next step's cost (ski rental); it closes the incident when the
// slowdown ends, and records every action (mitigation_action.hpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/collectives/engine.hpp"
#include "models/gpu/gpu.hpp"
#include "models/gpu/iteration_boundary.hpp"
#include "models/health/algorithms/ski_rental.hpp"
#include "models/health/diagnosis_source.hpp"
#include "platform/config/health.hpp"
#include "platform/core/run_context.hpp"
#include "platform/system/fabric/fabric.hpp"
#include "platform/system/faults/faults.hpp"
#include "platform/system/health/common_boundary.hpp"
#include "platform/system/health/mitigation_action.hpp"
#include "platform/system/health/move_step.hpp"
#include "platform/system/health/restart_step.hpp"
#include "platform/system/health/split_step.hpp"

namespace trainvp {

class Mitigation : public IterationBoundary {
 public:
  struct Parts {
    MitigationConfig cfg;
    DiagnosisSource* monitor = nullptr;  // the fail-slow monitor; null for the oracle
    std::vector<Gpu*> gpus;              // by rank
    std::vector<int> ranks;              // the job's ranks it acts on, ascending (empty: every rank)
    // With `jobs`: the nodes no job holds, a pool the jobs' mitigations share (S4 restarts a job
    // on them, flow fidelity), and per node its leaf (placement group), to pick spares away from
    // the congested leaves.
    std::shared_ptr<std::vector<int>> spares;
    std::vector<int> leaf_of;
    std::vector<int> replica_of;  // per rank: its data-parallel replica (0 for others' ranks)
    int replicas = 1;
    int units = 1;                       // micro-batches (or samples) per replica and iteration
    std::vector<int> stage_of;           // per rank: its pipeline stage (empty: all 0)
    std::vector<double> stage_work;      // per stage: a micro-batch's healthy time (empty: one stage)
    FaultInjector* faults = nullptr;     // S4 replaces nodes there; the oracle listens to it
    Fabric* fabric = nullptr;            // S3 moves ranks there (flow fidelity)
    CollectiveEngine* engine = nullptr;  // S3's role swap weighs placements by its pair bytes
    IterationBoundary* next = nullptr;   // fast-forward, asked first
  };
  Mitigation(Parts parts, RunContext& ctx);
  IterationSkip at_boundary(int rank, int iteration) override;
  // The most iterations fast-forward may skip now (0: none, negative: no limit): none with a
  // pause, split, replacement or re-check pending; otherwise fewer than the windows until the
  // ladder's loss reaches its next step's cost, or until the next re-check unless its outcome is
  // known, so that each action happens on a simulated iteration, at its time.
  int skip_limit() const;
  // results.json `health.mitigation`.
  nlohmann::ordered_json report() const;

 private:
  // What is being answered: from a diagnosis until the slowdown ends or a restart.
  struct Incident {
    bool link_cause = false;    // opened by a communication diagnosis
    double healthy_s = 0;       // the job's healthy time when it opened
    std::int64_t since_ps = 0;  // change point of its first diagnosis
    SkiRental ski;
    std::size_t position = 0;  // index into cfg.steps
    // Communication diagnoses made while an incident of slow GPUs or hosts is open: not its
    // cause, nothing its split answers. When that incident closes with the job still slow (its
    // GPUs re-probed healthy), they open their own, paid the loss since the first of them.
    std::vector<int> carried;
    double carried_loss_s = 0;
  };

  void diagnosed(const Diagnosis& d);
  void changed(const ChangeEvent& e);
  void window(const MonitorWindow& w);
  void fault(const FaultTruth& f, bool started);
  // Opens an incident on `diagnosis` in the first step, against the job's healthy time, with
  // `loss` already paid (a carried diagnosis's loss since it was made).
  void open(int diagnosis, double loss);
  void enter(std::size_t position, int diagnosis, double loss);
  void note_healthy(double level_s);                       // a level the job ran at: the lowest is its healthy time
  void pause(MitigationAction& a, std::int64_t pause_ps);  // every rank, at the common boundary
  void acted(std::int64_t pause_ps);                       // a split or move decided now, pausing pause_ps
  bool split(MitigationAction& a);                         // S2 around the slow replicas; false: nothing to move
  void even_split(MitigationAction& a);
  bool move(MitigationAction& a);  // S3, for slow GPUs or a slow link; false: no move pays
  void restart(MitigationAction& a, const std::vector<int>& nodes);
  bool link_incident() const;  // the incident's diagnoses name slow edges and no slow GPU
  bool has_step(MitigationStep s) const;
  void revert(int diagnosis, const char* why);
  void healed(std::vector<int> healed);  // S2's re-check found these healthy
  void all_healthy();                    // every GPU S2 works around re-probed healthy
  void healthy_again(std::vector<int> healed);

  Parts p_;
  RunContext& ctx_;
  CommonBoundary boundary_;
  SplitStep split_;
  MoveStep move_;
  RestartStep restart_;
  std::optional<Incident> incident_;
  // The job's healthy time: the lowest level before any verified change (0: none seen yet). An
  // incident that opens while another event holds the job slow counts its loss against this, not
  // against the slow level its own change started from.
  double healthy_ref_s_ = 0;
  // The last split or move, its pause, and the iteration time when it was decided (the slow one,
  // if slower than healthy): a split takes effect after the next iteration, so the drop it causes
  // comes iterations of this length later.
  std::int64_t acted_at_ = -1, acted_pause_ps_ = 0, acted_iteration_ps_ = 0;
  std::vector<MitigationAction> actions_;
  int track_ = -1;
};

}  // namespace trainvp
