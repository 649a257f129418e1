#include "platform/config/fault_generator.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "platform/config/scenario.hpp"
#include "platform/config/section.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/units.hpp"

namespace trainvp {

namespace {

// ---- the table: one entry per fault kind the generator draws ----

using Targets = GeneratorTargets;
enum class Class { Compute, Network };  // which GREYHOUND population its defaults come from

struct KindSpec {
  FaultKind kind;  // its key under /fault_generator is the kind's name
  const char* name() const { return fault_kind_name(kind); }
  Targets targets;
  Class cls;
  // Default arrival rate per GPU-hour (Targets::Gpu) or per node-hour (the others), derived in
  // docs/faults.md#random-campaigns from GREYHOUND's probe studies (DOMAIN.md section 3):
  // single-node study, 392 probes x ~80 min on 4 GPUs of one node: 2 GPU degradations and
  // 4 CPU contentions; four-node study, 107 probes x ~5 h on 4 nodes: 42 congestion events.
  double rate_per_unit_h;
  const char* levels;  // fault keys of weak, medium, severe events
  const char* help;
};

constexpr double kSingleNodeProbeHours = 392 * 80.0 / 60;  // node-hours (4 GPUs each)
constexpr double kFourNodeProbeNodeHours = 107 * 5.0 * 4;

const std::vector<KindSpec>& kind_table() {
  static const std::vector<KindSpec> t = {
      {FaultKind::GpuSlowdown, Targets::Gpu, Class::Compute, 2 / (kSingleNodeProbeHours * 4),
       R"({"weak": {"factor": 0.9}, "medium": {"factor": 0.8}, "severe": {"factor": 0.5}})",
       "Compute fail-slow events on one GPU each (see `fault_generator_kind`)"},
      {FaultKind::CpuContention, Targets::Host, Class::Compute, 4 / kSingleNodeProbeHours,
       R"({"weak": {"launch_factor": 1.5}, "medium": {"launch_factor": 2}, "severe": {"launch_factor": 4}})",
       "CPU contention on one node's host, all its GPUs (see `fault_generator_kind`)"},
      {FaultKind::LinkDegrade, Targets::Link, Class::Network, 42 / kFourNodeProbeNodeHours,
       R"({"weak": {"bandwidth_factor": 0.75}, "medium": {"bandwidth_factor": 0.5},
           "severe": {"bandwidth_factor": 0.25}})",
       "Congested or degraded links, one link each (see `fault_generator_kind`)"},
      {FaultKind::PacketLoss, Targets::Link, Class::Network, 0,
       R"({"weak": {"rate": 1e-5}, "medium": {"rate": 1e-4}, "severe": {"rate": 1e-3}})",
       "Lossy links, one link each (see `fault_generator_kind`); off by default (not measured by GREYHOUND)"},
      {FaultKind::LinkDown, Targets::Link, Class::Network, 0, R"({"weak": {}, "medium": {}, "severe": {}})",
       "Link flaps, one link each (see `fault_generator_kind`); off by default (fail-stop, not in GREYHOUND)"},
      // GREYHOUND's congestion events are drawn as link_degrade by default (cheap to simulate);
      // this kind draws them as real cross-traffic between two NICs instead.
      {FaultKind::Congestion, Targets::NicPair, Class::Network, 0,
       R"({"weak": {"rate": "50Gbps"}, "medium": {"rate": "100Gbps"}, "severe": {"rate": "200Gbps"}})",
       "Background cross-traffic from one NIC to another (see `fault_generator_kind`); off by default (GREYHOUND's "
       "congestion is drawn as `link_degrade` unless this kind is given a rate)"},
  };
  return t;
}

constexpr double kDefaultMix[kSeverities] = {0.3, 0.5, 0.2};  // GREYHOUND's injected compute events: 3, 5, 2
constexpr double kMaxExpectedEvents = 1e6;

// ---- schemas ----

