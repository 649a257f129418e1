#include "platform/config/document.hpp"

#include <cctype>
#include <fstream>
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
        .nested("workload", "object", nullptr, "What each data-parallel replica trains (see `workload`)")
        .nested("training", "object", json::object(), "Iterations, optimizer and synchronization (see `training`)")
        .nested("faults", "array", json::array(),
                "Injected faults: objects {kind, target, start, duration, ...} (see `fault_*`, docs/faults.md)")
        .nested("fault_generator", "object", nullptr,
                "A seeded random fault campaign appended to `faults` (see `fault_generator`, docs/faults.md)")
        .nested("slo", "object", nullptr, "Service level of the degraded-throughput report (see `slo`)")
        .nested("output", "object", json::object(), "What is written and where (see `output`)")
        .required("trainvp")
        .required("cluster")
        .required("workload");
    return p;
  }();
  return s;
}

namespace {

bool safe_name(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

// `trainvp run --faults F`: F's list replaces the document's faults, and its fault_generator goes.
void replace_faults(json& doc, const std::string& faults_file) {
  json f = read_json_file(faults_file);
  if (f.is_object() && f.contains("faults")) f = f["faults"];
  if (!f.is_array())
    throw ScenarioError("", "--faults \"" + faults_file +
                                "\": expected a JSON list of faults (as DIR/faults.json holds it) or an object with "
                                "a `faults` list, found " + describe_found(f));
  if (doc.is_object()) doc["faults"] = f, doc.erase("fault_generator");
}

}  // namespace

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("", "cannot read scenario file \"" + path + "\"");
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into line:column for people.
    const std::string text = ss.str();
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') line++, col = 1;
      else col++;
    }
    throw ScenarioError("", "malformed JSON in \"" + path + "\" at line " + std::to_string(line) + ", column " +
                                std::to_string(col) + ": expected valid JSON (" + e.what() + ")");
  }
}

void apply_override(json& doc, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || assignment.empty() || assignment[0] != '/')
    throw ScenarioError("", "bad --set \"" + assignment + "\": expected /json/pointer=VALUE");
  std::string ptr = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::parse_error&) {
    value = text;  // not JSON: a plain string such as 400Gbps or gpt2-xl
  }
  std::vector<std::string> tokens;
  try {
    for (json::json_pointer jp(ptr); !jp.empty(); jp.pop_back()) tokens.insert(tokens.begin(), jp.back());
  } catch (const json::exception& e) {
    throw ScenarioError(ptr, std::string("bad --set pointer: ") + e.what());
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
        throw ScenarioError(here, "bad --set pointer: array index expected (0.." + std::to_string(cur->size()) + " or -)");
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

// The sections load in a fixed order, each check once the sections it reads are loaded; that order
// decides which problem a document with several is reported for.
Scenario load_scenario(const json& doc, const std::string& default_name) {
  Scenario s;
  TopRaw top;
  json resolved = scenario_schema().load(top, doc, "");
  if (top.version != kScenarioFormatVersion)
    fail_expected("/trainvp", "scenario format version " + std::to_string(kScenarioFormatVersion) +
                                  " (the only version this build of trainvp reads)",
                  doc["trainvp"]);
  if (!doc.contains("name")) {
    top.name = default_name;
    resolved["name"] = default_name;
  }
  if (!safe_name(top.name))
    fail_expected(doc.contains("name") ? "/name" : "", "a run name of letters, digits, '.', '_' and '-'", json(top.name));
  s.name = top.name;
  s.seed = top.seed;

  resolved["cluster"] = load_cluster(s.cluster, doc["cluster"], "/cluster");
  const json& wl = doc["workload"];
  WorkloadRaw wraw;
  resolved["workload"] = load_workload_section(s, wraw, wl);
  resolved["training"] = load_training(s.training, s.workload, member(doc, "training"), s.cluster);
  check_training_workload(s, wl, wraw);
  s.training.functional = wraw.functional;

  json fres;
  s.faults = load_fault_list(member(doc, "faults"), fres);
  resolved["faults"] = fres;
  if (const json& gen = member(doc, "fault_generator"); !gen.is_null()) {
    s.fault_generator = load_fault_generator(gen, s);
    resolved["fault_generator"] = s.fault_generator.resolved;
  }
  if (json slo = load_slo(s.slo, member(doc, "slo")); !slo.is_null()) resolved["slo"] = slo;
  resolved["output"] = load_output(s.output, member(doc, "output"), s.name, s.cluster.cxl);

  check_workload_dtype_on_gpus(s);
  s.resolved = resolved;
  return s;
}

Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& overrides,
                            const std::string& faults_file) {
  json doc = read_json_file(path);
  if (!faults_file.empty()) replace_faults(doc, faults_file);
  for (auto& o : overrides) apply_override(doc, o);
  std::string stem = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  Scenario s = load_scenario(doc, stem);
  s.faults_file = faults_file;
  return s;
}

}  // namespace trainvp
