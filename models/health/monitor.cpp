#include "models/health/monitor.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "models/collectives/ring_channels.hpp"
#include "models/gpu/roofline.hpp"
#include "models/health/algorithms/autocorrelation.hpp"
#include "models/health/algorithms/group_compare.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {

bool is_probe(const CollectiveCall& c) { return c.record && c.record->label.compare(0, 6, "probe ") == 0; }

// The calls a period estimate may hold before it gives up (memory bound).
constexpr std::size_t kMaxPeriodCalls = 400000;

}  // namespace

struct FailSlowMonitor::Validation {
  int change = 0;
  ChangeFinding finding;
  int pending = 0;
  bool edges_probed = false;    // the second stage: the edges of late ranks whose GEMMs passed
  std::size_t first_links = 0;  // links[0, first_links) are the first stage's
  std::vector<GemmProbeResult> gemm;
  std::vector<LinkProbeResult> links;
  std::vector<int> sample;  // no suspect, or slow suspects that explain little: other ranks' GEMMs
  bool peers_probed = false;
};

namespace {

// Late ranks whose lateness grew by less than this share of the iteration time's growth do not
// hold the job back by themselves: when their GEMMs are slow, their peers' are probed too (the
// whole group may have slowed, the late ones leading it by a little). One slow GPU's lateness
// grows by about the whole growth (its peers wait for all of it).
constexpr double kExplainedShare = 0.5;

}  // namespace

const ModelInfo& FailSlowMonitor::info() {
  static const ModelInfo i{
      "failslow_monitor",
      "GREYHOUND's fail-slow monitor and detector in the loop: from collective calls alone (as an interposer sees "
      "them) it finds the iteration period, cuts windows, detects change points (BOCPD) and validates suspects with "
      "GEMM and link probes run as real work, then tells the mitigation its diagnosis (docs/health.md).",
      {"health", "health_detector"},
      "health.detector",
      {},
      {{"tracking_overhead", "fraction", "the interposer's cost, charged to every GPU it watches"},
       {"period_calls", "count", "collective calls per iteration found by autocorrelation (null: none found)"},
       {"period_note", "text", "why no period was found", "no period found"},
       {"windows", "count", "windows read by the detector"},
       {"windows_disturbed", "count", "windows its own probes ran in (not read)"},
       {"windows_fast_forwarded", "count", "windows standing for iterations fast-forward skipped"},
       {"communicators", "count", "communicators it has seen"},
       {"changes", "list",
        "change points: change_s, detected_s, direction (slowdown, recovery, still slow, late rank), before_s, after_s"},
       {"gemm_probes", "count", "GEMM probes run on suspect GPUs"},
       {"link_probe_edges", "count", "link probes run over suspect edges"}},
      {{"call_started, call_ended", "listens to CollectiveEngine's trace sources", "every rank's collective calls"},
       {"phase_end", "listens to Gpu's trace source", "its lead rank's phases: iteration ends"},
       {"probes", "calls Gpu (queue_probe) and LinkProber", "GEMMs on suspect GPUs, transfers over suspect edges"},
       {"gemm_check, note_pause", "serves DiagnosisSource", "the mitigation ladder's re-checks and pauses"}},
      {},
      {{"diagnosis", "Diagnosis", "a slowdown diagnosed: cause, GPUs or links, confidence (the mitigation acts)"},
       {"change", "ChangeEvent", "a change point verified, a slowdown or a recovery"},
       {"window", "MonitorWindow", "a window closed (the ladder sums its loss over them)"}}};
  return i;
}

FailSlowMonitor::FailSlowMonitor(sc_core::sc_module_name name, Parts parts, RunContext& ctx)
    : sc_module(name),
      p_(std::move(parts)),
      ctx_(ctx),
      detector_(p_.params),
      prober_(*p_.engine, p_.nodes_of, p_.params.link_probe_min, p_.params.link_probe_repeats,
              [this](std::function<void()> f) { defer(std::move(f)); }) {
  p_.engine->call_started.connect([this](const CollectiveCall& c) { call_started(c); });
  p_.engine->call_ended.connect([this](const CollectiveCall& c) { call_ended(c); });
  if (p_.ranks.empty())
    for (std::size_t r = 0; r < p_.gpus.size(); ++r) p_.ranks.push_back(static_cast<int>(r));
  local_.assign(p_.gpus.size(), -1);
  for (std::size_t i = 0; i < p_.ranks.size(); ++i) local_[static_cast<std::size_t>(p_.ranks[i])] = static_cast<int>(i);
  if (!p_.ranks.empty())
    p_.gpus[static_cast<std::size_t>(p_.ranks.front())]->phase_end.connect(
        [this](int, int, const Phase&) { rank0_phase_end(); });
  // The interposer's bookkeeping runs on the host between kernels: charged as slower compute.
  for (int r : p_.ranks) {
    Gpu* g = p_.gpus[static_cast<std::size_t>(r)];
    g->set_speed(g->speed() / (1.0 + p_.params.tracking_overhead));
  }
  lateness_.assign(p_.ranks.size(), 0.0);
  SC_HAS_PROCESS(FailSlowMonitor);
  SC_METHOD(run_deferred);
  sensitive << deferred_event_;
  dont_initialize();
}