struct GenRaw {
  std::int64_t start = 0, horizon = 0;
  std::uint64_t seed = 0;
};
const ParamSet<GenRaw>& generator_schema() {
  static const ParamSet<GenRaw> s = [] {
    ParamSet<GenRaw> p("fault_generator", "/fault_generator",
                       "A seeded random fault campaign: per kind Poisson arrivals, a duration distribution, a severity "
                       "mix and a scope; the events are appended to `faults` and written to DIR/faults.json "
                       "(docs/faults.md#random-campaigns).");
    p.time("start", &GenRaw::start, "0s",
           "Events arrive from this time on (a fault-free start gives the report its baseline)")
        .time("horizon", &GenRaw::horizon, nullptr, "Events arrive before this time; default: /training/time_limit",
              Range::positive())
        .integer64("seed", &GenRaw::seed, nullptr, "Seed of the campaign's draws; default: the scenario's `seed`");
    for (const KindSpec& k : kind_table()) p.nested(k.name(), "object", json::object(), k.help);
    return p;
  }();
  return s;
}

struct KindRaw {
  double rate = 0;
  std::string scope;
};
const ParamSet<KindRaw>& kind_schema() {
  static const ParamSet<KindRaw> s = [] {
    ParamSet<KindRaw> p("fault_generator_kind", "/fault_generator/<kind>",
                        "How often events of one kind arrive, how long they last, how severe they are and what "
                        "they hit.");
    p.number("rate", &KindRaw::rate, nullptr,
             "Events per hour over the whole job (Poisson arrivals); 0: off; default: GREYHOUND's measured frequency "
             "per GPU (gpu_slowdown) or per node (the others) times the job's GPUs or nodes",
             Range::non_negative())
        .nested("duration", "object", json::object(), "Duration distribution (see `fault_generator_duration`)")
        .nested("severity", "object", json::object(),
                "Probabilities of weak, medium and severe events (see `fault_generator_severity`)")
        .nested("levels", "object", json::object(), "The fault keys of each severity (see `fault_generator_levels`)")
        .text("scope", &KindRaw::scope, nullptr,
              "Name or glob over the fabric's names (as fault targets); each event hits one match, drawn uniformly: a "
              "GPU (gpu_slowdown), a node with a matching GPU (cpu_contention: all its GPUs), a link (link kinds), a "
              "source NIC and another destination NIC (congestion); default: every GPU, every node, every network "
              "(Ethernet) link, every NIC");
    return p;
  }();
  return s;
}

struct DurRaw {
  DurationDist distribution = DurationDist::Exponential;
  std::int64_t mean = 0;
  double sigma = 1.0;
};
const ParamSet<DurRaw>& duration_schema() {
  static const ParamSet<DurRaw> s = [] {
    ParamSet<DurRaw> p("fault_generator_duration", "/fault_generator/<kind>/duration",
                       "How long an event lasts, drawn independently per event (whole microseconds, at least 1us).");
    p.choice("distribution", &DurRaw::distribution, "exponential",
             {{"exponential", DurationDist::Exponential},
              {"lognormal", DurationDist::Lognormal},
              {"fixed", DurationDist::Fixed}},
             "exponential (only a mean is measured), lognormal (mean `mean`, `sigma` of the log) or fixed (= mean)")
        .time("mean", &DurRaw::mean, nullptr,
              "Mean duration; default (GREYHOUND): 10min for compute kinds, 24min for network kinds, 72min for network "
              "kinds when the job has >= 512 GPUs",
              Range::positive())
        .number("sigma", &DurRaw::sigma, 1.0, "lognormal: standard deviation of ln(duration)", Range::positive());
    return p;
  }();
  return s;
}

