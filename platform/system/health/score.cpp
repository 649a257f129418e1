#include "platform/system/health/score.hpp"
#include "platform/core/sim_time.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace trainvp {

FailCause cause_of(FaultKind k) {
  switch (k) {
    case FaultKind::GpuSlowdown: return FailCause::Compute;
    case FaultKind::CpuContention: return FailCause::Cpu;
    default: return FailCause::Communication;
  }
}

namespace {

using ojson = nlohmann::ordered_json;

// Does the route from a to b, where they were at `at_ps` (S3 may have moved them since), cross
// what fault f acts on?
bool route_hits(Fabric& fabric, int a, int b, std::int64_t at_ps, const FaultTruth& f) {
  for (int d : fabric.path_at(a, b, at_ps, 0)) {
    if (std::find(f.dirs.begin(), f.dirs.end(), d) != f.dirs.end()) return true;
    if (f.kind != FaultKind::Congestion) continue;
    const FabricDir& dir = fabric.dirs()[static_cast<std::size_t>(d)];
    for (int dev : {dir.from, dir.to}) {
      const std::string& n = fabric.devices()[static_cast<std::size_t>(dev)].name;
      if (std::find(f.sources.begin(), f.sources.end(), n) != f.sources.end() ||
          std::find(f.destinations.begin(), f.destinations.end(), n) != f.destinations.end())
        return true;
    }
  }
  return false;
}

// The edges a diagnosis blames: its slow edges, or without one its suspect communicators' rings.
std::vector<std::pair<int, int>> blamed_edges(const Diagnosis& d) {
  if (!d.links.empty()) return d.links;
  std::vector<std::pair<int, int>> out;
  for (const std::vector<int>& g : d.groups)
    for (std::size_t i = 0; i < g.size(); ++i) out.push_back({g[i], g[(i + 1) % g.size()]});
  return out;
}

}  // namespace

bool neighbour_matches(const Diagnosis& d, const NeighbourTruth& n, Fabric& fabric, std::int64_t slack_ps) {
  if (d.cause != FailCause::Communication) return false;
  if (std::none_of(n.spans.begin(), n.spans.end(),
                   [&](const auto& sp) { return d.change_ps >= sp.first - slack_ps && d.change_ps <= sp.second; }))
    return false;
  for (auto [a, b] : blamed_edges(d))
    for (const std::vector<int>& hop : fabric.layers_at(a, b, d.diagnosed_ps))
      for (int dir : hop)
        if (std::binary_search(n.dirs.begin(), n.dirs.end(), dir)) return true;
  return false;
}

bool diagnosis_matches(const Diagnosis& d, const FaultTruth& f, Fabric& fabric, std::int64_t slack_ps) {
  if (f.start_ps < 0) return false;
  const FailCause truth = cause_of(f.kind);
  // No healthy peer: group_wide stands for the ranks' GPUs or hosts (it names every rank),
  // fabric_wide for the network (it names the communicators that slowed).
  const bool family = d.cause == truth || (d.cause == FailCause::GroupWide && truth != FailCause::Communication) ||
                      (d.cause == FailCause::FabricWide && truth == FailCause::Communication);
  if (!family) return false;
  if (d.change_ps < f.start_ps - slack_ps || d.change_ps > f.end_ps) return false;
  if (d.cause == FailCause::GroupWide) {
    for (int g : d.gpus)
      if (std::find(f.gpus.begin(), f.gpus.end(), g) != f.gpus.end()) return true;
    return false;
  }
  if (d.cause == FailCause::FabricWide) {
    for (const std::vector<int>& g : d.groups)
      for (std::size_t i = 0; i < g.size(); ++i)
        if (route_hits(fabric, g[i], g[(i + 1) % g.size()], d.diagnosed_ps, f)) return true;
    return false;
  }
  if (d.cause != FailCause::Communication) {
    for (int g : d.gpus)
      if (std::find(f.gpus.begin(), f.gpus.end(), g) != f.gpus.end()) return true;
    return false;
  }
  for (auto [a, b] : d.links)
    if (route_hits(fabric, a, b, d.diagnosed_ps, f)) return true;
  if (!d.links.empty()) return false;
  for (const std::vector<int>& g : d.groups)  // unlocalized: the suspect communicator's ring
    for (std::size_t i = 0; i < g.size(); ++i)
      if (route_hits(fabric, g[i], g[(i + 1) % g.size()], d.diagnosed_ps, f)) return true;
  return false;
}

