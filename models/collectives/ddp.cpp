#include "models/collectives/ddp.hpp"

#include <algorithm>
#include <map>

#include "platform/core/sim_time.hpp"

namespace trainvp {

std::int64_t union_length(std::vector<TimeInterval> v) {
  std::sort(v.begin(), v.end(), [](const TimeInterval& a, const TimeInterval& b) { return a.start < b.start; });
  std::int64_t total = 0, cur_s = 0, cur_e = -1;
  for (auto& i : v) {
    if (i.start > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = i.start, cur_e = i.end;
    } else {
      cur_e = std::max(cur_e, i.end);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

std::vector<Bucket> make_buckets(const Workload& w, std::uint64_t first_cap, std::uint64_t cap) {
  std::vector<Bucket> out;
  Bucket cur;
  for (int l = static_cast<int>(w.layers.size()) - 1; l >= 0; --l) {
    const Layer& layer = w.layers[static_cast<std::size_t>(l)];
    if (layer.grad_bytes == 0) continue;
    cur.layers.push_back(l);
    cur.bytes += layer.grad_bytes;
    // PyTorch closes a bucket once it reaches its cap (a single large tensor may exceed it).
    if (cur.bytes >= (out.empty() ? first_cap : cap)) out.push_back(std::move(cur)), cur = Bucket{};
  }
  if (!cur.layers.empty()) out.push_back(std::move(cur));
  return out;
}

DdpSync::DdpSync(sc_core::sc_module_name name, const DdpConfig& cfg, const Workload& w, std::vector<Gpu*> gpus,
                 CollectiveEngine& engine, std::vector<int> nodes_of, int iterations, RunContext& ctx)
    : sc_module(name),
      cfg_(cfg),
      gpus_(std::move(gpus)),
      group_(gpus_),
      engine_(engine),
      nodes_of_(std::move(nodes_of)),
      ctx_(ctx) {
  const std::uint64_t all = ~0ull;
  buckets_ = cfg.overlap ? make_buckets(w, cfg.first_bucket, cfg.bucket) : make_buckets(w, all, all);
  bucket_of_layer_.assign(w.layers.size(), -1);
  for (const Layer& l : w.layers) layer_bytes_.push_back(l.grad_bytes);
  for (std::size_t b = 0; b < buckets_.size(); ++b)
    for (int l : buckets_[b].layers) bucket_of_layer_[static_cast<std::size_t>(l)] = static_cast<int>(b);
  const std::size_t n = gpus_.size();
  // Buckets of one size share one program: it depends on nothing else here, and most buckets are
  // the same size (GPT-2 XL: 47 of 49), which an explicit program (hierarchical: 72 K transfers a
  // bucket at 512 GPUs) would otherwise repeat in memory and in the time to build it.
  std::map<std::uint64_t, std::shared_ptr<const CompiledProgram>> by_size;
  for (auto& b : buckets_) {
    auto& program = by_size[b.bytes];
    if (!program)
      program = std::make_shared<const CompiledProgram>(build_program(cfg.op, cfg.algorithm, group_.world(), b.bytes,
                                                                      engine.chunk(), nodes_of_, 0,
                                                                      &engine.device_map(), &engine.ring_layout()));
    programs_.push_back(program);
  }
  pending_layers_.assign(n, std::vector<int>(buckets_.size()));
  for (auto& p : pending_layers_)
    for (std::size_t b = 0; b < buckets_.size(); ++b) p[b] = static_cast<int>(buckets_[b].layers.size());
  done_.assign(n, PerIteration<int>(0));
  busy_.assign(n, PerIteration<std::vector<TimeInterval>>());
  streams_.reset(n, cfg.comm_streams, buckets_.size());
  in_flight_.assign(n, 0);
  peak_in_flight_.assign(n, 0);
  ids_ = PerIteration<std::vector<int>>(std::vector<int>(buckets_.size(), -1));
  (void)iterations;  // per-iteration state grows as iterations are reached
  for (std::size_t r = 0; r < n; ++r) {
    changed_.push_back(std::make_unique<sc_core::sc_event>());
    gpus_[r]->gradient_ready.connect([this](const GradientReady& g) { on_gradient(g); });
    gpus_[r]->set_gate(this);
    std::string full = gpus_[r]->name();  // nodeN.gpuM
    tracks_.push_back(ctx.trace.enabled()
                          ? ctx.trace.track(full.substr(0, full.find('.')), full.substr(full.find('.') + 1) + " comm")
                          : -1);
  }
}

int DdpSync::collective(int iteration, int b) {
  const std::size_t bi = static_cast<std::size_t>(b);
  if (ids_[iteration][bi] >= 0) return ids_[iteration][bi];
  std::shared_ptr<BufferLayout> layout;
  if (engine_.functional()) {  // the bucket's gradients, in bucket order
    layout = std::make_shared<BufferLayout>();
    layout->iteration = iteration;
    layout->what = "bucket " + std::to_string(b);
    for (int l : buckets_[bi].layers) layout->layers.push_back({l, layer_bytes_[static_cast<std::size_t>(l)]});
  }
  const int id = engine_.launch(
      programs_[bi], cfg_.op, cfg_.algorithm, buckets_[bi].bytes,
      std::string(name()) + " it" + std::to_string(iteration) + " bucket" + std::to_string(b),
      [this, iteration, b](int rank) { rank_finished(rank, iteration, b); }, std::move(layout));
  ids_[iteration][bi] = id;
  return id;
}

void DdpSync::on_gradient(const GradientReady& g) {
  int b = bucket_of_layer_[static_cast<std::size_t>(g.layer)];
  if (b < 0) return;
  int& left = pending_layers_[at(g.rank)][static_cast<std::size_t>(b)];
  if (--left == 0) {
    left = static_cast<int>(buckets_[static_cast<std::size_t>(b)].layers.size());  // ready for the next iteration
    bucket_ready(g.rank, g.iteration, b);
  }
}

void DdpSync::bucket_ready(int rank, int iteration, int b) {
  collective(iteration, b);
  in_flight_[at(rank)] += buckets_[static_cast<std::size_t>(b)].bytes;
  peak_in_flight_[at(rank)] = std::max(peak_in_flight_[at(rank)], in_flight_[at(rank)]);
  int stream = b % cfg_.comm_streams;
  streams_.push(at(rank), stream, {iteration, b});
  try_join(rank, stream);
}

void DdpSync::try_join(int rank, int stream) {
  if (const std::optional<StreamQueues::Work> next = streams_.start_next(at(rank), stream, now_ps()))
    engine_.join(collective(next->iteration, next->index), rank);
}

void DdpSync::rank_finished(int rank, int iteration, int b) {
  std::int64_t now = now_ps();
  const std::int64_t joined = streams_.started_ps(at(rank), b);
  busy_[at(rank)][iteration].push_back({joined, now});
  in_flight_[at(rank)] -= buckets_[static_cast<std::size_t>(b)].bytes;
  if (tracks_[at(rank)] >= 0)
    ctx_.trace.slice(tracks_[at(rank)], std::string(op_name(cfg_.op)) + " bucket " + std::to_string(b), "comm", joined,
                     now, {{"iteration", iteration}, {"bytes", buckets_[static_cast<std::size_t>(b)].bytes}});
  ++done_[at(rank)][iteration];
  int stream = b % cfg_.comm_streams;
  streams_.finished(at(rank), stream);
  changed_[at(rank)]->notify(sc_core::SC_ZERO_TIME);
  try_join(rank, stream);
}

bool DdpSync::may_start(int rank, int iteration, const Phase& phase) const {
  // The optimizer waits for this iteration's buckets. The next iteration's first forward waits
  // too, which only matters without an optimizer step.
  int it = iteration;
  if (phase.kind != PhaseKind::Optimizer) {
    if (phase.kind != PhaseKind::Forward || phase.layer != 0 || phase.micro_batch != 0 || iteration == 0) return true;
    it = iteration - 1;
  }
  return done_[at(rank)].at(it) == static_cast<int>(buckets_.size());
}

std::string DdpSync::waiting_for(int rank, int iteration, const Phase& phase) const {
  if (phase.kind != PhaseKind::Optimizer) --iteration;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    int id = ids_.at(iteration)[b];
    if (id < 0)
      return "bucket " + std::to_string(b) + " of iteration " + std::to_string(iteration) + " (never launched)";
    if (!engine_.rank_done(id, rank)) return engine_.describe(id, rank);
  }
  return "nothing (all buckets done)";
}

void DdpSync::skip_iterations(int first, int count, int period, std::int64_t) {
  // The skipped iterations read as those of the period they repeat (PerIteration::repeat): the
  // buckets done and the busy intervals, whose union's length does not move with them.
  for (std::size_t r = 0; r < gpus_.size(); ++r)
    done_[r].repeat(first, count, period), busy_[r].repeat(first, count, period);
}

std::int64_t DdpSync::comm_ps(int rank, int iteration) const { return union_length(busy_[at(rank)].at(iteration)); }

void DdpSync::report(nlohmann::ordered_json& results) const {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Bucket& b : buckets_) list.push_back({{"bytes", b.bytes}, {"layers", b.layers.size()}});
  results["sync"]["buckets"] = list;
}

}  // namespace trainvp