struct SevRaw {
  double weak = 0, medium = 0, severe = 0;
};
const ParamSet<SevRaw>& severity_schema() {
  static const ParamSet<SevRaw> s = [] {
    ParamSet<SevRaw> p("fault_generator_severity", "/fault_generator/<kind>/severity",
                       "The severity mix: probabilities summing to 1 (default: GREYHOUND's injected compute events, 3 "
                       "weak, 5 medium, 2 severe).");
    p.number("weak", &SevRaw::weak, kDefaultMix[0], "Probability of a weak event", Range::unit_closed())
        .number("medium", &SevRaw::medium, kDefaultMix[1], "Probability of a medium event", Range::unit_closed())
        .number("severe", &SevRaw::severe, kDefaultMix[2], "Probability of a severe event", Range::unit_closed());
    return p;
  }();
  return s;
}

struct LevelsRaw {};
const ParamSet<LevelsRaw>& levels_schema() {
  static const ParamSet<LevelsRaw> s = [] {
    ParamSet<LevelsRaw> p("fault_generator_levels", "/fault_generator/<kind>/levels",
                          "The fault keys each severity sets, as in a `faults` entry of the kind (all but kind, "
                          "target, start, duration); a level given replaces the default.");
    p.nested("weak", "object", nullptr,
             "Weak events; default: factor 0.9, launch_factor 1.5, bandwidth_factor 0.75, rate 1e-5 (by kind)")
        .nested("medium", "object", nullptr,
                "Medium events; default: factor 0.8, launch_factor 2, bandwidth_factor 0.5, rate 1e-4")
        .nested("severe", "object", nullptr,
                "Severe events; default: factor 0.5, launch_factor 4, bandwidth_factor 0.25, rate 1e-3");
    return p;
  }();
  return s;
}

}  // namespace

const char* severity_name(int severity) {
  static const char* const names[kSeverities] = {"weak", "medium", "severe"};
  return names[severity];
}

std::string time_text(std::int64_t ps) {
  char buf[64];
  if (ps % 1000000 == 0)
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%06" PRId64 "s", ps / 1000000000000, ps / 1000000 % 1000000);
  else std::snprintf(buf, sizeof buf, "%" PRId64 "ps", ps);
  std::string s = buf;
  if (s.size() > 8 && s.compare(s.size() - 8, 8, ".000000s") == 0) s.erase(s.size() - 8, 7);
  return s;
}