void FailSlowMonitor::defer(std::function<void()> f) {
  deferred_.push_back(std::move(f));
  deferred_event_.notify(sc_core::SC_ZERO_TIME);
}

void FailSlowMonitor::run_deferred() {
  std::deque<std::function<void()>> now;
  now.swap(deferred_);
  for (auto& f : now) f();
}

void FailSlowMonitor::rank0_phase_end() {
  if (++phases_ % p_.gpus[static_cast<std::size_t>(lead_rank())]->phases_per_iteration() != 0) return;
  ++rank0_iterations_;
  if (skip_delay_ps_ > 0) paused_ps_ += skip_delay_ps_, skip_delay_ps_ = 0;
  // The first iteration (warm-up, pipeline fill) is not read: collection starts after it.
  if (rank0_iterations_ == 1) collecting_ = true;
  else if (period_ == 0 && collecting_ && rank0_iterations_ >= 1 + p_.params.period_iterations) try_period();
}

void FailSlowMonitor::try_period() {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < rank0_starts_.size(); ++i) gaps.push_back(sec(rank0_starts_[i] - rank0_starts_[i - 1]));
  const int lag =
      gaps.size() >= 4 ? first_period(gaps, p_.params.period_threshold, static_cast<int>(gaps.size() / 2)) : 0;
  if (lag > 0) {
    period_ = lag;
    rank0_starts_.clear();
    rank0_starts_.shrink_to_fit();
    return;
  }
  // More iterations may show it (a long warm-up); give up after four times the reading.
  if (rank0_iterations_ >= 1 + 4 * p_.params.period_iterations || rank0_starts_.size() >= kMaxPeriodCalls) {
    collecting_ = false;
    period_note_ = "no autocorrelation lag of rank 0's call gaps reached the threshold";
    rank0_starts_.clear();
  }
}

int FailSlowMonitor::group_of(const CollectiveCall& c) {
  const std::uint64_t key = (static_cast<std::uint64_t>(c.communicator[0]) << 40) ^
                            (static_cast<std::uint64_t>(c.comm_size > 1 ? c.communicator[1] + 1 : 0) << 20) ^
                            static_cast<std::uint64_t>(c.comm_size);
  auto [it, fresh] = groups_.try_emplace(key, static_cast<int>(group_size_.size()));
  if (fresh) {
    group_size_.push_back(c.comm_size);
    group_ranks_.emplace_back(c.communicator, c.communicator + c.comm_size);
    transfer_.push_back(0), bytes_.push_back(0);
  }
  return it->second;
}

void FailSlowMonitor::call_started(const CollectiveCall& c) {
  if (is_probe(c) || local_[static_cast<std::size_t>(c.communicator[0])] < 0) return;  // another job's
  if (c.rank == lead_rank() && collecting_) {
    if (period_ == 0) {
      rank0_starts_.push_back(c.start_ps);
    } else if (rank0_calls_ % period_ == 0) {  // a window boundary: one period of rank 0's calls
      if (window_start_ >= 0) close_window(c.start_ps);
      else first_window_iteration_ = rank0_iterations_;
      window_start_ = c.start_ps;
      paused_ps_ = 0;
    }
    ++rank0_calls_;
  }
  auto [it, fresh] = live_.try_emplace(c.id);
  Instance& in = it->second;
  if (fresh) in.group = group_of(c), in.size = c.comm_size, in.min_start = in.max_start = c.start_ps;
  ++in.joined;
  in.min_start = std::min(in.min_start, c.start_ps);
  in.max_start = std::max(in.max_start, c.start_ps);
  in.starts.push_back({c.rank, c.start_ps});
  if (in.joined == in.size && window_start_ >= 0)
    for (auto& [r, s] : in.starts)
      lateness_[static_cast<std::size_t>(local_[static_cast<std::size_t>(r)])] += sec(s - in.min_start);
}

