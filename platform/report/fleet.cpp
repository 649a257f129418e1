#include "platform/report/fleet.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace trainvp::report_detail {

using ojson = nlohmann::ordered_json;

namespace {

const char* const kCauses[] = {"compute", "cpu", "communication", "neighbour", "unattributed"};

struct Hours {
  double allocated = 0, measured = 0, within = 0, lost = 0, stranded = 0;
  std::map<std::string, double> by_cause;
};

ojson hours_json(const Hours& h) {
  ojson o;
  o["gpu_hours_allocated"] = h.allocated;
  o["gpu_hours_measured"] = h.measured;
  o["gpu_hours_within_slo"] = h.within;
  o["gpu_hours_below_slo"] = h.measured - h.within;
  o["gpu_hours_lost"] = h.lost;
  o["healthy_gpu_hours_stranded"] = h.stranded;
  ojson c;
  for (const char* k : kCauses) c[k] = h.by_cause.count(k) ? h.by_cause.at(k) : 0.0;
  o["lost_by_cause"] = c;
  return o;
}

}  // namespace

ojson fleet_report(std::vector<FleetJob> jobs) {
  for (FleetJob& j : jobs)
    for (const FleetJob& other : jobs)
      if (&other != &j && other.sends) j.causes.push_back({"neighbour", other.start_s, other.end_s});
  ojson list = ojson::array();
  Hours total;
  for (const FleetJob& j : jobs) {
    const ojson& d = j.degradation;
    Hours h;
    h.allocated = j.gpus * (j.end_s - j.start_s) / 3600.0;
    const int W = d.value("window_iterations", 1);
    const bool has_base = d.contains("baseline_iteration_s") && !d["baseline_iteration_s"].is_null();
    const double base = has_base ? d["baseline_iteration_s"].get<double>() : 0;
    const double fraction = d.value("slo_fraction", 0.9);
    const double affected = d.contains("ranks_affected") ? static_cast<double>(d["ranks_affected"].size()) : 0;
    for (const ojson& w : d["timeline"]) {
      // A window of W iterations at `rate` per minute lasted 60 W / rate and ended at end_s.
      const double rate = w["iterations_per_min"].get<double>(), dur = 60.0 * W / rate;
      const double end = w["end_s"].get<double>(), start = end - dur;
      h.measured += j.gpus * dur / 3600.0;
      if (!has_base || rate >= fraction * 60.0 / base) h.within += j.gpus * dur / 3600.0;
      // The window is rebuilt from its rate: a healthy one may come back a rounding above W x base.
      const double over = has_base ? dur - W * base : 0;
      if (over <= 1e-9 * dur) continue;
      const double lost = over * j.gpus / 3600.0;
      h.lost += lost;
      h.stranded += lost * (j.gpus - affected) / j.gpus;
      // Split among the distinct causes active during the window. A fault on the job's own GPUs
      // or links explains it before a neighbour that merely ran then; neither: unattributed.
      std::set<std::string> faults, neighbours;
      for (const CauseSpan& c : j.causes)
        if (c.start_s < end && c.end_s > start) (c.cause == "neighbour" ? neighbours : faults).insert(c.cause);
      std::set<std::string> active = !faults.empty() ? faults : neighbours;
      if (active.empty()) active.insert("unattributed");
      for (const std::string& c : active) h.by_cause[c] += lost / static_cast<double>(active.size());
    }
    ojson o = {{"job", j.name}, {"gpus", j.gpus}};
    o.update(hours_json(h));
    list.push_back(o);
    total.allocated += h.allocated, total.measured += h.measured, total.within += h.within;
    total.lost += h.lost, total.stranded += h.stranded;
    for (const auto& [k, v] : h.by_cause) total.by_cause[k] += v;
  }
  ojson r;
  r["jobs"] = list;
  r["total"] = hours_json(total);
  return r;
}

}  // namespace trainvp::report_detail
