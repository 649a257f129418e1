#include "platform/system/chakra/chakra_run.hpp"

#include <algorithm>

#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

using Intervals = std::vector<std::pair<std::int64_t, std::int64_t>>;

Intervals merged(Intervals v) {
  std::sort(v.begin(), v.end());
  Intervals out;
  for (const auto& x : v) {
    if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
    else out.push_back(x);
  }
  return out;
}

std::int64_t length(const Intervals& m) {
  std::int64_t t = 0;
  for (const auto& x : m) t += x.second - x.first;
  return t;
}

// Overlap of two merged lists.
std::int64_t overlap(const Intervals& a, const Intervals& b) {
  std::int64_t t = 0;
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    t += std::max<std::int64_t>(0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    a[i].second < b[j].second ? ++i : ++j;
  }
  return t;
}

CollectiveOp op_of(int comm_type) {
  switch (comm_type) {
    case chakra::kAllGather: return CollectiveOp::AllGather;
    case chakra::kReduceScatter: return CollectiveOp::ReduceScatter;
    case chakra::kBroadcast: return CollectiveOp::Broadcast;
    case chakra::kAllToAll: return CollectiveOp::AllToAll;
    case chakra::kReduce: return CollectiveOp::Reduce;
    case chakra::kGather: return CollectiveOp::Gather;
    case chakra::kScatter: return CollectiveOp::Scatter;
    default: return CollectiveOp::AllReduce;  // all-reduce and barrier (the plan admits no other type)
  }
}

}  // namespace

ChakraRun::ChakraRun(sc_core::sc_module_name name, const ChakraWorkload& w, std::vector<Gpu*> gpus,
                     CollectiveEngine& engine, std::vector<int> nodes_of, RunContext& ctx)
    : sc_module(name), w_(w), gpus_(std::move(gpus)), engine_(engine), nodes_of_(std::move(nodes_of)), ctx_(ctx) {
  const int p = static_cast<int>(w.trace_of.size());
  ranks_.resize(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    Rank& rk = ranks_[static_cast<std::size_t>(r)];
    rk.trace = w.trace_of[static_cast<std::size_t>(r)].get();
    auto [it, fresh] = children_.try_emplace(rk.trace);
    if (fresh) {  // replicated traces share one CSR
      const auto& nodes = rk.trace->nodes;
      std::map<std::uint64_t, int> index;
      for (std::size_t i = 0; i < nodes.size(); ++i) index[nodes[i].id] = static_cast<int>(i);
      Children& c = it->second;
      c.deps.assign(nodes.size(), 0);
      std::vector<std::vector<int>> kids(nodes.size());
      for (std::size_t i = 0; i < nodes.size(); ++i)
        for (std::uint64_t d : nodes[i].deps)
          kids[static_cast<std::size_t>(index.at(d))].push_back(static_cast<int>(i)), ++c.deps[i];
      c.begin.push_back(0);
      for (auto& k : kids)
        c.list.insert(c.list.end(), k.begin(), k.end()), c.begin.push_back(static_cast<int>(c.list.size()));
    }
    rk.children = &it->second;
    rk.left = rk.children->deps;
    rk.start_ps.assign(rk.trace->nodes.size(), -1);
    rk.status.assign(rk.trace->nodes.size(), 0);
    if (ctx_.trace.enabled()) rk.track = ctx_.trace.track("chakra", "rank " + std::to_string(r));
  }
  for (const chakra::CollectiveUse& u : w.plan->collectives) {
    auto [it, fresh] = position_.try_emplace(u.group);
    if (!fresh) continue;
    it->second.assign(static_cast<std::size_t>(p), -1);
    for (std::size_t j = 0; j < u.ranks.size(); ++j)
      it->second[static_cast<std::size_t>(u.ranks[j])] = static_cast<int>(j);
  }
  coll_id_.assign(w.plan->collectives.size(), -1);
  p2p_id_.assign(w.plan->p2p.size(), -1);
  for (const Rank& rk : ranks_)
    if (rk.trace->nodes.empty()) ++ranks_done_;
  SC_HAS_PROCESS(ChakraRun);
  SC_METHOD(process);  // its first run, at time 0, issues every node without dependencies
  sensitive << wake_ << timers_.event();
}

void ChakraRun::process() {
  if (!started_) {
    started_ = true;
    for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
      const Rank& rk = ranks_[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < rk.left.size(); ++i)
        if (rk.left[i] == 0) issue(r, i);
    }
    if (finished()) finished_ev_.notify(sc_core::SC_ZERO_TIME);
  }
  while (Timer* t = timers_.get_next()) pending_.emplace_back(t->rank, t->node);
  while (!pending_.empty()) {
    std::vector<std::pair<int, std::size_t>> batch;
    batch.swap(pending_);
    for (const auto& [r, i] : batch) finish(r, i);
  }
}