void FailSlowMonitor::call_ended(const CollectiveCall& c) {
  if (is_probe(c)) return;
  auto it = live_.find(c.id);
  if (it == live_.end()) return;
  Instance& in = it->second;
  in.max_end = std::max(in.max_end, c.end_ps);
  if (++in.ended < in.size) return;
  if (window_start_ >= 0) {
    transfer_[static_cast<std::size_t>(in.group)] += sec(in.max_end - in.max_start);
    bytes_[static_cast<std::size_t>(in.group)] += static_cast<double>(c.record->bytes);
  }
  live_.erase(it);
}

void FailSlowMonitor::close_window(std::int64_t at) {
  MonitorWindow w;
  w.start_ps = window_start_, w.end_ps = at;
  w.lateness_s = lateness_, w.transfer_s = transfer_, w.bytes = bytes_;
  w.paused_s = sec(paused_ps_);
  paused_ps_ = 0;
  // Probes slow the training they compete with: the detector must not take its own validation
  // for a change (and then the end of it for a recovery).
  w.disturbed = disturbed_;
  disturbed_ = probing_ > 0;
  std::fill(lateness_.begin(), lateness_.end(), 0.0);
  std::fill(transfer_.begin(), transfer_.end(), 0.0);
  std::fill(bytes_.begin(), bytes_.end(), 0.0);
  read(w, at);
}

void FailSlowMonitor::read(const MonitorWindow& w, std::int64_t at) {
  std::optional<ChangeFinding> f;
  ++windows_;
  if (w.disturbed) ++disturbed_windows_;
  else if (w.seconds() > 0) f = detector_.add(w, group_size_), last_ = w;
  window_closed(w);
  if (f) handle(*f, at);
}

void FailSlowMonitor::handle(const ChangeFinding& f, std::int64_t at) {
  ChangeEvent e;
  e.change_ps = detector_.window_start_ps(f.change_window);
  e.detected_ps = at;
  e.slowdown = f.slowdown;
  e.against_healthy = f.against_healthy;
  e.late_rank = f.late_rank;
  e.before_s = f.before_s, e.after_s = f.after_s;
  changes_.push_back(e);
  changed(e);
  if (!f.slowdown) return;
  const int change = static_cast<int>(changes_.size()) - 1;
  ChangeFinding g = f;  // the detector counts ranks by position among those watched
  for (int& r : g.compute_suspects) r = p_.ranks[static_cast<std::size_t>(r)];
  defer([this, g, change] { validate(g, change); });  // probes start outside the engine's callback
}

void FailSlowMonitor::validate(const ChangeFinding& f, int change) {
  auto v = std::make_shared<Validation>();
  v->change = change, v->finding = f;
  ++probing_, disturbed_ = true;
  for (int r : f.compute_suspects) queue_gemms(r, v);
  // No suspect (no rank, no communicator slower than its peers): GEMMs on a sample of the ranks,
  // spread over them, tell a whole group computing slowly (the GEMM is judged against the
  // datasheet, not a peer); the edges of a few communicators of the largest size, probed beside
  // each other, tell whether one edge is slower than the rest after all.
  if (f.no_outlier) {
    const std::size_t n = p_.ranks.size(),
                      k = std::min<std::size_t>(n, static_cast<std::size_t>(p_.params.max_suspects));
    std::vector<int> sample;
    for (std::size_t i = 0; i < k; ++i) sample.push_back(p_.ranks[i * n / k]);
    v->sample = sample;
    v->peers_probed = true;
    for (int r : sample) queue_gemms(r, v);
    int widest = -1;
    for (std::size_t g = 0; g < group_ranks_.size(); ++g)
      if (group_ranks_[g].size() >= 2 &&
          (widest < 0 || group_ranks_[g].size() > group_ranks_[static_cast<std::size_t>(widest)].size()))
        widest = static_cast<int>(g);
    if (widest >= 0) {
      ++v->pending;
      probe_groups({widest}, {}, v);
    }
    if (v->pending == 0) step(v);
    return;
  }
  // Link probes: the ring edges of each suspect communicator, beside those of peers of the same
  // shape as references (a 2-rank communicator has no peers within itself to compare with).
  std::vector<int> groups(f.comm_suspects.begin(), f.comm_suspects.end());
  if (!groups.empty()) {
    ++v->pending;
    probe_groups(groups, {}, v);
  }
  if (v->pending == 0) step(v);
}

