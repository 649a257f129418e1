#include "platform/config/document.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "platform/config/scenario.hpp"
#include "platform/config/section.hpp"

namespace trainvp {

const ParamSet<TopRaw>& scenario_schema() {
  static const ParamSet<TopRaw> s = [] {
    ParamSet<TopRaw> p("scenario", "/", "The top level of a scenario file.");
    p.integer("trainvp", &TopRaw::version, nullptr, "Scenario format version; this build reads 1")
        .text("name", &TopRaw::name, nullptr,
              "Run name: letters, digits, '.', '_' and '-'; default: the file's name without .json")
        .text("description", &TopRaw::description, nullptr, "Free text: what the scenario is for (not simulated)")
        .integer64("seed", &TopRaw::seed, 1, "Seed of every random draw; same scenario + seed = same results")
        .nested("cluster", "object", nullptr, "The GPUs and how they are connected (see `cluster`)")
        .nested("workload", "object", nullptr,
                "What each data-parallel replica trains (see `workload`); required without `jobs`")
        .nested("training", "object", json::object(), "Iterations, optimizer and synchronization (see `training`)")
        .nested(
            "jobs", "array", nullptr,
            "Several training jobs sharing the cluster, instead of `workload` and `training` (see `job`, docs/jobs.md)")
        .nested("faults", "array", json::array(),
                "Injected faults: objects {kind, target, start, duration, ...} (see `fault_*`, docs/faults.md)")
        .nested("fault_generator", "object", nullptr,
                "A seeded random fault campaign appended to `faults` (see `fault_generator`, docs/faults.md)")
        .nested("slo", "object", nullptr, "Service level of the degraded-throughput report (see `slo`)")
        .nested("health", "object", nullptr, "Fail-slow detection in the loop (see `health`, docs/health.md)")
        .nested("output", "object", json::object(), "What is written and where (see `output`)")
        .nested("validation", "object", nullptr,
                "The published measurement this scenario reproduces (see `validation`, docs/validation.md)")
        .required("trainvp")
        .required("cluster");
    return p;
  }();
  return s;
}

void apply_faults_document(json& doc, json faults, const std::string& faults_file) {
  if (faults.is_object() && faults.contains("faults")) {
    for (auto it = faults.begin(); it != faults.end(); ++it)
      if (it.key() != "faults")
        throw ScenarioError("", "--faults \"" + faults_file + "\": unknown key " +
                                    clip_pointer(ptr_join("", it.key())) +
                                    ": an object there holds only `faults` (the list)");
    faults = json(faults["faults"]);
  }
  if (!faults.is_array())
    throw ScenarioError("", "--faults \"" + faults_file +
                                "\": expected a JSON list of faults (as DIR/faults.json holds it) or an object with "
                                "a `faults` list, found " +
                                describe_found(faults));
  if (doc.is_object()) doc["faults"] = faults, doc.erase("fault_generator");
}

namespace {

struct TextPos {
  std::size_t line = 1, column = 1;
};

// Line and column (both from 1, columns in bytes) of byte `offset` of `text`.
TextPos position_of(const std::string& text, std::size_t offset) {
  TextPos p;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') p.line++, p.column = 1;
    else p.column++;
  }
  return p;
}

// One pass over the text, following its structure as far as it is JSON: a stack of the open
// containers (never recursion), the keys seen in each open object, the pointer of the value being
// read. It stops quietly where the text is not JSON; the parser then reports that.
class JsonScanner {
 public:
  JsonScanner(const std::string& text, const std::string& source, const std::string& base, int base_depth)
      : text_(text), source_(source), base_(base), base_depth_(base_depth) {}