namespace {

// Checks one severity level by loading it as a fault of the kind, so it passes exactly the
// validation explicit faults get; errors are reported at the level's pointer.
std::int64_t check_level(const KindSpec& k, const json& level, const std::string& path) {
  if (!level.is_object()) fail_expected(path, "an object of " + std::string(k.name()) + " fault keys", level);
  for (const char* drawn : {"kind", "target", "source", "destination", "start", "duration", "origin", "severity"})
    if (level.contains(drawn))
      throw ScenarioError(ptr_join(path, drawn),
                          std::string("\"") + drawn + "\" is drawn by the generator, not set per severity");
  json f = level;
  f["kind"] = k.name();
  if (k.targets == Targets::NicPair) f["source"] = "*", f["destination"] = "*";
  else f["target"] = "*";
  json resolved;
  try {
    return load_fault_list(json::array({f}), resolved).at(0).ramp_ps;
  } catch (const ScenarioError& e) {
    const std::string prefix = "/faults/0";
    std::string msg = e.what();
    msg = msg.substr(std::min(msg.size(), e.path.size() + 2));
    throw ScenarioError(path + (e.path.rfind(prefix, 0) == 0 ? e.path.substr(prefix.size()) : ""), msg);
  }
}

FaultGeneratorKind load_kind(const KindSpec& k, const json& value, const Scenario& s, const std::string& path,
                             json& resolved) {
  FaultGeneratorKind g;
  g.name = k.name();
  g.kind = k.kind;
  g.targets = k.targets;
  const double units = k.targets == Targets::Gpu ? static_cast<double>(s.cluster.gpus.size()) : s.cluster.nodes;
  KindRaw raw;
  raw.rate = k.rate_per_unit_h * units;
  resolved = kind_schema().load(raw, value, path);
  resolved["rate"] = raw.rate;
  g.rate_per_h = raw.rate;
  g.scope = raw.scope;

  const std::string dp = ptr_join(path, "duration");
  const bool big = s.cluster.gpus.size() >= 512;
  const char* mean = k.cls == Class::Compute ? "10min" : big ? "72min" : "24min";
  DurRaw d;
  d.mean = parse_time_ps(mean);
  const json& dv = member(value, "duration");
  json dres = duration_schema().load(d, dv.is_null() ? json::object() : dv, dp);
  if (!dres.contains("mean")) dres["mean"] = mean;
  resolved["duration"] = dres;
  g.distribution = d.distribution;
  g.mean_ps = d.mean;
  g.sigma = d.sigma;

  const std::string sp = ptr_join(path, "severity");
  const json& sv = member(value, "severity");
  SevRaw sev;
  json sres = severity_schema().load(sev, sv.is_null() ? json::object() : sv, sp);
  g.mix[0] = sev.weak, g.mix[1] = sev.medium, g.mix[2] = sev.severe;
  const double sum = sev.weak + sev.medium + sev.severe;
  if (std::abs(sum - 1) > 1e-9)
    fail_expected(sp, "weak, medium and severe probabilities summing to 1 (they sum to " + std::to_string(sum) + ")",
                  sv);
  resolved["severity"] = sres;

  const std::string lp = ptr_join(path, "levels");
  const json& lv = member(value, "levels");
  LevelsRaw lr;
  levels_schema().load(lr, lv.is_null() ? json::object() : lv, lp);
  const json defaults = json::parse(k.levels);
  json lres = json::object();
  for (int i = 0; i < kSeverities; ++i) {
    const json& given = member(lv, severity_name(i));
    g.levels[i] = given.is_null() ? defaults[severity_name(i)] : given;
    g.min_duration_ps[i] = check_level(k, g.levels[i], ptr_join(lp, severity_name(i)));
    lres[severity_name(i)] = g.levels[i];
  }
  resolved["levels"] = lres;
  return g;
}

}  // namespace

FaultGeneratorConfig load_fault_generator(const json& value, const Scenario& s) {
  const std::string path = "/fault_generator";
  FaultGeneratorConfig c;
  c.enabled = true;
  GenRaw raw;
  raw.horizon = s.training.time_limit_ps;
  raw.seed = s.seed;
  json r = generator_schema().load(raw, value, path);
  if (!r.contains("horizon")) r["horizon"] = time_text(raw.horizon);
  r["seed"] = raw.seed;
  if (raw.horizon <= raw.start)
    fail_expected(
        ptr_join(path, value.contains("horizon") ? "horizon" : "start"),
        "a horizon after the start (start " + time_text(raw.start) + ", horizon " + time_text(raw.horizon) + ")",
        member(value, value.contains("horizon") ? "horizon" : "start"));  // start may be absent too
  c.start_ps = raw.start;
  c.horizon_ps = raw.horizon;
  c.seed = raw.seed;
  const double hours = static_cast<double>(c.horizon_ps - c.start_ps) / 3.6e15;
  for (const KindSpec& k : kind_table()) {
    const std::string kp = ptr_join(path, k.name());
    const json& kv = member(value, k.name());
    json kres;
    c.kinds.push_back(load_kind(k, kv.is_null() ? json::object() : kv, s, kp, kres));
    if (c.kinds.back().rate_per_h * hours > kMaxExpectedEvents)
      fail_expected(ptr_join(kp, "rate"),
                    "a rate giving at most 1e6 expected events over the horizon (" + std::to_string(hours) + " h)",
                    json(c.kinds.back().rate_per_h));
    r[k.name()] = kres;
  }
  c.resolved = r;
  return c;
}

std::vector<SchemaInfo> fault_generator_schemas() {
  return {generator_schema().info(), kind_schema().info(), duration_schema().info(), severity_schema().info(),
          levels_schema().info()};
}

}  // namespace trainvp