// GEMM probes on `r` in FP8 (where it has it), FP16 and FP32, each judged against the datasheet.
void FailSlowMonitor::queue_gemms(int r, const std::shared_ptr<Validation>& v) {
  Gpu* g = p_.gpus[static_cast<std::size_t>(r)];
  std::vector<std::pair<DType, const char*>> types = {{DType::FP16, "fp16"}, {DType::FP32, "fp32"}};
  if (g->params().peak_fp8 > 0) types.insert(types.begin(), {DType::FP8, "fp8"});
  for (const auto& type : types) {
    const DType dt = type.first;  // named copies: a lambda cannot capture structured bindings in C++17
    const char* label = type.second;
    const PhaseWork w = gemm_work(dt);
    const double expected = sec(phase_time_ps(g->params(), dt, w, g->params().speed));
    ++v->pending;
    g->queue_probe(w, dt, [this, v, r, label, expected](std::int64_t s, std::int64_t e) {
      GemmProbeResult res{r, label, expected, sec(e - s), false};
      res.slow = res.measured_s >= (1 + p_.params.probe_threshold) * expected;
      v->gemm.push_back(res);
      if (--v->pending == 0) step(v);
    });
  }
}

// The edges of `groups` and of enough reference groups of each shape (size, and whether the
// group crosses nodes) for the healthy edges to be the majority: references are groups holding
// none of `avoid` ranks, one more per shape than the groups probed (as many as exist). An edge is
// slow below (1 - probe_threshold) of the median bandwidth of its shape's edges.
void FailSlowMonitor::probe_groups(std::vector<int> groups, const std::vector<int>& avoid,
                                   const std::shared_ptr<Validation>& v) {
  auto shape = [&](int g) {
    const std::vector<int>& m = group_ranks_[static_cast<std::size_t>(g)];
    bool crosses = false;
    for (int r : m)
      crosses = crosses || p_.nodes_of[static_cast<std::size_t>(r)] != p_.nodes_of[static_cast<std::size_t>(m[0])];
    return std::make_pair(static_cast<int>(m.size()), crosses);
  };
  std::map<std::pair<int, bool>, int> wanted;  // per shape: references still to add
  for (int g : groups) ++wanted[shape(g)];
  for (auto& w : wanted) ++w.second;
  const std::set<int> probed(groups.begin(), groups.end());
  for (std::size_t g = 0; g < group_ranks_.size(); ++g) {
    if (probed.count(static_cast<int>(g))) continue;
    auto it = wanted.find(shape(static_cast<int>(g)));
    if (it == wanted.end() || it->second == 0) continue;
    const std::vector<int>& m = group_ranks_[g];
    if (std::any_of(m.begin(), m.end(), [&](int r) { return std::find(avoid.begin(), avoid.end(), r) != avoid.end(); }))
      continue;
    --it->second;
    groups.push_back(static_cast<int>(g));
  }
  std::vector<std::pair<int, int>> edges;
  // Per edge: its group's size and whether the edge itself crosses nodes. An NVLink hop and a NIC
  // hop of one ring differ by their links' rates, not by health, so each is judged among its kind.
  std::vector<std::pair<int, bool>> shapes;
  std::set<std::pair<int, int>> seen;
  for (const LinkProbeResult& l : v->links) seen.insert({l.src, l.dst});  // measured in the first stage
  for (int g : groups)
    for (const auto& e : ring_edges(group_ranks_[static_cast<std::size_t>(g)]))
      if (seen.insert(e).second) {
        const bool crosses =
            p_.nodes_of[static_cast<std::size_t>(e.first)] != p_.nodes_of[static_cast<std::size_t>(e.second)];
        edges.push_back(e), shapes.push_back({shape(g).first, crosses});
      }
  if (edges.empty()) {
    if (--v->pending == 0) step(v);
    return;
  }
  prober_.probe(edges, [this, v, shapes](std::vector<LinkProbeResult> res) {
    std::map<std::pair<int, bool>, std::vector<double>> bw;
    for (std::size_t e = 0; e < res.size(); ++e) bw[shapes[e]].push_back(res[e].bandwidth_Bps);
    std::vector<double> bar(res.size());  // below this an edge is slow
    std::vector<std::size_t> slow;
    for (std::size_t e = 0; e < res.size(); ++e) {
      bar[e] = (1 - p_.params.probe_threshold) * median(bw[shapes[e]]);
      if ((res[e].slow = res[e].bandwidth_Bps < bar[e])) slow.push_back(e);
    }
    if (slow.empty()) {
      v->links.insert(v->links.end(), res.begin(), res.end());
      if (--v->pending == 0) step(v);
      return;
    }
    // Training's bursts on a hop can slow one probe of a healthy edge (the slope assumes every
    // message size meets the same traffic); a degraded link is slow whenever it is probed. So a
    // slow edge is probed once more and stays slow only if it is below the bar again.
    std::vector<std::pair<int, int>> again;
    for (std::size_t e : slow) again.push_back({res[e].src, res[e].dst});
    prober_.probe(again, [this, v, res, bar, slow](std::vector<LinkProbeResult> second) mutable {
      for (std::size_t k = 0; k < slow.size(); ++k) {
        LinkProbeResult& r = res[slow[k]];
        r.slow = second[k].bandwidth_Bps < bar[slow[k]];
        if (!r.slow) r.bandwidth_Bps = second[k].bandwidth_Bps;  // the undisturbed measurement
      }
      v->links.insert(v->links.end(), res.begin(), res.end());
      if (--v->pending == 0) step(v);
    });
  });
}