  void run() {
    if (auto nul = text_.find('\0'); nul != std::string::npos) {
      TextPos p = position_of(text_, nul);
      throw ScenarioError(base_, "NUL byte at byte offset " + std::to_string(nul) + " (" + at(p) +
                                     "): JSON text may not contain one, and nothing after it may be ignored");
    }
    std::size_t i = 0;
    const std::size_t n = text_.size();
    while (i < n) {
      const char c = text_[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i;
      } else if (c == '{' || c == '[') {
        if (base_depth_ + static_cast<int>(stack_.size()) >= kMaxJsonDepth)
          throw ScenarioError(clip_pointer(pointer()), "nesting deeper than " + std::to_string(kMaxJsonDepth) +
                                                           " levels " + at(position_of(text_, i)) +
                                                           " (the limit of every JSON input, docs/reliability.md)");
        Frame f;
        f.object = c == '{';
        stack_.push_back(std::move(f));
        ++i;
      } else if (c == '}' || c == ']') {
        if (stack_.empty()) return;
        stack_.pop_back();
        ++i;
      } else if (c == ',') {
        if (stack_.empty()) return;
        if (stack_.back().object) stack_.back().expect_key = true;
        else stack_.back().index++;
        ++i;
      } else if (c == ':') {
        if (stack_.empty() || !stack_.back().object) return;
        stack_.back().expect_key = false;
        ++i;
      } else if (c == '"') {
        const std::size_t start = i++;
        while (i < n && text_[i] != '"') i += text_[i] == '\\' ? 2 : 1;
        if (i >= n) return;  // unterminated: the parser says so
        ++i;
        if (!stack_.empty() && stack_.back().object && stack_.back().expect_key && !key(start, i)) return;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        const std::size_t start = i;
        while (i < n && (std::isdigit(static_cast<unsigned char>(text_[i])) || text_[i] == '.' || text_[i] == 'e' ||
                         text_[i] == 'E' || text_[i] == '+' || text_[i] == '-'))
          ++i;
        if (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_')) return;  // not a number
        number(start, i);
      } else if (std::isalpha(static_cast<unsigned char>(c))) {
        while (i < n && std::isalpha(static_cast<unsigned char>(text_[i]))) ++i;
      } else {
        return;
      }
    }
  }

 private:
  struct Frame {
    bool object = false;
    bool expect_key = true;
    std::size_t index = 0;
    std::string key;
    std::map<std::string, std::size_t> keys;  // key -> byte offset of its first occurrence
  };

  std::string at(const TextPos& p) const {
    return (source_.empty() ? "" : "in " + source_ + " ") + "at line " + std::to_string(p.line) + ", column " +
           std::to_string(p.column);
  }

  std::string pointer() const {
    std::string p = base_;
    for (const Frame& f : stack_) p = f.object ? ptr_join(p, f.key) : ptr_join(p, f.index);
    return p;
  }

  // The key quoted at [start, end): recorded, or a duplicate reported. False when it is not a
  // valid JSON string (the parser reports it).
  bool key(std::size_t start, std::size_t end) {
    std::string k = text_.substr(start + 1, end - start - 2);
    if (k.find('\\') != std::string::npos) {
      try {
        k = json::parse(text_.begin() + static_cast<std::ptrdiff_t>(start),
                        text_.begin() + static_cast<std::ptrdiff_t>(end))
                .get<std::string>();
      } catch (const json::exception&) {
        return false;
      }
    }
    Frame& f = stack_.back();
    f.expect_key = false;
    auto [it, fresh] = f.keys.emplace(k, start);
    f.key = k;
    if (!fresh)
      throw ScenarioError(clip_pointer(pointer()), "duplicate key " + quote_clipped(k) + " " +
                                                       at(position_of(text_, it->second)) + " and again at line " +
                                                       std::to_string(position_of(text_, start).line) + ", column " +
                                                       std::to_string(position_of(text_, start).column) +
                                                       ": a key may appear once in an object");
    return true;
  }

  void number(std::size_t start, std::size_t end) {
    const std::string t = text_.substr(start, end - start);
    const double v = std::strtod(t.c_str(), nullptr);
    if (std::isinf(v))
      throw ScenarioError(clip_pointer(pointer()), "number " + quote_clipped(t) + " " + at(position_of(text_, start)) +
                                                       " is beyond the range of a double (about 1.8e308)");
  }

  const std::string& text_;
  std::string source_, base_;
  int base_depth_;  // containers above the text's root
  std::vector<Frame> stack_;
};

// A validation row compares one figure of this run's results with a published one: refuse, at
// load, a metric the run will not report (it was a failed run, exit 1, after the simulation; or
// silently no comparison with jobs and Chakra traces).
void check_validation_applies(const Scenario& s) {
  const ValidationMetric m = s.validation.metric;
  const std::string metric = name_in(validation_metric_names(), m);
  if (!s.jobs.empty())
    throw ScenarioError("/validation",
                        "compares one run's figure with a published one; with `jobs` each job has its own");
  if (s.chakra)
    throw ScenarioError("/validation",
                        "compares a training or a collective benchmark with a published figure; Chakra "
                        "traces run once, without iterations");
  if (s.collective_bench) {
    if (m != ValidationMetric::BusBandwidth)
      throw ScenarioError("/validation/metric",
                          "\"" + metric + "\" is a training figure; a collective benchmark reports busbw_GBps");
    const auto& sizes = s.bench.sizes;
    if (std::find(sizes.begin(), sizes.end(), s.validation.bytes) == sizes.end())
      throw ScenarioError("/validation/bytes", "is not one of the benchmark's message sizes");
    return;
  }
  if (m == ValidationMetric::BusBandwidth)
    throw ScenarioError("/validation/metric",
                        "busbw_GBps is a collective benchmark's figure (workload.kind collective)");
  if ((m == ValidationMetric::TflopsPerGpu || m == ValidationMetric::Mfu) &&
      !(s.training.parallel.enabled && s.workload.dims.valid()))
    throw ScenarioError("/validation/metric",
                        "\"" + metric +
                            "\" needs Megatron-LM's FLOP count: a transformer (zoo or Hugging Face) "
                            "under /training/parallel");
}

}  // namespace

void check_json_text(const std::string& text, const std::string& source, const std::string& base, int base_depth) {
  JsonScanner(text, source, base, base_depth).run();
}

json parse_json_text(const std::string& text, const std::string& source) {
  check_json_text(text, source);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into line:column for people.
    TextPos p = position_of(text, e.byte == 0 ? 0 : e.byte - 1);
    const std::string where = "at line " + std::to_string(p.line) + ", column " + std::to_string(p.column);
    if (source.empty()) throw ScenarioError("", "malformed JSON " + where + " (" + e.what() + ")");
    throw ScenarioError("", "malformed JSON in " + source + " " + where + ": expected valid JSON (" + e.what() + ")");
  } catch (const json::exception& e) {  // check_json_text catches the known ones first
    throw ScenarioError("", (source.empty() ? "" : source + ": ") + e.what());
  }
}