ojson score_health(const FailSlowMonitor& m, const std::vector<FaultTruth>& truth, Fabric& fabric,
                   const std::vector<NeighbourTruth>* neighbours) {
  ojson out;
  out["detector"] = m.report();
  const std::vector<Diagnosis>& ds = m.diagnoses();
  const std::vector<ChangeEvent>& changes = m.changes();
  std::vector<int> fault_of(ds.size(), -1);  // per diagnosis: the fault it matched (the earliest)
  std::vector<int> first(truth.size(), -1);  // per fault: its first matching diagnosis
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const Diagnosis& d = ds[i];
    // One iteration of slack: a change window may begin just before the fault's start.
    const std::int64_t slack = static_cast<std::int64_t>(changes[static_cast<std::size_t>(d.change)].before_s * 1e12);
    for (std::size_t f = 0; f < truth.size(); ++f) {
      if (!diagnosis_matches(d, truth[f], fabric, slack)) continue;
      if (fault_of[i] < 0) fault_of[i] = static_cast<int>(f);
      if (first[f] < 0) first[f] = static_cast<int>(i);
    }
  }
  // Per diagnosis no fault explains: the neighbour it matched; per neighbour: its first diagnosis.
  std::vector<int> neighbour_of(ds.size(), -1);
  std::vector<int> first_n(neighbours ? neighbours->size() : 0, -1);
  for (std::size_t i = 0; neighbours && i < ds.size(); ++i) {
    if (fault_of[i] >= 0) continue;
    const std::int64_t slack =
        static_cast<std::int64_t>(changes[static_cast<std::size_t>(ds[i].change)].before_s * 1e12);
    for (std::size_t n = 0; n < neighbours->size(); ++n) {
      if (!neighbour_matches(ds[i], (*neighbours)[n], fabric, slack)) continue;
      if (neighbour_of[i] < 0) neighbour_of[i] = static_cast<int>(n);
      if (first_n[n] < 0) first_n[n] = static_cast<int>(i);
    }
  }
  ojson diag = ojson::array();
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const Diagnosis& d = ds[i];
    ojson links = ojson::array();
    for (auto [a, b] : d.links) {
      ojson route = ojson::array();
      for (int dir : fabric.path_at(a, b, d.diagnosed_ps, 0))
        route.push_back(
            fabric.links()[static_cast<std::size_t>(fabric.dirs()[static_cast<std::size_t>(dir)].link)].name);
      links.push_back({{"src_rank", a}, {"dst_rank", b}, {"route", route}});
    }
    diag.push_back(
        {{"cause", cause_name(d.cause)},
         {"gpus", d.gpus},
         {"links", links},
         {"groups", d.groups},
         {"confidence", d.confidence},
         {"slowdown", d.slowdown},
         {"change_s", sec(d.change_ps)},
         {"detected_s", sec(d.detected_ps)},
         {"diagnosed_s", sec(d.diagnosed_ps)},
         {"validation_s", sec(d.diagnosed_ps - d.detected_ps)},
         {"fault", fault_of[i] >= 0 ? ojson(truth[static_cast<std::size_t>(fault_of[i])].index) : ojson(nullptr)}});
    if (neighbours)
      diag.back()["neighbour"] =
          neighbour_of[i] >= 0 ? ojson((*neighbours)[static_cast<std::size_t>(neighbour_of[i])].job) : ojson(nullptr);
  }
  out["diagnoses"] = diag;
  ojson faults = ojson::array();
  int applied = 0, detected = 0;
  double sum_reaction = 0, worst = 0, sum_detect = 0, sum_validate = 0;
  for (std::size_t f = 0; f < truth.size(); ++f) {
    const FaultTruth& t = truth[f];
    ojson o = {{"index", t.index}, {"kind", fault_kind_name(t.kind)}, {"cause", cause_name(cause_of(t.kind))}};
    if (!t.severity.empty()) o["severity"] = t.severity;
    o["start_s"] = t.start_ps >= 0 ? ojson(sec(t.start_ps)) : ojson(nullptr);
    o["end_s"] = t.start_ps >= 0 ? ojson(sec(t.end_ps)) : ojson(nullptr);
    if (t.start_ps >= 0) ++applied;
    o["detected"] = first[f] >= 0;
    if (first[f] >= 0) {
      const Diagnosis& d = ds[static_cast<std::size_t>(first[f])];
      const double detect = sec(d.detected_ps - t.start_ps), validate = sec(d.diagnosed_ps - d.detected_ps);
      o["diagnosis"] = first[f];
      o["reaction_s"] = detect + validate;
      o["change_detection_s"] = detect;
      o["validation_s"] = validate;
      ++detected, sum_reaction += detect + validate, sum_detect += detect, sum_validate += validate;
      worst = std::max(worst, detect + validate);
    }
    faults.push_back(o);
  }
  out["faults"] = faults;
  int true_pos = 0;
  for (std::size_t i = 0; i < ds.size(); ++i) true_pos += fault_of[i] >= 0 || neighbour_of[i] >= 0;
  int seen = 0;  // neighbours some diagnosis matched
  if (neighbours) {
    ojson list = ojson::array();
    for (std::size_t n = 0; n < neighbours->size(); ++n) {
      const NeighbourTruth& t = (*neighbours)[n];
      ojson o = {{"job", t.job}, {"kind", t.kind}, {"sending_spans", t.spans.size()}, {"detected", first_n[n] >= 0}};
      if (first_n[n] >= 0) {
        const Diagnosis& d = ds[static_cast<std::size_t>(first_n[n])];
        o["diagnosis"] = first_n[n];
        o["diagnosed_s"] = sec(d.diagnosed_ps);
        ++seen;
      }
      list.push_back(o);
    }
    out["neighbours"] = list;
  }
  const int false_pos = static_cast<int>(ds.size()) - true_pos;
  ojson score;
  score["faults_applied"] = applied;
  score["faults_detected"] = detected;
  score["recall"] = applied > 0 ? ojson(static_cast<double>(detected) / applied) : ojson(nullptr);
  score["diagnoses"] = ds.size();
  score["true_positives"] = true_pos;
  score["false_positives"] = false_pos;
  score["precision"] =
      ds.empty() ? ojson(nullptr) : ojson(static_cast<double>(true_pos) / static_cast<double>(ds.size()));
  score["mean_reaction_s"] = detected ? ojson(sum_reaction / detected) : ojson(nullptr);
  score["worst_reaction_s"] = detected ? ojson(worst) : ojson(nullptr);
  score["mean_change_detection_s"] = detected ? ojson(sum_detect / detected) : ojson(nullptr);
  score["mean_validation_s"] = detected ? ojson(sum_validate / detected) : ojson(nullptr);
  if (neighbours) score["neighbours_detected"] = seen;
  out["score"] = score;
  return out;
}

}  // namespace trainvp