std::vector<std::pair<int, int>> FailSlowMonitor::ring_edges(const std::vector<int>& m) const {
  const std::size_t k = m.size();
  std::vector<std::vector<int>> rings;  // as communicator positions
  const RingLayout& layout = p_.engine->ring_layout();
  if (k > 2 && layout.order == RingOrder::Topology)
    rings = topology_rings(m, p_.nodes_of, layout.nic_of, ring_channels(layout, m, p_.nodes_of));
  if (rings.empty()) {
    rings.emplace_back(k);
    for (std::size_t i = 0; i < k; ++i) rings[0][i] = static_cast<int>(i);
  }
  std::vector<std::pair<int, int>> edges;
  for (const std::vector<int>& ring : rings)
    for (std::size_t i = 0; i < (k == 2 ? 1 : k); ++i)
      edges.push_back({m[static_cast<std::size_t>(ring[i])], m[static_cast<std::size_t>(ring[(i + 1) % k])]});
  return edges;
}

// After the first stage (GEMMs on compute suspects, edges of suspect communicators): when nothing
// was confirmed, a late rank whose GEMMs ran at full speed is a slow host or a slow link of its
// own (every collective it joins waits for its NIC, so it arrives late at the next). The rings it
// belongs to tell which. A confirmed slow GPU or edge already explains late peers (they wait for
// it), so then there is no second stage.
void FailSlowMonitor::step(const std::shared_ptr<Validation>& v) {
  const bool confirmed = std::any_of(v->gemm.begin(), v->gemm.end(), [](const GemmProbeResult& g) { return g.slow; }) ||
                         std::any_of(v->links.begin(), v->links.end(), [](const LinkProbeResult& l) { return l.slow; });
  const bool gemm_slow = std::any_of(v->gemm.begin(), v->gemm.end(), [](const GemmProbeResult& g) { return g.slow; });
  if (gemm_slow && !v->peers_probed && !v->finding.late_rank && v->finding.late_share < kExplainedShare) {
    // Slow GPUs that explain little of the slowdown: are their peers (not late) slow too?
    v->peers_probed = true;
    const std::vector<int>& late = v->finding.compute_suspects;
    std::vector<int> peers;
    for (int r : p_.ranks)
      if (std::find(late.begin(), late.end(), r) == late.end()) peers.push_back(r);
    const std::size_t n = peers.size(), k = std::min<std::size_t>(n, static_cast<std::size_t>(p_.params.max_suspects));
    for (std::size_t i = 0; i < k; ++i) v->sample.push_back(peers[i * n / k]);
    for (int r : v->sample) queue_gemms(r, v);
    if (v->pending > 0) return;
  }
  // A rank found late under a flat iteration time names a slow GPU only: its rings are not probed
  // for a host or a link of its own. A slow GPU's tensor-parallel peers wait for it inside their
  // group and arrive late together at the collectives beyond it, one after another as their
  // averages cross the threshold (GREYHOUND's 256-GPU layout); their GEMMs pass, and probing on
  // would blame their hosts or their edges.
  if (!v->edges_probed && !confirmed && !v->finding.no_outlier && !v->finding.late_rank) {
    v->edges_probed = true;
    v->first_links = v->links.size();
    std::vector<int> passed;
    for (int r : v->finding.compute_suspects) {
      int probes = 0;
      for (auto& g : v->gemm) probes += g.rank == r;
      if (probes > 0) passed.push_back(r);
    }
    std::vector<int> groups;
    for (std::size_t g = 0; g < group_ranks_.size(); ++g) {
      const std::vector<int>& m = group_ranks_[g];
      if (m.size() >= 2 && std::any_of(m.begin(), m.end(), [&](int r) {
            return std::find(passed.begin(), passed.end(), r) != passed.end();
          }))
        groups.push_back(static_cast<int>(g));
    }
    if (!groups.empty()) {
      ++v->pending;
      return probe_groups(groups, v->finding.compute_suspects, v);
    }
  }
  finish(v);
}