json read_json_file(const std::string& path, const std::string& role) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError("", "cannot read " + role + " \"" + path + "\": it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ScenarioError(
        "", "cannot read " + role + " \"" + path + "\"" + (std::filesystem::exists(path, ec) ? "" : ": no such file"));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ScenarioError("", "cannot read " + role + " \"" + path + "\"");
  return parse_json_text(ss.str(), "\"" + path + "\"");
}

void apply_override(json& doc, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || assignment.empty() || assignment[0] != '/')
    throw ScenarioError("", "bad --set \"" + assignment + "\": expected /json/pointer=VALUE");
  std::string ptr = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  std::vector<std::string> tokens;
  try {
    for (json::json_pointer jp(ptr); !jp.empty(); jp.pop_back()) tokens.push_back(jp.back());
  } catch (const json::exception& e) {
    throw ScenarioError(clip_pointer(ptr), std::string("bad --set pointer: ") + e.what());
  }
  std::reverse(tokens.begin(), tokens.end());
  // The value sits `tokens` containers down: together they keep to the document's depth limit.
  if (tokens.size() > static_cast<std::size_t>(kMaxJsonDepth))
    throw ScenarioError(clip_pointer(ptr), "bad --set pointer: deeper than " + std::to_string(kMaxJsonDepth) +
                                               " levels (the limit of every JSON input, docs/reliability.md)");
  check_json_text(text, "--set " + clip_pointer(ptr), ptr, static_cast<int>(tokens.size()));
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error&) {
    value = text;  // not JSON: a plain string such as 400Gbps or gpt2-xl
  } catch (const json::exception&) {
    value = text;  // e.g. 1e400abc: not JSON either (a number out of range alone was refused above)
  }
  // Walk from the root. Missing containers are created (an array where the next token is an
  // index, else an object), as a user writing --set /output/dir=... expects; array indices must
  // exist already or be the next one ("-" or the size), so arrays are never padded with nulls.
  auto is_index = [](const std::string& t) {
    return t == "-" || (!t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos);
  };
  json* cur = &doc;
  std::string prefix;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    const bool last = i + 1 == tokens.size();
    if (cur->is_null()) *cur = is_index(tok) ? json::array() : json::object();
    std::string here = ptr_join(prefix, tok);
    if (cur->is_object()) {
      cur = &(*cur)[tok];
    } else if (cur->is_array()) {
      if (!is_index(tok) || (tok == "-" && !last))
        throw ScenarioError(here,
                            "bad --set pointer: array index expected (0.." + std::to_string(cur->size()) + " or -)");
      std::size_t idx = tok == "-" ? cur->size() : std::stoul(tok);
      if (idx > cur->size())
        throw ScenarioError(here, "index past the end of the array (size " + std::to_string(cur->size()) + ")");
      if (idx == cur->size()) cur->push_back(nullptr);
      cur = &(*cur)[idx];
    } else {
      throw ScenarioError(prefix, "cannot --set inside a " + std::string(cur->type_name()) + " value");
    }
    prefix = here;
  }
  *cur = value;
}

