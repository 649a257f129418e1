#include "platform/config/health.hpp"

namespace trainvp {

const ParamSet<HealthConfig>& health_schema() {
  static const ParamSet<HealthConfig> s = [] {
    ParamSet<HealthConfig> p(
        "health", "/health",
        "Fail-slow detection and mitigation in the loop (docs/health.md): a monitor that sees only "
        "collective calls, GREYHOUND's detector, probes run on the platform, a mitigation policy, "
        "and a score against the injected faults (results.json `health`).");
    p.nested("detector", "object", json::object(), "The detector's parameters (see `health_detector`)")
        .nested("mitigation", "object", json::object(), "What answers a diagnosis (see `health_mitigation`)");
    return p;
  }();
  return s;
}

const NameTable<MitigationPolicy>& mitigation_policy_names() {
  static const NameTable<MitigationPolicy> t{{"none", MitigationPolicy::None},
                                             {"ladder", MitigationPolicy::Ladder},
                                             {"always_restart", MitigationPolicy::AlwaysRestart},
                                             {"oracle", MitigationPolicy::Oracle}};
  return t;
}

const ParamSet<MitigationConfig>& mitigation_schema() {
  static const ParamSet<MitigationConfig> s = [] {
    ParamSet<MitigationConfig> p("health_mitigation", "/health/mitigation",
                                 "GREYHOUND's mitigation ladder and the policies to compare it with (docs/health.md).");
    p.choice("policy", &MitigationConfig::policy, "none", mitigation_policy_names(),
             "none: detect only; ladder: its steps (S1 -> S2 -> S4 unless `steps` says) by ski rental; "
             "always_restart: S4 on every diagnosis; "
             "oracle: the best step at once on the injected faults themselves")
        .nested("steps", "array", json::array({"s1", "s2", "s4"}),
                "The ladder's steps in order, from s1 (observe), s2 (move micro-batches between data-parallel "
                "replicas), s3 (move whole nodes so the slow GPUs sit in few replicas and the lightest stages; "
                "docs/health.md#s3-topology-adjustment), s4 (checkpoint and restart with a spare node)")
        .time("rebalance_pause", &MitigationConfig::rebalance_pause_ps, "2s",
              "S2's cost: the job pauses this long to re-plan its micro-batch split (our estimate)")
        .time("topology_pause", &MitigationConfig::topology_pause_ps, "60s",
              "S3's cost: the job stops this long to move to its new node order (GREYHOUND: about a minute)")
        .time("checkpoint_save", &MitigationConfig::checkpoint_save_ps, "30s",
              "S4: saving the checkpoint (our estimate)")
        .time("restart", &MitigationConfig::restart_ps, "5min",
              "S4: relaunching on the spare node, loading the checkpoint, warming up (our estimate)")
        .integer("recheck_iterations", &MitigationConfig::recheck_iterations, 20,
                 "While S2 works around slow GPUs, a GEMM probe re-checks them this often (iterations); when "
                 "none is slow any more the even split returns",
                 Range::at_least(1));
    return p;
  }();
  return s;
}

const char* mitigation_step_name(MitigationStep s) {
  switch (s) {
    case MitigationStep::S1: return "s1";
    case MitigationStep::S2: return "s2";
    case MitigationStep::S3: return "s3";
    case MitigationStep::S4: return "s4";
  }
  return "?";
}

namespace {

std::vector<MitigationStep> load_steps(const json& v, const std::string& path) {
  if (!v.is_array() || v.empty()) fail_expected(path, "a non-empty list of steps (\"s1\" .. \"s4\")", v);
  std::vector<MitigationStep> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    const std::string n = v[i].is_string() ? v[i].get<std::string>() : "";
    MitigationStep s;
    if (n == "s1") s = MitigationStep::S1;
    else if (n == "s2") s = MitigationStep::S2;
    else if (n == "s3") s = MitigationStep::S3;
    else if (n == "s4") s = MitigationStep::S4;
    else fail_expected(p, "one of \"s1\", \"s2\", \"s3\", \"s4\"", v[i]);
    if (!out.empty() && static_cast<int>(s) <= static_cast<int>(out.back()))
      throw ScenarioError(p, "the ladder's steps go up: each after the one before, once");
    out.push_back(s);
  }
  return out;
}

}  // namespace

json load_health(HealthConfig& h, const json& value) {
  if (value.is_null()) return nullptr;
  json resolved = health_schema().load(h, value, "/health");
  const json d = value.contains("detector") ? value["detector"] : json::object();
  resolved["detector"] = detector_schema().load(h.detector, d, "/health/detector");
  const json m = value.contains("mitigation") ? value["mitigation"] : json::object();
  resolved["mitigation"] = mitigation_schema().load(h.mitigation, m, "/health/mitigation");
  const json steps = m.is_object() && m.contains("steps") ? m["steps"] : json::array({"s1", "s2", "s4"});
  h.mitigation.steps = load_steps(steps, "/health/mitigation/steps");
  resolved["mitigation"]["steps"] = steps;
  h.enabled = true;
  return resolved;
}

}  // namespace trainvp