bool FailSlowMonitor::may_skip() const {
  return period_ > 0 && window_start_ >= 0 && last_ && probing_ == 0 && !disturbed_ && deferred_.empty() &&
         !detector_.pending();
}

// 1 when a window is one iteration's calls; 1/H when the calls repeat only every H iterations.
double FailSlowMonitor::windows_per_iteration() const {
  const int seen = rank0_iterations_ - first_window_iteration_;
  return seen > 0 && windows_ > 0 ? static_cast<double>(windows_) / seen : 1.0;
}

void FailSlowMonitor::skipped(int boundary, int iterations, std::int64_t delay_ps) {
  if (rank0_iterations_ >= boundary + 1) paused_ps_ += delay_ps;  // rank 0 is already past it
  else skip_delay_ps_ += delay_ps;
  const int copies = static_cast<int>(std::llround(static_cast<double>(iterations) * windows_per_iteration()));
  MonitorWindow w = *last_;
  const std::int64_t len = static_cast<std::int64_t>(std::llround(w.seconds() * 1e12));  // a pause is not copied
  w.paused_s = 0;
  w.fast_forwarded = true;
  w.end_ps = w.start_ps + len;
  rank0_iterations_ += iterations;  // as if rank 0 had run them (windows per iteration stays true)
  for (int i = 0; i < copies; ++i) {
    w.start_ps += len, w.end_ps += len;
    ++windows_skipped_;
    read(w, w.end_ps);
  }
}

PhaseWork FailSlowMonitor::gemm_work(DType dt) const {
  const double n = p_.params.gemm_size;
  PhaseWork w;
  w.flops = 2 * n * n * n;
  w.bytes = 3 * n * n * dtype_bytes(dt);
  w.kernels = 1;
  return w;
}

void FailSlowMonitor::gemm_check(int rank, std::function<void(double ratio)> done) {
  Gpu* g = p_.gpus[static_cast<std::size_t>(rank)];
  const PhaseWork w = gemm_work(DType::FP16);
  const double expected = sec(phase_time_ps(g->params(), DType::FP16, w, g->params().speed));
  ++probing_, disturbed_ = true;
  g->queue_probe(w, DType::FP16, [this, expected, done = std::move(done)](std::int64_t s, std::int64_t e) {
    --probing_;
    done(sec(e - s) / expected);
  });
}

