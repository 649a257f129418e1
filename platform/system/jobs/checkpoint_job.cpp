#include "platform/system/jobs/checkpoint_job.hpp"

#include <algorithm>
#include <string>

#include "models/collectives/program.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

CheckpointJob::CheckpointJob(sc_core::sc_module_name name, const JobConfig& job, const ClusterConfig& cluster,
                             CollectiveEngine& engine, std::vector<int> nodes_of, std::function<bool()> training_done)
    : sc_module(name),
      job_(job),
      engine_(engine),
      nodes_of_(std::move(nodes_of)),
      training_done_(std::move(training_done)) {
  const std::vector<int>& storage = job.checkpoint.storage;
  for (std::size_t w = 0; w < job.nodes.size(); ++w) {
    const int to = storage[w % storage.size()];
    for (const GpuInstance& g : cluster.gpus) {
      if (g.node != job.nodes[w]) continue;
      for (const GpuInstance& d : cluster.gpus)
        if (d.node == to && d.local == g.local) transfers_.push_back({g.rank, d.rank});
    }
  }
  const std::uint64_t per_node = static_cast<std::uint64_t>(cluster.gpus_per_node);
  bytes_per_transfer_ = std::max<std::uint64_t>(1, job.checkpoint.bytes / std::max<std::uint64_t>(1, per_node));
  SC_HAS_PROCESS(CheckpointJob);
  SC_THREAD(run);
}

bool CheckpointJob::done() const {
  if (job_.checkpoint.bursts == 0) return true;  // it bursts while training runs: it holds no run
  return left_ == 0 && (static_cast<int>(bursts_.size()) >= job_.checkpoint.bursts || stopped_);
}

void CheckpointJob::launch_burst() {
  bursts_.push_back({now_ps(), -1});
  const int index = static_cast<int>(bursts_.size()) - 1;
  left_ = static_cast<int>(transfers_.size());
  for (auto [src, dst] : transfers_) {
    auto ends = std::make_shared<int>(2);  // both endpoints return
    const int id = engine_.launch(
        // A scatter from the writer over {writer, storage}: one transfer, writer to storage, of
        // the storage's half (a sendrecv would send both ways).
        std::make_shared<const CompiledProgram>(build_program(CollectiveOp::Scatter, CollectiveAlgo::Ring, {src, dst},
                                                              2 * bytes_per_transfer_, engine_.chunk(), nodes_of_)),
        CollectiveOp::Scatter, CollectiveAlgo::Ring, bytes_per_transfer_,
        job_.name + " checkpoint " + std::to_string(index) + " r" + std::to_string(src) + ">r" + std::to_string(dst),
        [this, ends, index](int) {
          if (--*ends > 0) return;
          if (--left_ > 0) return;
          bursts_[static_cast<std::size_t>(index)].end_ps = now_ps();
          burst_done_.notify(sc_core::SC_ZERO_TIME);
          changed_.notify(sc_core::SC_ZERO_TIME);
        });
    // Its bursts hold the run only through done() (a job without a burst count is cut).
    engine_.set_background(id);
    engine_.join(id, src);
    engine_.join(id, dst);
  }
}

void CheckpointJob::run() {
  const CheckpointParams& c = job_.checkpoint;
  std::int64_t next = job_.start_ps;
  while (c.bursts == 0 || static_cast<int>(bursts_.size()) < c.bursts) {
    if (next > now_ps()) wait(sc_core::sc_time(static_cast<double>(next - now_ps()), sc_core::SC_PS));
    if (c.bursts == 0 && training_done_()) break;
    launch_burst();
    if (left_ > 0) wait(burst_done_);
    next = std::max(bursts_.back().start_ps + c.period_ps, now_ps());
  }
  stopped_ = true;
  changed_.notify(sc_core::SC_ZERO_TIME);
}

nlohmann::ordered_json CheckpointJob::report() const {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["name"] = job_.name;
  o["kind"] = "checkpoint";
  o["nodes"] = job_.nodes;
  o["storage"] = job_.checkpoint.storage;
  o["start_s"] = sec(job_.start_ps);
  o["bytes_per_burst"] = job_.checkpoint.bytes * job_.nodes.size();
  o["transfers_per_burst"] = transfers_.size();
  ojson list = ojson::array();
  double busy = 0;
  for (const Burst& b : bursts_) {
    list.push_back({{"start_s", sec(b.start_ps)}, {"end_s", b.end_ps >= 0 ? ojson(sec(b.end_ps)) : ojson(nullptr)}});
    if (b.end_ps >= 0) busy += sec(b.end_ps - b.start_ps);
  }
  o["bursts"] = list;
  const int finished =
      static_cast<int>(std::count_if(bursts_.begin(), bursts_.end(), [](const Burst& b) { return b.end_ps >= 0; }));
  o["mean_burst_s"] = finished > 0 ? ojson(busy / finished) : ojson(nullptr);
  return o;
}

}  // namespace trainvp