namespace {

// When some all-reduce uses algorithm nvls, every node that can do NVLink SHARP gets its NVSwitch's
// NVLS unit. Its reductions are per chunk, as a CXL device's: `auto` picks packet fidelity, and
// flow is refused.
void resolve_nvls(Scenario& s, json& resolved) {
  auto uses = [](const Scenario& x) {
    return (x.collective_bench && x.bench.algorithm == CollectiveAlgo::Nvls) ||
           (x.trains() && x.training.sync.strategy != SyncStrategyKind::None &&
            x.training.sync.algorithm == CollectiveAlgo::Nvls);
  };
  bool nvls = uses(s);
  for (const JobConfig& j : s.jobs) nvls = nvls || (j.scenario && uses(*j.scenario));
  s.cluster.nvls = nvls;
  for (JobConfig& j : s.jobs)
    if (j.scenario) j.scenario->cluster.nvls = nvls;
  if (!nvls || s.cluster.fabric.fidelity != FabricFidelity::Flow) return;
  if (!s.cluster.fabric.fidelity_auto)
    fail_expected("/cluster/fabric/fidelity",
                  "\"packet\" with algorithm nvls (NVLink SHARP's reductions are per chunk, as a CXL device's)",
                  json("flow"));
  s.cluster.fabric.fidelity = FabricFidelity::Packet;
  resolved["cluster"]["fabric"]["fidelity"] = "packet";
  for (JobConfig& j : s.jobs)
    if (j.scenario) j.scenario->cluster.fabric.fidelity = FabricFidelity::Packet;
}

}  // namespace