void FailSlowMonitor::finish(const std::shared_ptr<Validation>& v) {
  --probing_;
  const ChangeEvent& e = changes_[static_cast<std::size_t>(v->change)];
  auto base = [&] {
    Diagnosis d;
    d.change = v->change;
    d.change_ps = e.change_ps, d.detected_ps = e.detected_ps, d.diagnosed_ps = now();
    d.slowdown = e.before_s > 0 ? e.after_s / e.before_s : 1.0;
    return d;
  };
  for (auto& g : v->gemm) gemm_results_.push_back(g);
  for (auto& l : v->links) {
    l.at_ps = now();
    link_results_.push_back(l);
  }
  std::vector<Diagnosis> out;
  const bool no_outlier = v->finding.no_outlier;
  if (no_outlier || v->peers_probed) out = no_peer(*v, base);
  const bool decided = !out.empty();  // group_wide or fabric_wide: nothing else is named
  // Compute: a GPU whose GEMMs run slower than its datasheet roofline.
  Diagnosis gpu = base(), cpu = base(), comm = base();
  gpu.cause = FailCause::Compute, cpu.cause = FailCause::Cpu, comm.cause = FailCause::Communication;
  double gpu_conf = 1, cpu_conf = 1;
  std::set<int> passed;  // late ranks whose GEMMs ran at full speed
  // With no suspect, the sampled ranks were probed (none of them late: no cpu from them).
  for (int r : decided ? std::vector<int>{} : no_outlier ? v->sample : v->finding.compute_suspects) {
    int probes = 0, slow = 0;
    for (auto& g : v->gemm)
      if (g.rank == r) ++probes, slow += g.slow;
    if (probes == 0) continue;
    if (slow > 0) {
      gpu.gpus.push_back(r), gpu_conf = std::min(gpu_conf, static_cast<double>(slow) / probes);
      continue;
    }
    passed.insert(r);
    const bool own_link_slow = std::any_of(v->links.begin(), v->links.end(), [r](const LinkProbeResult& l) {
      return l.slow && (l.src == r || l.dst == r);
    });
    if (!own_link_slow && !no_outlier)
      cpu.gpus.push_back(r), cpu_conf = std::min(cpu_conf, 1.0 - static_cast<double>(slow) / probes);
  }
  // The second stage asked only about the late ranks' own edges; the rest were its references.
  const std::size_t first = v->edges_probed ? v->first_links : v->links.size();
  for (std::size_t i = 0; i < v->links.size() && !decided; ++i) {
    const LinkProbeResult& l = v->links[i];
    if (l.slow && (i < first || passed.count(l.src) || passed.count(l.dst))) comm.links.push_back({l.src, l.dst});
  }
  if (!decided)
    for (int g : v->finding.comm_suspects) comm.groups.push_back(group_ranks_[static_cast<std::size_t>(g)]);
  comm.confidence = comm.links.empty() ? 0.5 : 1.0;  // a suspect group without a slow edge: unlocalized
  // Suspect communicators with no edge slower than the others that could set a ring's pace, and
  // every communicator slower against its own baseline (a job with one communicator has no peer
  // group): the whole fabric.
  if (!comm.groups.empty() && gpu.gpus.empty() && fabric_wide(v->finding) &&
      std::none_of(v->links.begin(), v->links.end(), [&](const LinkProbeResult& l) { return l.slow && paces(*v, l); }))
    comm = fabric_diagnosis(v->finding, comm);
  gpu.confidence = gpu_conf;
  cpu.confidence = cpu_conf;
  if (!gpu.gpus.empty()) out.push_back(gpu);
  if (!comm.links.empty() || (!comm.groups.empty() && gpu.gpus.empty())) out.push_back(comm);
  // A late rank whose GPU computes at full speed: its host launches late (CPU contention), unless
  // another cause was confirmed, which then explains the lateness.
  if (!cpu.gpus.empty() && out.empty() && !v->finding.late_rank) out.push_back(cpu);
  // A late rank whose GEMMs pass is not a diagnosis (see step): its change stays on record.
  if (out.empty() && v->finding.late_rank) return;
  if (out.empty() && v->finding.no_outlier) {
    // No GPU slow, no edge slower than its peers, no transfer longer: every rank is equally late
    // (their hosts, or what they wait on together). The whole group, with less confidence.
    Diagnosis d = base();
    d.cause = FailCause::GroupWide;
    d.gpus = p_.ranks;
    d.confidence = 0.5;
    out.push_back(d);
  }
  if (out.empty()) {
    Diagnosis d = base();
    d.cause = FailCause::Unknown;
    out.push_back(d);
  }
  for (Diagnosis& d : out) {
    if (ctx_.trace.enabled()) {  // a mark on the trace's health track, with what was found
      if (track_ < 0) track_ = ctx_.trace.track("health", "diagnoses");
      ctx_.trace.instant(track_, std::string("diagnosis: ") + cause_name(d.cause), "health", d.diagnosed_ps,
                         {{"gpus", d.gpus}, {"confidence", d.confidence}, {"change_s", sec(d.change_ps)}});
    }
    diagnoses_.push_back(d);
    diagnosed(d);
  }
}