void ChakraRun::issue(int r, std::size_t i) {
  Rank& rk = ranks_[static_cast<std::size_t>(r)];
  const chakra::Node& n = rk.trace->nodes[i];
  rk.start_ps[i] = now_ps();
  rk.status[i] = 1;
  ++ctx_.events;
  switch (n.type) {
    case chakra::kCompNode:
      if (n.is_cpu_op) {  // the host: its recorded time, beside the GPU's stream
        timer_store_.push_back(std::make_unique<Timer>(Timer{r, i}));
        timers_.notify(timer_store_.back().get(), static_cast<std::int64_t>(n.duration_us) * 1000000);
        return;
      }
      [[fallthrough]];
    case chakra::kMemLoadNode:
    case chakra::kMemStoreNode: {
      PhaseWork work;
      if (n.duration_us > 0) work.measured_ps = static_cast<std::int64_t>(n.duration_us) * 1000000;
      else if (n.type == chakra::kCompNode)
        work.flops = static_cast<double>(n.num_ops), work.bytes = static_cast<double>(n.tensor_size), work.kernels = 1;
      else work.bytes = static_cast<double>(n.tensor_size);  // HBM traffic, no kernel of its own
      const int slice =
          ctx_.trace.enabled() ? ctx_.trace.name(n.name.empty() ? chakra::node_type_name(n.type) : n.name) : -1;
      gpus_[static_cast<std::size_t>(r)]->queue_probe(
          work, w_.dtype, [this, r, i](std::int64_t, std::int64_t) { complete(r, i); }, slice, "chakra");
      return;
    }
    case chakra::kSendNode:
    case chakra::kRecvNode: return issue_p2p(r, i);
    case chakra::kCollNode: return issue_collective(r, i);
    default: return complete(r, i);  // metadata and invalid nodes take no time
  }
}

std::shared_ptr<const CompiledProgram> ChakraRun::program(const chakra::CollectiveUse& u, CollectiveOp op) {
  const int root = u.root < 0 ? 0 : position_.at(u.group)[static_cast<std::size_t>(u.root)];
  auto key = std::make_tuple(static_cast<int>(op), u.bytes, u.group, root);
  auto it = programs_.find(key);
  if (it != programs_.end()) return it->second;
  const CollectiveAlgo algo = op == CollectiveOp::AllReduce ? w_.algorithm : CollectiveAlgo::Ring;
  auto cp = std::make_shared<const CompiledProgram>(build_program(
      op, algo, u.ranks, u.bytes, engine_.chunk(), nodes_of_, root, &engine_.device_map(), &engine_.ring_layout()));
  programs_.emplace(key, cp);
  return cp;
}

void ChakraRun::issue_collective(int r, std::size_t i) {
  const int u = w_.plan->use_of[static_cast<std::size_t>(r)][i];
  if (coll_id_[static_cast<std::size_t>(u)] < 0) {
    const chakra::CollectiveUse& c = w_.plan->collectives[static_cast<std::size_t>(u)];
    const CollectiveOp op = op_of(c.comm_type);
    const chakra::Node& n = ranks_[static_cast<std::size_t>(r)].trace->nodes[i];
    coll_id_[static_cast<std::size_t>(u)] = engine_.launch(
        program(c, op), op, op == CollectiveOp::AllReduce ? w_.algorithm : CollectiveAlgo::Ring, c.bytes,
        n.name.empty() ? chakra::comm_type_name(c.comm_type) + " #" + std::to_string(u) : n.name, [this, u](int rank) {
          const chakra::CollectiveUse& c = w_.plan->collectives[static_cast<std::size_t>(u)];
          complete(rank, c.node_of[static_cast<std::size_t>(position_.at(c.group)[static_cast<std::size_t>(rank)])]);
        });
  }
  engine_.join(coll_id_[static_cast<std::size_t>(u)], r);
}

void ChakraRun::issue_p2p(int r, std::size_t i) {
  const int u = w_.plan->use_of[static_cast<std::size_t>(r)][i];
  const chakra::PointToPoint& x = w_.plan->p2p[static_cast<std::size_t>(u)];
  if (p2p_id_[static_cast<std::size_t>(u)] < 0) {
    auto key = std::make_tuple(static_cast<int>(CollectiveOp::SendRecv), x.bytes,
                               std::to_string(x.src) + ">" + std::to_string(x.dst), -1);
    auto it = programs_.find(key);
    if (it == programs_.end()) {
      Program pr;  // one direction: the send meets its receive (a rendezvous, as NCCL's send/recv)
      pr.ranks = {x.src, x.dst};
      Transfer t;
      t.src = x.src, t.dst = x.dst, t.bytes = x.bytes;
      pr.transfers.push_back(t);
      it = programs_.emplace(key, std::make_shared<const CompiledProgram>(std::move(pr))).first;
    }
    const chakra::Node& s = ranks_[static_cast<std::size_t>(x.src)].trace->nodes[x.send_node];
    p2p_id_[static_cast<std::size_t>(u)] = engine_.launch(
        it->second, CollectiveOp::SendRecv, CollectiveAlgo::Ring, x.bytes,
        s.name.empty() ? "send " + std::to_string(x.src) + ">" + std::to_string(x.dst) : s.name, [this, u](int rank) {
          const chakra::PointToPoint& x = w_.plan->p2p[static_cast<std::size_t>(u)];
          complete(rank, rank == x.src ? x.send_node : x.recv_node);
        });
  }
  engine_.join(p2p_id_[static_cast<std::size_t>(u)], r);
}