// The sections load in a fixed order, each check once the sections it reads are loaded; that order
// decides which problem a document with several is reported for.
Scenario load_scenario(const json& doc, const std::string& default_name, const std::string& scenario_dir) {
  Scenario s;
  TopRaw top;
  json resolved = scenario_schema().load(top, doc, "");
  if (top.version != kScenarioFormatVersion)
    fail_expected("/trainvp",
                  "scenario format version " + std::to_string(kScenarioFormatVersion) +
                      " (the only version this build of trainvp reads)",
                  doc["trainvp"]);
  if (!doc.contains("name")) {
    top.name = default_name;
    resolved["name"] = default_name;
  }
  if (!safe_name(top.name))
    fail_expected(doc.contains("name") ? "/name" : "", "a run name of letters, digits, '.', '_' and '-'",
                  json(top.name));
  s.name = top.name;
  s.seed = top.seed;
  // What runs is required as the schema's required keys are: before any section loads.
  if (!doc.contains("workload") && !doc.contains("jobs"))
    throw ScenarioError("/workload",
                        "missing required key \"workload\" (what each data-parallel replica trains; or a `jobs` list)");

  resolved["cluster"] = load_cluster(s.cluster, doc["cluster"], "/cluster");
  const bool jobs = doc.contains("jobs");
  if (jobs) {  // each job holds its workload and training
    for (const char* key : {"workload", "training"})
      if (doc.contains(key))
        throw ScenarioError(std::string("/") + key,
                            std::string("a scenario with `jobs` gives each job its ") + key + " (/jobs/N/" + key + ")");
    resolved.erase("training");
    resolved["jobs"] = load_jobs(s, doc["jobs"], scenario_dir);
  } else {
    const json& wl = doc["workload"];
    WorkloadRaw wraw;
    resolved["workload"] = load_workload_section(s, wraw, wl, scenario_dir);
    resolved["training"] = load_training(s.training, s.workload, member(doc, "training"), s.cluster);
    check_training_workload(s, wl, wraw);
    check_train(s);
    s.training.functional = wraw.functional;
  }
  resolve_nvls(s, resolved);

  json fres;
  s.faults = load_fault_list(member(doc, "faults"), fres);
  resolved["faults"] = fres;
  if (const json& gen = member(doc, "fault_generator"); !gen.is_null()) {
    s.fault_generator = load_fault_generator(gen, s);
    resolved["fault_generator"] = s.fault_generator.resolved;
  }
  if (json slo = load_slo(s.slo, member(doc, "slo")); !slo.is_null()) resolved["slo"] = slo;
  if (json v = load_validation(s.validation, member(doc, "validation")); !v.is_null()) {
    resolved["validation"] = v;
    check_validation_applies(s);
  }
  if (json h = load_health(s.health, member(doc, "health")); !h.is_null()) resolved["health"] = h;
  if (jobs && s.health.enabled)
    throw ScenarioError("/health", "with `jobs`, each job has its own fail-slow monitor: /jobs/N/health");
  if (jobs && s.slo.given)
    throw ScenarioError("/slo", "with `jobs`, each job has its own degraded-throughput report: /jobs/N/slo");
  if (s.chakra) {  // a trace runs once, its own communication as recorded
    if (s.health.enabled)
      throw ScenarioError("/health", "watches training iterations; Chakra traces run once, without them");
    if (const json& t = member(doc, "training"); t.is_object() && t.contains("sync"))
      throw ScenarioError("/training/sync", "does not apply to Chakra traces: they hold their own communication");
  }
  resolved["output"] = load_output(s.output, member(doc, "output"), s.name, s.cluster.cxl);
  for (JobConfig& j : s.jobs) j.scenario->output = s.output;  // a job's strategy reads what is traced

  if (!jobs) check_workload_dtype_on_gpus(s);  // each job's was checked on its own GPUs
  check_parallel_workload(s);                  // the partition's roofline times need a dtype every GPU computes in
  s.resolved = resolved;
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file) {
  json doc = read_json_file(path);
  if (!faults_file.empty()) apply_faults_document(doc, read_json_file(faults_file, "faults file"), faults_file);
  for (auto& o : overrides) apply_override(doc, o);
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  Scenario s = load_scenario(doc, stem, std::filesystem::path(path).parent_path().string());
  s.faults_file = faults_file;
  return s;
}

}  // namespace trainvp