// A slowdown where no rank and no communicator stood out (GREYHOUND needs a healthy peer to
// compare with; DOMAIN.md section 3): its causes are judged against baselines of their own. Most of
// the sampled GPUs computing slower than their datasheet: the whole group (group_wide, every rank
// named). Otherwise, with the transfers of most communicators longer than before by group_threshold
// (their own baseline) and no probed edge slower than the others: the whole fabric (fabric_wide,
// the communicators that slowed). A few slow GPUs or a slow edge are the usual compute and
// communication diagnoses, made below.
std::vector<Diagnosis> FailSlowMonitor::no_peer(const Validation& v, const std::function<Diagnosis()>& base) const {
  std::vector<Diagnosis> out;
  std::set<int> slow_gpus;  // of the sampled ranks
  for (const GemmProbeResult& g : v.gemm)
    if (g.slow && std::find(v.sample.begin(), v.sample.end(), g.rank) != v.sample.end()) slow_gpus.insert(g.rank);
  const bool slow_edge =
      std::any_of(v.links.begin(), v.links.end(), [&](const LinkProbeResult& l) { return l.slow && paces(v, l); });
  if (!v.sample.empty() && 2 * slow_gpus.size() > v.sample.size()) {
    Diagnosis d = base();
    d.cause = FailCause::GroupWide;
    d.gpus = p_.ranks;
    d.confidence = static_cast<double>(slow_gpus.size()) / static_cast<double>(v.sample.size());
    out.push_back(d);
  } else if (v.finding.no_outlier && slow_gpus.empty() && !slow_edge && fabric_wide(v.finding)) {
    out.push_back(fabric_diagnosis(v.finding, base()));
  }
  return out;
}

// Whether probed edge `l` can set its rings' pace: its bandwidth within probe_threshold of the
// slowest edge probed. An NVLink hop slower than its kind's median but still far faster than the
// NIC hops beside it slows no ring (probes of such hops vary with training's traffic on them).
bool FailSlowMonitor::paces(const Validation& v, const LinkProbeResult& l) const {
  double lowest = l.bandwidth_Bps;
  for (const LinkProbeResult& x : v.links) lowest = std::min(lowest, x.bandwidth_Bps);
  return l.bandwidth_Bps <= (1 + p_.params.probe_threshold) * lowest;
}

// The communicators that moved data between nodes before the change.
std::vector<int> FailSlowMonitor::crossing(const ChangeFinding& f) const {
  std::vector<int> out;
  for (int g : f.measured_comms) {
    const std::vector<int>& m = group_ranks_[static_cast<std::size_t>(g)];
    if (std::any_of(m.begin(), m.end(), [&](int r) {
          return p_.nodes_of[static_cast<std::size_t>(r)] != p_.nodes_of[static_cast<std::size_t>(m[0])];
        }))
      out.push_back(g);
  }
  return out;
}

// Every communicator that moved data between nodes moved it more slowly after, by group_threshold
// or more against its own baseline, and there are two or more of them: the network as a whole
// slowed. A job with one such communicator cannot tell the fabric from one link of its ring that
// its probes missed (their own queue hides it, docs/health.md#with-jobs): that stays an
// unlocalized `communication`.
bool FailSlowMonitor::fabric_wide(const ChangeFinding& f) const {
  const std::vector<int> across = crossing(f);
  return across.size() >= 2 && std::all_of(across.begin(), across.end(), [&](int g) {
           return std::find(f.grown_comms.begin(), f.grown_comms.end(), g) != f.grown_comms.end();
         });
}

Diagnosis FailSlowMonitor::fabric_diagnosis(const ChangeFinding& f, Diagnosis d) const {
  d.cause = FailCause::FabricWide;
  d.gpus.clear(), d.links.clear(), d.groups.clear();
  for (int g : crossing(f)) d.groups.push_back(group_ranks_[static_cast<std::size_t>(g)]);
  d.confidence = 1.0;
  return d;
}

nlohmann::ordered_json FailSlowMonitor::report() const {
  using ojson = nlohmann::ordered_json;
  ojson o;
  o["tracking_overhead"] = p_.params.tracking_overhead;
  o["period_calls"] = period_ > 0 ? ojson(period_) : ojson(nullptr);
  if (!period_note_.empty()) o["period_note"] = period_note_;
  o["windows"] = windows_;
  o["windows_disturbed"] = disturbed_windows_;
  o["windows_fast_forwarded"] = windows_skipped_;
  o["communicators"] = group_size_.size();
  ojson ch = ojson::array();
  for (const ChangeEvent& e : changes_)
    ch.push_back({{"change_s", sec(e.change_ps)},
                  {"detected_s", sec(e.detected_ps)},
                  {"direction", e.late_rank         ? "late rank"
                                : e.against_healthy ? "still slow"
                                : e.slowdown        ? "slowdown"
                                                    : "recovery"},
                  {"before_s", e.before_s},
                  {"after_s", e.after_s}});
  o["changes"] = ch;
  o["gemm_probes"] = gemm_results_.size();
  o["link_probe_edges"] = link_results_.size();
  return o;
}

}  // namespace trainvp