void ChakraRun::finish(int r, std::size_t i) {
  Rank& rk = ranks_[static_cast<std::size_t>(r)];
  const chakra::Node& n = rk.trace->nodes[i];
  const std::int64_t now = now_ps(), start = rk.start_ps[i];
  rk.status[i] = 2;
  int kind = -1;
  if (n.type == chakra::kCompNode) kind = n.is_cpu_op ? kCpu : kGpu;
  else if (n.type == chakra::kMemLoadNode || n.type == chakra::kMemStoreNode) kind = kGpu;
  else if (n.type == chakra::kSendNode || n.type == chakra::kRecvNode || n.type == chakra::kCollNode) kind = kComm;
  if (kind >= 0 && now > start) rk.busy[kind].push_back({start, now});
  if (rk.track >= 0 && (kind == kCpu || kind == kComm))
    ctx_.trace.slice(rk.track, n.name.empty() ? chakra::node_type_name(n.type) : n.name,
                     kind == kCpu ? "cpu" : "communication", start, now, {{"node", n.id}});
  rk.end_ps = now;
  end_ps_ = std::max(end_ps_, now);
  if (++rk.done == rk.trace->nodes.size() && ++ranks_done_ == static_cast<int>(ranks_.size()))
    finished_ev_.notify(sc_core::SC_ZERO_TIME);
  const Children& c = *rk.children;
  for (int k = c.begin[i]; k < c.begin[i + 1]; ++k) {
    const std::size_t child = static_cast<std::size_t>(c.list[static_cast<std::size_t>(k)]);
    if (--rk.left[child] == 0) issue(r, child);
  }
}

ChakraRun::RankTimes ChakraRun::times(int rank) const {
  const Rank& rk = ranks_[static_cast<std::size_t>(rank)];
  RankTimes t;
  t.end_ps = rk.end_ps;
  t.nodes = rk.trace->nodes.size();
  const Intervals gpu = merged(rk.busy[kGpu]), cpu = merged(rk.busy[kCpu]), comm = merged(rk.busy[kComm]);
  Intervals compute = gpu;
  compute.insert(compute.end(), cpu.begin(), cpu.end());
  t.gpu_ps = length(gpu), t.cpu_ps = length(cpu), t.comm_ps = length(comm);
  t.exposed_comm_ps = t.comm_ps - overlap(comm, merged(std::move(compute)));
  return t;
}

nlohmann::ordered_json ChakraRun::report() const {
  using ojson = nlohmann::ordered_json;
  std::size_t nodes = 0;
  ojson per = ojson::array();
  for (int r = 0; r < static_cast<int>(ranks_.size()); ++r) {
    const RankTimes t = times(r);
    nodes += t.nodes;
    per.push_back({{"rank", r},
                   {"nodes", t.nodes},
                   {"end_s", sec(t.end_ps)},
                   {"gpu_busy_s", sec(t.gpu_ps)},
                   {"cpu_busy_s", sec(t.cpu_ps)},
                   {"communication_s", sec(t.comm_ps)},
                   {"exposed_communication_s", sec(t.exposed_comm_ps)}});
  }
  ojson j;
  j["traces"] = w_.traces;
  j["files"] = w_.files.size();
  j["replicated"] = w_.replicated;
  j["version"] = ranks_.empty() ? "" : ranks_.front().trace->version;
  j["ranks"] = ranks_.size();
  j["nodes"] = nodes;
  j["collectives"] = w_.plan->collectives.size();
  j["point_to_point"] = w_.plan->p2p.size();
  j["time_s"] = sec(end_ps_);
  j["per_rank"] = per;
  return j;
}

std::string ChakraRun::state() const {
  std::string s;
  int listed = 0;
  for (int r = 0; r < static_cast<int>(ranks_.size()) && listed < 4; ++r) {
    const Rank& rk = ranks_[static_cast<std::size_t>(r)];
    if (rk.done == rk.trace->nodes.size()) continue;
    ++listed;
    s += "\n    rank " + std::to_string(r) + ": " + std::to_string(rk.done) + " of " +
         std::to_string(rk.trace->nodes.size()) + " nodes done";
    int shown = 0;
    for (std::size_t i = 0; i < rk.status.size() && shown < 3; ++i) {
      if (rk.status[i] != 1) continue;
      ++shown;
      const chakra::Node& n = rk.trace->nodes[i];
      s += "; running " + chakra::describe(n);
      const int u = w_.plan->use_of[static_cast<std::size_t>(r)][i];
      if (n.type == chakra::kCollNode && coll_id_[static_cast<std::size_t>(u)] >= 0)
        s += " (" + engine_.describe(coll_id_[static_cast<std::size_t>(u)], r) + ")";
      else if ((n.type == chakra::kSendNode || n.type == chakra::kRecvNode) &&
               p2p_id_[static_cast<std::size_t>(u)] >= 0)
        s += " (" + engine_.describe(p2p_id_[static_cast<std::size_t>(u)], r) + ")";
    }
  }
  return s;
}

}  // namespace trainvp
