#include "platform/system/faults/faults.hpp"

#include <algorithm>

#include "platform/core/errors.hpp"
#include "platform/core/glob.hpp"
#include "platform/core/sim_time.hpp"

namespace trainvp {

namespace {
constexpr int kRampSteps = 10;
bool on_gpus(FaultKind k) { return k == FaultKind::GpuSlowdown || k == FaultKind::CpuContention; }
// Where hardware i stands now (S3 moves it: `map`, empty before any move), noted in `moved`
// for scoring when away from home.
std::size_t at(const std::vector<int>& map, int i, std::vector<int>& moved) {
  if (map.empty() || map[static_cast<std::size_t>(i)] == i) return static_cast<std::size_t>(i);
  const int m = map[static_cast<std::size_t>(i)];
  if (std::find(moved.begin(), moved.end(), m) == moved.end()) moved.push_back(m);
  return static_cast<std::size_t>(m);
}
}  // namespace

bool link_matches(const Fabric& fabric, const FabricLink& link, const std::string& pattern) {
  const auto& devs = fabric.devices();
  return glob_match(pattern, link.name) || glob_match(pattern, devs[static_cast<std::size_t>(link.a)].name) ||
         glob_match(pattern, devs[static_cast<std::size_t>(link.b)].name);
}

// NIC devices whose name matches `pattern`, or an error at `where` naming the NICs there are.
std::vector<int> FaultInjector::match_nics(const std::string& pattern, const std::string& where,
                                           std::vector<std::string>& names) const {
  std::vector<int> out;
  std::string first, last;
  const auto& devs = fabric_.devices();
  for (std::size_t d = 0; d < devs.size(); ++d) {
    if (devs[d].kind != DeviceKind::Nic) continue;
    if (first.empty()) first = devs[d].name;
    last = devs[d].name;
    if (glob_match(pattern, devs[d].name)) out.push_back(static_cast<int>(d)), names.push_back(devs[d].name);
  }
  if (out.empty())
    fail_expected(
        where,
        "a NIC name or glob matching at least one of " + first + " .. " + last + " (congestion runs between NICs)",
        json(pattern));
  return out;
}

FaultInjector::~FaultInjector() = default;

FaultInjector::FaultInjector(const std::vector<FaultConfig>& faults, Fabric& fabric, const std::vector<Gpu*>& gpus,
                             RunContext& ctx, std::uint64_t chunk)
    : fabric_(fabric), gpus_(gpus), ctx_(ctx) {
  for (Gpu* g : gpus_) base_speed_.push_back(g->speed());
  for (const FabricDir& d : fabric_.dirs()) base_bw_.push_back(d.dir->params().bandwidth_bps);
  for (const FaultConfig& f : faults) {
    Active a;
    a.cfg = &f;
    const std::string where = ptr_join(ptr_join("/faults", static_cast<std::size_t>(f.index)),
                                       f.kind == FaultKind::Congestion ? "source" : "target");
    if (f.kind == FaultKind::Congestion) {
      const std::string at = ptr_join("/faults", static_cast<std::size_t>(f.index));
      std::vector<int> src = match_nics(f.target, where, a.sources);
      std::vector<int> dst = match_nics(f.destination, ptr_join(at, "destination"), a.destinations);
      if (!traffic_) traffic_ = std::make_unique<BackgroundTraffic>(fabric_, chunk);
      a.matched = traffic_->add(f, src, dst);  // the links its routes load
    } else if (on_gpus(f.kind)) {
      for (std::size_t g = 0; g < gpus_.size(); ++g)
        if (glob_match(f.target, gpus_[g]->name()))
          a.gpus.push_back(static_cast<int>(g)), a.matched.push_back(gpus_[g]->name());
      if (a.gpus.empty())
        fail_expected(where,
                      std::string("a GPU name or glob matching at least one of node0.gpu0 .. ") +
                          (gpus_.empty() ? "" : gpus_.back()->name()) + " (" + fault_kind_name(f.kind) +
                          " applies to GPUs)",
                      json(f.target));
    } else {
      const auto& links = fabric_.links();
      std::vector<bool> take(links.size(), false);
      for (std::size_t l = 0; l < links.size(); ++l) take[l] = link_matches(fabric_, links[l], f.target);
      for (std::size_t l = 0; l < links.size(); ++l)
        if (take[l]) a.matched.push_back(links[l].name);
      for (std::size_t d = 0; d < fabric_.dirs().size(); ++d)
        if (take[static_cast<std::size_t>(fabric_.dirs()[d].link)]) a.dirs.push_back(static_cast<int>(d));
      if (a.matched.empty())
        fail_expected(where,
                      std::string("a link name or glob (e.g. \"link:node0.nic0-switch\", \"link:node0.*\") or a device "
                                  "name matching at least one link; `trainvp describe topology` lists them (") +
                          fault_kind_name(f.kind) + " applies to links)",
                      json(f.target));
    }
    const int i = static_cast<int>(faults_.size());
    a.track = ctx_.trace.track("faults", "fault " + std::to_string(f.index) + " " + fault_kind_name(f.kind));
    faults_.push_back(std::move(a));
    timeline_.push_back({f.start_ps, i, 0});
    if (f.kind == FaultKind::GpuSlowdown && f.ramp_ps > 0)
      for (int k = 1; k <= kRampSteps; ++k) timeline_.push_back({f.start_ps + f.ramp_ps * k / kRampSteps, i, k});
    if (f.duration_ps > 0) timeline_.push_back({f.start_ps + f.duration_ps, i, -1});
  }
  // Stable order at equal times: by fault, start before its ramp steps; ends come last at a time.
  std::stable_sort(timeline_.begin(), timeline_.end(), [](const Change& x, const Change& y) {
    if (x.at_ps != y.at_ps) return x.at_ps < y.at_ps;
    if ((x.step < 0) != (y.step < 0)) return y.step < 0;
    if (x.fault != y.fault) return x.fault < y.fault;
    return x.step < y.step;
  });
}

std::int64_t FaultInjector::next_change_ps() const {
  return next_ < timeline_.size() ? timeline_[next_].at_ps : kNever;
}

void FaultInjector::apply_due(std::int64_t now_ps) {
  bool changed = false;
  while (next_ < timeline_.size() && timeline_[next_].at_ps <= now_ps) {
    const Change& c = timeline_[next_++];
    Active& a = faults_[static_cast<std::size_t>(c.fault)];
    const FaultConfig& f = *a.cfg;
    if (c.step == 0) {
      a.active = true;
      a.start_ps = now_ps;
      a.level = f.kind == FaultKind::GpuSlowdown && f.ramp_ps > 0 ? 1.0 : f.factor;
    } else if (c.step > 0) {
      a.level = c.step == kRampSteps ? f.factor : 1.0 + (f.factor - 1.0) * c.step / kRampSteps;
    } else {
      a.active = false;
      a.end_ps = now_ps;
    }
    changed = true;
    if (c.step <= 0 && !fault_changed.empty()) fault_changed(truth_of(a), c.step == 0);
  }
  if (changed) recompute(), last_change_ps_ = now_ps;
}

bool FaultInjector::loss_active() const {
  for (const Active& a : faults_)
    if (a.active && a.cfg->kind == FaultKind::PacketLoss) return true;
  return false;
}

// Every model hook is recomputed from the base values and all active faults, so overlapping
// faults compose: factors multiply, added latencies add, a link is down while any link_down is on,
// a packet gets through only if it survives every packet_loss (rates r_i: 1 - prod(1 - r_i)), with
// the longest of their timeouts.
void FaultInjector::recompute() {
  struct GpuHook {
    double speed = 1, launch = 1;
    bool touched = false;
  };
  struct DirHook {
    double bw = 1, loss = 0;
    std::int64_t latency = 0, timeout = 0;
    bool down = false, touched = false;
  };
  std::vector<GpuHook> gh(gpus_.size());
  std::vector<DirHook> dh(base_bw_.size());
  for (std::size_t g = 0; g < moved_gpu_.size(); ++g) gh[g].touched = moved_gpu_[g];  // S3's moves reset these
  for (std::size_t d = 0; d < moved_dir_.size(); ++d) dh[d].touched = moved_dir_[d];
  for (Active& a : faults_) {
    for (int g : a.gpus) gh[static_cast<std::size_t>(g)].touched = true;
    for (int d : a.dirs) dh[static_cast<std::size_t>(d)].touched = true;
    if (!a.active) continue;
    const FaultConfig& f = *a.cfg;
    for (int hw : a.gpus) {
      if (!replaced_gpu_.empty() && replaced_gpu_[static_cast<std::size_t>(hw)]) continue;
      GpuHook& h = gh[at(gpu_at_, hw, a.moved_gpus)];
      if (f.kind == FaultKind::GpuSlowdown) h.speed *= a.level;
      if (f.kind == FaultKind::CpuContention) h.launch *= f.launch_factor;
    }
    for (int hw : a.dirs) {
      if (!replaced_dir_.empty() && replaced_dir_[static_cast<std::size_t>(hw)]) continue;
      DirHook& h = dh[at(dir_at_, hw, a.moved_dirs)];
      if (f.kind == FaultKind::LinkDegrade) {
        h.bw *= f.bandwidth_factor;
        h.latency += f.added_latency_ps;
      }
      if (f.kind == FaultKind::LinkDown) h.down = true;
      if (f.kind == FaultKind::PacketLoss) {
        h.loss = h.loss + f.loss_rate - h.loss * f.loss_rate;  // 1 - (1 - r)(1 - rate), exact for a single fault
        h.timeout = std::max(h.timeout, f.loss_timeout_ps);
      }
    }
  }
  for (std::size_t g = 0; g < gpus_.size(); ++g) {
    if (!gh[g].touched) continue;
    gpus_[g]->set_speed(base_speed_[g] * gh[g].speed);
    gpus_[g]->set_launch_scale(gh[g].launch);
  }
  bool down_changed = false;
  std::vector<int> changed;
  for (std::size_t d = 0; d < base_bw_.size(); ++d) {
    const DirHook& h = dh[d];
    if (!h.touched) continue;
    changed.push_back(static_cast<int>(d));
    LinkState& dir = *fabric_.dirs()[d].dir;
    dir.set_bandwidth(base_bw_[d] * h.bw);
    dir.set_extra_latency(h.latency);
    down_changed |= dir.down() != h.down;
    dir.set_down(h.down);
    dir.set_loss(h.loss, h.timeout);
  }
  if (down_changed) fabric_.down_changed();
  fabric_.links_changed(changed);
}

void FaultInjector::finish(std::int64_t end_ps) {
  end_ps_ = end_ps;
  for (Active& a : faults_) {
    if (a.start_ps < 0) continue;
    if (a.end_ps < 0) a.end_ps = end_ps;
    nlohmann::ordered_json args = {{"index", a.cfg->index}, {"target", a.cfg->target}, {"matched", a.matched.size()}};
    ctx_.trace.slice(a.track, std::string(fault_kind_name(a.cfg->kind)) + " " + a.cfg->target, "fault", a.start_ps,
                     a.end_ps, args);
    // An on/off pattern also shows its on periods (the first kMaxOnSlices of them).
    const FaultConfig& f = *a.cfg;
    constexpr int kMaxOnSlices = 1000;
    if (f.kind == FaultKind::Congestion && f.off_ps > 0 && ctx_.trace.enabled())
      for (std::int64_t t = a.start_ps, n = 0; t < a.end_ps && n < kMaxOnSlices; t += f.on_ps + f.off_ps, ++n)
        ctx_.trace.slice(a.track, "on", "fault", t, std::min(t + f.on_ps, a.end_ps), {});
  }
}

FaultTruth FaultInjector::truth_of(const Active& a) const {
  FaultTruth t;
  t.index = a.cfg->index, t.kind = a.cfg->kind, t.start_ps = a.start_ps, t.end_ps = a.end_ps;
  for (int g : a.gpus) t.gpus.push_back(gpus_[static_cast<std::size_t>(g)]->rank());
  for (int g : a.moved_gpus) t.gpus.push_back(gpus_[static_cast<std::size_t>(g)]->rank());
  t.dirs = a.dirs, t.sources = a.sources, t.destinations = a.destinations, t.severity = a.cfg->severity;
  t.dirs.insert(t.dirs.end(), a.moved_dirs.begin(), a.moved_dirs.end());
  t.factor = a.cfg->factor;
  return t;
}

std::vector<FaultTruth> FaultInjector::truth() const {
  std::vector<FaultTruth> out;
  for (const Active& a : faults_) out.push_back(truth_of(a));
  return out;
}

void FaultInjector::replace_node(int node) {
  replaced_gpu_.resize(gpus_.size(), false);
  replaced_dir_.resize(base_bw_.size(), false);
  // The hardware in that slot now (S3 may have moved it), indexed as elaborated.
  const int hw = host_at_.empty() ? node : host_at_[static_cast<std::size_t>(node)];
  for (std::size_t g = 0; g < gpus_.size(); ++g)
    if (node_of_gpu(g) == hw) replaced_gpu_[g] = true;
  for (std::size_t d = 0; d < base_bw_.size(); ++d) {
    const FabricDir& dir = fabric_.dirs()[d];
    if (fabric_.devices()[static_cast<std::size_t>(dir.from)].node == hw ||
        fabric_.devices()[static_cast<std::size_t>(dir.to)].node == hw)
      replaced_dir_[d] = true;
  }
  recompute();
}

nlohmann::ordered_json FaultInjector::results() const {
  using ojson = nlohmann::ordered_json;
  ojson list = ojson::array();
  for (const Active& a : faults_) {
    const FaultConfig& f = *a.cfg;
    ojson params = ojson::object();
    for (auto it = f.params.begin(); it != f.params.end(); ++it)
      if (it.key() != "kind" && it.key() != "target" && it.key() != "source" && it.key() != "start" &&
          it.key() != "duration" && it.key() != "origin" && it.key() != "severity")
        params[it.key()] = it.value();
    const bool applied = a.start_ps >= 0;
    list.push_back({{"index", f.index},
                    {"origin", f.generated ? "generator" : "scenario"},
                    {"kind", fault_kind_name(f.kind)},
                    {"target", f.target},
                    {"matched", a.matched},
                    {"applied", applied},
                    {"start_s", applied ? ojson(sec(a.start_ps)) : ojson(nullptr)},
                    {"end_s", applied ? ojson(sec(a.end_ps)) : ojson(nullptr)},
                    {"params", params}});
    if (!f.severity.empty()) list.back()["severity"] = f.severity;
    if (f.kind == FaultKind::Congestion) {
      const BackgroundTraffic::Totals t = traffic_->totals(f.index);
      ojson& e = list.back();
      e["sources"] = a.sources;
      e["destinations"] = a.destinations;
      e["pairs"] = t.pairs;
      e["sent_bytes"] = t.sent_bytes;
      e["delivered_bytes"] = t.delivered_bytes;
      e["in_flight_bytes"] = t.sent_bytes - t.delivered_bytes;
      e["sent_chunks"] = t.sent_chunks;
    }
  }
  return list;
}

}  // namespace trainvp
